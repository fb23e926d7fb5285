import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { describeSessionStoreConformance } from '../testing/index.js'
import { createSqliteSessionStore, SqliteSessionStore } from './index.js'

function openFile(path: string) {
  const database = new Database(path)
  database.pragma('journal_mode = WAL')
  database.pragma('busy_timeout = 5000')
  return database
}

describeSessionStoreConformance({
  describe,
  it,
  name: 'SQLite store (file, two connections)',
  open: async () => {
    const folder = mkdtempSync(join(tmpdir(), 'memory-sqlite-'))
    const file = join(folder, 'sessions.db')
    const databases = [openFile(file)]
    return {
      store: createSqliteSessionStore(databases[0]!),
      openPeer: async () => {
        const database = openFile(file)
        databases.push(database)
        return createSqliteSessionStore(database)
      },
      close: async () => {
        for (const database of databases) database.close()
        rmSync(folder, { recursive: true, force: true })
      },
    }
  },
})

describe('SqliteSessionStore', () => {
  it('refuses what is not a database and a bad table prefix', () => {
    expect(() => new SqliteSessionStore({} as never)).toThrow(/better-sqlite3 Database/)
    const database = new Database(':memory:')
    expect(() => createSqliteSessionStore(database, { tablePrefix: 'x; DROP' })).toThrow(/SQL identifier/)
    expect(() => createSqliteSessionStore(database, { bogus: 1 } as never)).toThrow(/not a known field/)
    database.close()
  })

  it('keeps separate tables per prefix in one database', async () => {
    const database = new Database(':memory:')
    const a = createSqliteSessionStore(database, { tablePrefix: 'a' })
    const b = createSqliteSessionStore(database, { tablePrefix: 'b' })
    await a.append('s', { messages: [{ role: 'user', content: 'only a' }] })
    expect((await b.read('s')).revision).toBe(0)
    database.close()
  })

  it('reports a closed database as a SessionStoreError', async () => {
    const database = new Database(':memory:')
    const store = createSqliteSessionStore(database)
    database.close()
    await expect(store.read('s')).rejects.toMatchObject({ code: 'session-store-failed' })
  })
})
