import { join } from 'node:path'
import { InvalidInputError } from '@agent-core/core'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DurableStoreError } from '../store-error.js'
import { describeDurableStoreConformance, sampleCheckpoint } from '../testing/conformance.js'
import { tempDir } from '../internal/testing/temp-dir.js'
import { createSqliteDurableStore, type SqliteDurableStore } from './sqlite-store.js'

describeDurableStoreConformance('sqlite store (file path)', async () => {
  const dir = tempDir()
  const file = join(dir.path, 'tasks.db')
  const store = createSqliteDurableStore(file, { leaseMs: 5_000 })
  const peers: SqliteDurableStore[] = []
  return {
    store,
    openPeer: async () => {
      const peer = createSqliteDurableStore(file, { leaseMs: 5_000 })
      peers.push(peer)
      return peer
    },
    writeRaw: async (taskId, text) => {
      store.database
        .prepare(
          'INSERT INTO agent_core_durable_checkpoints (task_id, version, body, updated_at_ms) VALUES (?, 1, ?, 0) ON CONFLICT (task_id) DO UPDATE SET body = excluded.body, version = version + 1',
        )
        .run(taskId, text)
    },
    close: async () => {
      for (const peer of peers) peer.close()
      store.close()
      dir.remove()
    },
  }
})

describeDurableStoreConformance('sqlite store (existing Database, custom prefix)', async () => {
  const database = new Database(':memory:')
  const store = createSqliteDurableStore(database, { tablePrefix: 'app_tasks' })
  return {
    store,
    writeRaw: async (taskId, text) => {
      database
        .prepare(
          'INSERT OR REPLACE INTO app_tasks_checkpoints (task_id, version, body, updated_at_ms) VALUES (?, 7, ?, 0)',
        )
        .run(taskId, text)
    },
    close: async () => {
      store.close()
      expect(database.open).toBe(true)
      database.close()
    },
  }
})

describe('sqlite store specifics', () => {
  const dirs: { remove(): void }[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) dir.remove()
  })
  function file(): string {
    const dir = tempDir()
    dirs.push(dir)
    return join(dir.path, 'tasks.db')
  }

  it('enables WAL on a file it opens', () => {
    const store = createSqliteDurableStore(file())
    expect(store.database.pragma('journal_mode', { simple: true })).toBe('wal')
    store.close()
  })

  it('refuses bad sources and options', () => {
    for (const source of ['', 42, {}, null, undefined]) {
      expect(() => createSqliteDurableStore(source as string)).toThrow(InvalidInputError)
    }
    const path = file()
    for (const options of [
      { leaseMs: 0 },
      { leaseMs: Number.NaN },
      { pollMs: -1 },
      { tablePrefix: 'x; DROP TABLE y' },
      { synchronous: 'off' },
    ]) {
      expect(() => createSqliteDurableStore(path, options as never)).toThrow(InvalidInputError)
    }
  })

  it('lets another store take over a lease whose holder crashed without releasing it', async () => {
    const path = file()
    const crashed = createSqliteDurableStore(path, { leaseMs: 50 })
    crashed.database
      .prepare('INSERT INTO agent_core_durable_leases (task_id, owner, expires_at_ms) VALUES (?, ?, ?)')
      .run('t', 'dead-owner', Date.now() + 50)
    const survivor = createSqliteDurableStore(path, { leaseMs: 5_000 })
    expect(await survivor.exclusive('t', async (lease) => lease.ownerId)).toMatch(/^sqlite:/)
    crashed.close()
    survivor.close()
  })

  it('keeps renewing the lease of a live holder, so a waiter cannot take it early', async () => {
    // Fake timers and a fake Date: lease periods pass only when the test advances the clock, so a busy
    // machine that pauses this process cannot let a lease lapse behind the holder's back.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
    const path = file()
    const holder = createSqliteDurableStore(path, { leaseMs: 200, renewIntervalMs: 20 })
    const waiter = createSqliteDurableStore(path, { leaseMs: 200 })
    try {
      let holderDone = false
      let releaseHolder!: () => void
      const paused = new Promise<void>((resolve) => {
        releaseHolder = resolve
      })
      let entered!: () => void
      const inside = new Promise<void>((resolve) => {
        entered = resolve
      })
      const holding = holder.exclusive('t', async () => {
        entered()
        await paused
        holderDone = true
      })
      await inside
      let waiterEntered = false
      const waiting = waiter.exclusive('t', async () => {
        waiterEntered = true
        return holderDone
      })
      // Ten lease periods pass while the holder is alive and renewing; the waiter keeps polling.
      await vi.advanceTimersByTimeAsync(2_000)
      expect(waiterEntered).toBe(false)
      releaseHolder()
      await holding
      await vi.advanceTimersByTimeAsync(1_000)
      expect(await waiting).toBe(true)
    } finally {
      vi.useRealTimers()
      holder.close()
      waiter.close()
    }
  })

  it('reports a closed database as DurableStoreError', async () => {
    const store = createSqliteDurableStore(file())
    store.close()
    await expect(store.load('t')).rejects.toSatisfy((error) => DurableStoreError.isInstance(error))
    await expect(store.save('t', sampleCheckpoint(1), { expectedVersion: undefined })).rejects.toSatisfy(
      (error) => DurableStoreError.isInstance(error),
    )
  })
})
