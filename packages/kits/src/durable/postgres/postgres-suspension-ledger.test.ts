import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { InvalidInputError, InvalidOutputError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { DurableStoreError } from '@agent-core/kits/durable'
import { type AgentRunState, createScriptedModel, defineAgent, defineAgentTool } from '@agent-core/kits/loop'
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeSuspensionLedgerConformance } from '../../testing/suspension-ledger-conformance.js'
import { createPostgresSuspensionLedger, PostgresSuspensionLedger } from './index.js'
import { type EmbeddedPostgresServer, startEmbeddedPostgres } from './testing/embedded.js'

const childScript = fileURLToPath(new URL('./testing/resume-child.ts', import.meta.url))
const repositoryRoot = fileURLToPath(new URL('../../../../../', import.meta.url))

let server: EmbeddedPostgresServer | undefined
let tables = 0
const freshTable = () => `claims_${++tables}`
function running(): EmbeddedPostgresServer {
  if (server === undefined) throw new Error('the embedded PostgreSQL server did not start')
  return server
}

beforeAll(async () => {
  server = await startEmbeddedPostgres()
}, 120_000)
afterAll(async () => {
  await server?.stop()
})

describeSuspensionLedgerConformance({
  describe,
  it,
  name: 'PostgreSQL ledger (two pools on one table)',
  open: async () => {
    const tableName = freshTable()
    const pools: pg.Pool[] = [running().createPool({ max: 4 }), running().createPool({ max: 4 })]
    const ledger = createPostgresSuspensionLedger({ pool: pools[0], tableName })
    const other = createPostgresSuspensionLedger({ pool: pools[1], tableName })
    return {
      ledger,
      other,
      close: async () => {
        await ledger.close()
        await other.close()
        await Promise.all(pools.map((pool) => pool.end()))
      },
    }
  },
})

const claim = { key: 'run_1/suspension_1', runId: 'run_1', claimId: 'claim_1', outcomes: {}, claimedAtMs: 5 }

describe('PostgreSQL ledger: options, storage and failures', () => {
  it('refuses options that are not exactly one of pool and connectionString, and bad table names', () => {
    const pool = running().createPool({ max: 1 })
    const bad: unknown[] = [
      {},
      { pool, connectionString: running().connectionString },
      { pool: {} },
      { connectionString: '' },
      { pool, tableName: 'x;DROP TABLE y' },
      { pool, tableName: 'a.b.c' },
      { pool, extra: 1 },
      null,
    ]
    for (const options of bad) {
      expect(() => createPostgresSuspensionLedger(options as never)).toThrow(
        expect.objectContaining({ code: 'invalid-input' }),
      )
    }
  })

  it('owns a pool made from a connection string, and is refused once closed', async () => {
    const ledger = new PostgresSuspensionLedger({
      connectionString: running().connectionString,
      tableName: freshTable(),
    })
    await ledger.ensureSchema()
    expect(await ledger.claim(claim)).toEqual(claim)
    await ledger.close()
    await ledger.close()
    await expect(ledger.get(claim.key)).rejects.toSatisfy((error: unknown) =>
      InvalidInputError.isInstance(error),
    )
  })

  it('a damaged row is InvalidOutputError; a failing server is DurableStoreError', async () => {
    const pool = running().createPool({ max: 2 })
    const tableName = freshTable()
    const ledger = createPostgresSuspensionLedger({ pool, tableName })
    await ledger.ensureSchema()
    await pool.query(
      `INSERT INTO ${tableName} (suspension_key, run_id, claim_id, claimed_at_ms, claim) VALUES ('k/bad', 'k', 'c', 0, '{"key": "k/bad"}'::jsonb)`,
    )
    await expect(ledger.get('k/bad')).rejects.toSatisfy((error: unknown) =>
      InvalidOutputError.isInstance(error),
    )
    await expect(ledger.claim({ ...claim, key: 'k/bad' })).rejects.toSatisfy((error: unknown) =>
      InvalidOutputError.isInstance(error),
    )
    await pool.query(`DROP TABLE ${tableName}`)
    await expect(ledger.get(claim.key)).rejects.toSatisfy((error: unknown) =>
      DurableStoreError.isInstance(error),
    )
    await pool.end()
  })
})

describe('a second resume of one suspension is refused in another process (PostgreSQL)', () => {
  function runChild(input: unknown): Promise<{ reason?: string; thrown?: string; details?: unknown }> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--conditions=@agent-core/source', '--import', 'tsx', childScript],
        {
          cwd: repositoryRoot,
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      )
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk) => {
        stdout += chunk
      })
      child.stderr.on('data', (chunk) => {
        stderr += chunk
      })
      child.on('error', reject)
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(stderr))))
      child.stdin.end(JSON.stringify(input))
    })
  }

  async function suspendedState(): Promise<AgentRunState> {
    const refund = defineAgentTool(
      defineModelTool({
        id: 'refund',
        description: 'Refunds an order',
        inputSchema: {},
        execute: () => 'no',
      }),
      { approval: 'ask' },
    )
    const model = createScriptedModel([{ toolCalls: [{ name: 'refund', input: { orderId: 'A-17' } }] }])
    const result = await defineAgent({ model, tools: [refund] }).run({ prompt: 'Refund A-17.', defer: true })
    return JSON.parse(JSON.stringify(result.state)) as AgentRunState
  }

  it('one after the other, then three at once: every suspension runs its refund once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pg-ledger-'))
    const effects = join(dir, 'effects.jsonl')
    writeFileSync(effects, '')
    try {
      const base = {
        url: running().connectionString,
        table: freshTable(),
        effects,
        turns: [{ text: 'Refunded.' }],
        outcomes: { call_1_0: { type: 'approve', toolCallId: 'call_1_0', by: 'person' } },
      }
      const state = await suspendedState()
      expect(await runChild({ ...base, state })).toEqual({ reason: 'final' })
      const second = await runChild({ ...base, state })
      expect(second).toMatchObject({ thrown: 'suspension-consumed', details: { runId: state.runId } })

      const other = await suspendedState()
      const answers = await Promise.all([1, 2, 3].map(() => runChild({ ...base, state: other })))
      expect(answers.filter((answer) => answer.reason === 'final')).toHaveLength(1)
      expect(answers.filter((answer) => answer.thrown === 'suspension-consumed')).toHaveLength(2)

      const lines = readFileSync(effects, 'utf8').split('\n').filter(Boolean)
      expect(lines.map((line) => JSON.parse(line).invocationId)).toEqual([
        state.pending[0]?.invocationId,
        other.pending[0]?.invocationId,
      ])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
