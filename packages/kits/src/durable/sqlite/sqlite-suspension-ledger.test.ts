import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { InvalidInputError, InvalidOutputError } from '@agent-core/core'
import { DurableStoreError } from '@agent-core/kits/durable'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { describeSuspensionLedgerConformance } from '../../testing/suspension-ledger-conformance.js'
import { createSqliteDurableStore, createSqliteSuspensionLedger, SqliteSuspensionLedger } from './index.js'

const dir = mkdtempSync(join(tmpdir(), 'sqlite-ledger-'))
let files = 0
const freshFile = () => join(dir, `claims-${++files}.db`)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describeSuspensionLedgerConformance({
  describe,
  it,
  name: 'SQLite ledger (two connections on one file)',
  open: async () => {
    const file = freshFile()
    const ledger = createSqliteSuspensionLedger(file)
    const other = createSqliteSuspensionLedger(file)
    const close = () => {
      ledger.close()
      other.close()
    }
    return { ledger, other, close }
  },
})

describeSuspensionLedgerConformance({
  describe,
  it,
  name: "SQLite ledger in a durable store's database",
  open: async () => {
    const store = createSqliteDurableStore(':memory:')
    const ledger = createSqliteSuspensionLedger(store.database, { tableName: 'claims' })
    return { ledger, close: () => store.close() }
  },
})

const claim = {
  key: 'run_1/suspension_1',
  runId: 'run_1',
  claimId: 'claim_1',
  outcomes: {},
  claimedAtMs: 5,
}

describe('SQLite ledger: storage and bad input', () => {
  it('a claim survives the process that made it (a new connection reads it)', async () => {
    const file = freshFile()
    const first = new SqliteSuspensionLedger(file)
    await first.claim(claim)
    first.close()
    const second = new SqliteSuspensionLedger(file)
    expect(await second.get(claim.key)).toEqual(claim)
    expect(await second.claim({ ...claim, claimId: 'claim_2' })).toEqual(claim)
    second.close()
  })

  it('leaves a database it was given open, and closes one it opened', () => {
    const database = new Database(':memory:')
    createSqliteSuspensionLedger(database).close()
    expect(database.open).toBe(true)
    database.close()
    const owned = createSqliteSuspensionLedger(':memory:')
    owned.close()
    expect(owned.database.open).toBe(false)
    owned.close() // twice is fine
  })

  it('refuses a bad source or options', () => {
    for (const source of ['', 5, null, {}, { prepare: () => undefined }]) {
      expect(() => createSqliteSuspensionLedger(source as never)).toThrow(
        expect.objectContaining({
          code: 'invalid-input',
          details: expect.objectContaining({ field: 'source' }),
        }),
      )
    }
    for (const tableName of ['', '1table', 'a;DROP TABLE x', 'a.b', 7]) {
      expect(() => createSqliteSuspensionLedger(':memory:', { tableName } as never)).toThrow(
        expect.objectContaining({ details: expect.objectContaining({ field: 'options.tableName' }) }),
      )
    }
    expect(() => createSqliteSuspensionLedger(':memory:', null as never)).toThrow(
      expect.objectContaining({ code: 'invalid-input' }),
    )
    expect(() => createSqliteSuspensionLedger(':memory:', { busyTimeoutMs: -1 })).toThrow(
      expect.objectContaining({ code: 'invalid-input' }),
    )
    expect(() => createSqliteSuspensionLedger(join(dir, 'missing', 'dir', 'x.db'))).toThrow(
      expect.objectContaining({ code: 'durable-store-failed' }),
    )
  })

  it('a damaged or foreign row is the storage’s fault: InvalidOutputError', async () => {
    const ledger = createSqliteSuspensionLedger(':memory:')
    const insert = ledger.database.prepare(
      'INSERT INTO agent_core_suspension_claims (suspension_key, run_id, claim_id, task_id, claimed_at_ms, claim) VALUES (?, ?, ?, NULL, 0, ?)',
    )
    insert.run('k/not-json', 'k', 'c', '{not json')
    insert.run('k/not-a-claim', 'k', 'c', JSON.stringify({ key: 'k/not-a-claim' }))
    insert.run('k/moved', 'k', 'c', JSON.stringify({ ...claim, key: 'k/elsewhere' }))
    for (const key of ['k/not-json', 'k/not-a-claim', 'k/moved']) {
      await expect(ledger.get(key)).rejects.toSatisfy((error: unknown) =>
        InvalidOutputError.isInstance(error),
      )
      await expect(ledger.claim({ ...claim, key })).rejects.toSatisfy((error: unknown) =>
        InvalidOutputError.isInstance(error),
      )
    }
    ledger.close()
  })

  it('a closed database is a DurableStoreError, never a bare driver error', async () => {
    const ledger = createSqliteSuspensionLedger(':memory:')
    ledger.close()
    await expect(ledger.claim(claim)).rejects.toSatisfy((error: unknown) =>
      DurableStoreError.isInstance(error),
    )
    await expect(ledger.get(claim.key)).rejects.toSatisfy((error: unknown) =>
      DurableStoreError.isInstance(error),
    )
    await expect(ledger.get('')).rejects.toSatisfy((error: unknown) => InvalidInputError.isInstance(error))
  })
})
