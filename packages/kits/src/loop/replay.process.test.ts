/**
 * A decision takes effect once, across processes: a suspended state resumed by two child processes (one
 * after the other, or at once) runs its approved tool once, with the ledger on a real SQLite file (the
 * PostgreSQL twin is `durable/postgres/postgres-suspension-ledger.test.ts`); and a durable agent run resumed with a decision survives a SIGKILL
 * inside the approved tool.
 */
import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { createSqliteDurableStore, createSqliteSuspensionLedger } from '@agent-core/kits/durable/sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { killChildren, startChild } from '../testing/child-process.js'
import {
  type AgentCallOutcome,
  type AgentRunState,
  createAgentRunState,
  createMemorySuspensionLedger,
  inspectAgentRunTask,
  runAgentRunTask,
  type ScriptedTurn,
} from './index.js'
import { type LedgerEffect, ledgerAgent, ledgerTask } from './internal/testing/ledger-agent.js'

const childScript = fileURLToPath(new URL('./internal/testing/ledger-child.ts', import.meta.url))

interface ChildAnswer {
  readonly reason?: string
  readonly taskId?: string
  readonly state?: AgentRunState
  readonly thrown?: string
  readonly details?: Record<string, unknown>
  readonly message?: string
}

/** Starts the child on `input`; a child killed by a signal answers `{ thrown: 'signal ...' }`. */
function startLedgerChild(input: unknown): { child: ChildProcess; answer: Promise<ChildAnswer> } {
  const { child, exit } = startChild(childScript, { input })
  const answer = exit.then(({ code, signal, stdout, stderr }) => {
    if (signal !== null) return { thrown: `signal ${signal}` }
    if (code !== 0) throw new Error(`child exited with ${code}: ${stderr}`)
    return JSON.parse(stdout) as ChildAnswer
  })
  return { child, answer }
}

const runChild = (input: unknown) => startLedgerChild(input).answer

let dir: string
let effects: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loop-replay-'))
  effects = join(dir, 'effects.jsonl')
  writeFileSync(effects, '')
})
afterEach(async () => {
  await killChildren()
  rmSync(dir, { recursive: true, force: true })
})

function readEffects(): LedgerEffect[] {
  return readFileSync(effects, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LedgerEffect)
}

const FIRST_TURN: ScriptedTurn = {
  toolCalls: [{ name: 'refund', input: { orderId: 'A-17', amount: 250 } }],
}
const APPROVE: Record<string, AgentCallOutcome> = {
  call_1_0: { type: 'approve', toolCallId: 'call_1_0', by: 'person' },
}

/** Suspends a run in this process; only its JSON goes to the children. */
async function suspended(): Promise<AgentRunState> {
  const agent = ledgerAgent({ effects, turns: [FIRST_TURN], ledger: createMemorySuspensionLedger() })
  const result = await agent.run({ prompt: 'Refund 250 on A-17.', defer: true })
  expect(result.reason).toBe('suspended')
  return JSON.parse(JSON.stringify(result.state)) as AgentRunState
}

function describeLedger(name: string, ledger: () => Record<string, unknown>) {
  describe(`a second resume of one suspension is refused in another process (${name})`, () => {
    it('one after the other: the second child is refused, and the refund ran once', async () => {
      const state = await suspended()
      const input = { mode: 'resume', effects, turns: [{ text: 'Refunded.' }], state, outcomes: APPROVE }
      const first = await runChild({ ...input, ledger: ledger() })
      expect(first.reason).toBe('final')
      const second = await runChild({ ...input, ledger: ledger() })
      expect(second.thrown).toBe('suspension-consumed')
      expect(second.details).toMatchObject({ field: 'resume', runId: state.runId, decided: ['call_1_0'] })
      expect(second.message).toMatch(/already resumed/)
      const refunds = readEffects()
      expect(refunds).toHaveLength(1)
      expect(refunds[0]?.invocationId).toBe(state.pending[0]?.invocationId)
    }, 60_000)

    it('at once (a double-clicked Approve reaching two servers): exactly one runs', async () => {
      const state = await suspended()
      const input = { mode: 'resume', effects, turns: [{ text: 'Refunded.' }], state, outcomes: APPROVE }
      const answers = await Promise.all([1, 2, 3].map(() => runChild({ ...input, ledger: ledger() })))
      expect(answers.filter((answer) => answer.reason === 'final')).toHaveLength(1)
      expect(answers.filter((answer) => answer.thrown === 'suspension-consumed')).toHaveLength(2)
      expect(readEffects()).toHaveLength(1)
    }, 60_000)
  })
}

describeLedger('SQLite file', () => ({ kind: 'sqlite', file: join(dir, 'claims.db') }))

describe('a suspended durable agent run resumed with a decision after a SIGKILL', () => {
  it('the approved refund is re-entered with its invocation id, a repeat of the decision is refused, the run ends once', async () => {
    const file = join(dir, 'runs.db')
    // Process 0 (this one): the run starts and suspends on the refund.
    {
      const store = createSqliteDurableStore(file)
      const agent = ledgerAgent({
        effects,
        turns: [FIRST_TURN],
        ledger: createSqliteSuspensionLedger(store.database),
      })
      const started = await runAgentRunTask(ledgerTask(agent, store), {
        taskId: 'ticket-7',
        input: createAgentRunState({ prompt: 'Refund 250 on A-17.', runId: 'run-ticket-7' }),
      })
      expect(started.state.status).toBe('suspended')
      store.close()
    }
    // Process 1: a person approved; the refund starts, has its effect, and the process is killed inside it.
    const marker = join(dir, 'in-the-tool')
    const killed = startLedgerChild({
      mode: 'durable-resume',
      store: file,
      effects,
      turns: [{ text: 'never read' }],
      taskId: 'ticket-7',
      outcomes: APPROVE,
      hangAfterEffect: marker,
    })
    for (let waited = 0; !existsSync(marker); waited++) {
      if (waited > 1200) throw new Error('the child never reached the tool')
      await sleep(50)
    }
    killed.child.kill('SIGKILL')
    expect(await killed.answer).toEqual({ thrown: 'signal SIGKILL' })
    expect(readEffects()).toHaveLength(1)

    // Process 2: the webhook is retried with the same decision. It is refused; nothing runs.
    const retried = await runChild({
      mode: 'durable-resume',
      store: file,
      effects,
      turns: [],
      taskId: 'ticket-7',
      outcomes: APPROVE,
    })
    expect(retried.thrown).toBe('invalid-state')
    expect(retried.message).toMatch(/runAgentRunTask/)
    expect(readEffects()).toHaveLength(1)

    // Process 3: the worker restarts and continues the run where it stands.
    const continued = await runChild({
      mode: 'durable-run',
      store: file,
      effects,
      turns: [{ text: 'Refunded 250 on A-17.' }],
      taskId: 'ticket-7',
    })
    expect(continued).toMatchObject({
      reason: 'done',
      taskId: 'ticket-7/resume-1',
      state: { status: 'done', reason: 'final', answer: 'Refunded 250 on A-17.' },
    })
    // The refund ran again only as the re-entry of the same call: one invocation id, its idempotency key.
    const refunds = readEffects()
    expect(refunds).toHaveLength(2)
    expect(new Set(refunds.map((refund) => refund.invocationId)).size).toBe(1)
    expect(refunds[0]?.pid).not.toBe(refunds[1]?.pid)

    // And once more, in this process: the run is done, nothing runs.
    const store = createSqliteDurableStore(file)
    try {
      const agent = ledgerAgent({ effects, turns: [], ledger: createSqliteSuspensionLedger(store.database) })
      const task = ledgerTask(agent, store)
      expect(await inspectAgentRunTask(task, { taskId: 'ticket-7' })).toMatchObject({
        taskId: 'ticket-7/resume-1',
        resumes: 1,
        checkpoint: { status: 'completed' },
      })
      expect((await runAgentRunTask(task, { taskId: 'ticket-7' })).state.status).toBe('done')
    } finally {
      store.close()
    }
    expect(readEffects()).toHaveLength(2)
  }, 120_000)
})
