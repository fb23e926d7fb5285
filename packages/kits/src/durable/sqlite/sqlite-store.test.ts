import { join } from 'node:path'
import { InvalidInputError, InvalidStateError } from '@agent-core/core'
import type { DurableLeaseWait } from '@agent-core/kits/durable'
import { describeDurableStoreConformance, sampleCheckpoint } from '@agent-core/kits/durable/testing'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { tempDir } from '../internal/testing/temp-dir.js'
import { DurableStoreError } from '../store-error.js'
import { HOST_ID } from './process-identity.js'
import { createSqliteDurableStore, type SqliteDurableStore } from './sqlite-store.js'

const capabilities = { fencing: true, reportsLeaseWaits: true, listing: true, honoursSignal: true }

describeDurableStoreConformance({
  describe,
  it,
  name: 'sqlite store (file path)',
  ...capabilities,
  open: async () => {
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
  },
})

describeDurableStoreConformance({
  describe,
  it,
  name: 'sqlite store (existing Database, custom prefix)',
  ...capabilities,
  open: async () => {
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
  },
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

  it('lets another store take over a lease whose holder crashed without releasing it, once it expired', async () => {
    const path = file()
    const crashed = createSqliteDurableStore(path, { leaseMs: 50 })
    const expiresAtMs = Date.now() + 50
    crashed.database
      .prepare('INSERT INTO agent_core_durable_leases (task_id, owner, expires_at_ms) VALUES (?, ?, ?)')
      .run('t', 'dead-owner', expiresAtMs)
    const survivor = createSqliteDurableStore(path, { leaseMs: 5_000 })
    const waits: DurableLeaseWait[] = []
    const lease = await survivor.exclusive('t', async (held) => held, { onWait: (wait) => waits.push(wait) })
    expect(lease.ownerId).toMatch(/^sqlite:/)
    expect(lease.takenOver).toEqual({
      reason: 'expired',
      previous: { ownerId: 'dead-owner', expiresAtMs },
    })
    expect(waits).toEqual([{ taskId: 't', holder: { ownerId: 'dead-owner', expiresAtMs } }])
    crashed.close()
    survivor.close()
  })

  it('takes over at once a lease whose holder is a process of this host that no longer exists', async () => {
    const path = file()
    const store = createSqliteDurableStore(path, { leaseMs: 60_000 })
    // A pid far above any pid_max names no process (pid_max is at most 2^22 on Linux).
    const gone = 2 ** 30
    const expiresAtMs = Date.now() + 60_000
    store.database
      .prepare(
        'INSERT INTO agent_core_durable_leases (task_id, owner, expires_at_ms, host, pid) VALUES (?, ?, ?, ?, ?)',
      )
      .run('t', 'sqlite:crashed', expiresAtMs, HOST_ID, gone)
    const lease = await store.exclusive('t', async (held) => held)
    expect(lease.takenOver).toEqual({
      reason: 'holder-gone',
      previous: { ownerId: 'sqlite:crashed', expiresAtMs, host: HOST_ID, pid: gone },
    })
    store.close()
  })

  it('waits for a live holder of this host and for any holder of another host', async () => {
    const path = file()
    const store = createSqliteDurableStore(path, { leaseMs: 60_000 })
    const insert = store.database.prepare(
      'INSERT INTO agent_core_durable_leases (task_id, owner, expires_at_ms, host, pid) VALUES (?, ?, ?, ?, ?)',
    )
    const expiresAtMs = Date.now() + 60_000
    insert.run('alive', 'sqlite:parent', expiresAtMs, HOST_ID, process.ppid)
    insert.run('elsewhere', 'sqlite:remote', expiresAtMs, 'another-host pid:[1]', 2 ** 30)
    for (const [taskId, ownerId] of [
      ['alive', 'sqlite:parent'],
      ['elsewhere', 'sqlite:remote'],
    ] as const) {
      const controller = new AbortController()
      const waits: DurableLeaseWait[] = []
      const waiting = store.exclusive(taskId, async () => 'ran', {
        signal: controller.signal,
        onWait: (wait) => {
          waits.push(wait)
          controller.abort()
        },
      })
      await expect(waiting).rejects.toThrow(/cancelled/)
      expect(waits.map((wait) => wait.holder.ownerId)).toEqual([ownerId])
    }
    store.close()
  })

  it('adds the listing and holder columns to tables made by an earlier version, keeping their rows', async () => {
    const path = file()
    const old = new Database(path)
    old.exec(
      `CREATE TABLE agent_core_durable_checkpoints (task_id TEXT PRIMARY KEY, version INTEGER NOT NULL, body TEXT NOT NULL, updated_at_ms INTEGER NOT NULL);
       CREATE TABLE agent_core_durable_leases (task_id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at_ms INTEGER NOT NULL);`,
    )
    old
      .prepare('INSERT INTO agent_core_durable_checkpoints VALUES (?, 3, ?, 1000)')
      .run('old', JSON.stringify(sampleCheckpoint('kept', { definitionId: 'legacy' })))
    old.close()
    const store = createSqliteDurableStore(path)
    expect(await store.fencing.load('old')).toEqual({
      checkpoint: sampleCheckpoint('kept', { definitionId: 'legacy' }),
      version: 3,
    })
    expect(await store.list({ status: 'running' })).toEqual([
      { taskId: 'old', status: 'running', definitionId: 'legacy', updatedAtMs: 1000 },
    ])
    expect(await store.exclusive('old', async (lease) => lease.ownerId)).toMatch(/^sqlite:/)
    store.close()
  })

  it('refuses a stored version of 0 or below as a corrupt record', async () => {
    const store = createSqliteDurableStore(file())
    for (const version of [0, -4]) {
      store.database
        .prepare(
          'INSERT OR REPLACE INTO agent_core_durable_checkpoints (task_id, version, body, updated_at_ms) VALUES (?, ?, ?, 0)',
        )
        .run('t', version, JSON.stringify(sampleCheckpoint(1)))
      await expect(store.fencing.load('t')).rejects.toSatisfy(
        (error) => InvalidStateError.isInstance(error) && error.details.reason === 'corrupt',
      )
      await expect(store.load('t')).rejects.toSatisfy((error) => InvalidStateError.isInstance(error))
    }
    store.close()
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

  describe('lease rows of finished holds', () => {
    const rows = (store: SqliteDurableStore) =>
      store.database
        .prepare('SELECT task_id, owner FROM agent_core_durable_leases ORDER BY task_id')
        .all() as { task_id: string; owner: string }[]
    const changes = (store: SqliteDurableStore) =>
      (store.database.prepare('SELECT total_changes() AS n').get() as { n: number }).n
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

    it('hands the row to the next hold with one write, and deletes what is left at the next turn', async () => {
      const store = createSqliteDurableStore(file())
      const before = changes(store)
      const first = await store.exclusive('a', async (lease) => lease.ownerId)
      expect(rows(store)).toEqual([{ task_id: 'a', owner: first }])
      const second = await store.exclusive('b', async (lease) => {
        // the row moved to "b": "a" is free for anyone
        expect(rows(store)).toEqual([{ task_id: 'b', owner: lease.ownerId }])
        return lease.ownerId
      })
      const third = await store.exclusive('b', async (lease) => lease.ownerId)
      expect(new Set([first, second, third]).size).toBe(3)
      // one insert, then one update per later hold; no delete yet
      expect(changes(store) - before).toBe(3)
      await nextTurn()
      expect(rows(store)).toEqual([])
      expect(changes(store) - before).toBe(4)
      store.close()
    })

    it('a peer waiting for the task of an idle row gets it once the row is deleted', async () => {
      const path = file()
      const store = createSqliteDurableStore(path)
      const peer = createSqliteDurableStore(path, { pollMs: 1 })
      await store.exclusive('a', async () => {})
      expect(rows(store).map((row) => row.task_id)).toEqual(['a'])
      const waits: DurableLeaseWait[] = []
      const ran = await peer.exclusive('a', async (lease) => lease.takenOver ?? 'fresh', {
        onWait: (wait) => waits.push(wait),
      })
      expect(ran).toBe('fresh')
      expect(waits.length).toBeLessThanOrEqual(1)
      store.close()
      peer.close()
    })

    it("does not reuse a row another owner took over, and leaves that owner's row alone", async () => {
      const store = createSqliteDurableStore(file())
      await store.exclusive('a', async () => {})
      // another worker took the row over after it lapsed
      store.database
        .prepare("UPDATE agent_core_durable_leases SET owner = 'sqlite:other' WHERE task_id = 'a'")
        .run()
      const owner = await store.exclusive('b', async (lease) => {
        expect(rows(store)).toEqual([
          { task_id: 'a', owner: 'sqlite:other' },
          { task_id: 'b', owner: lease.ownerId },
        ])
        return lease.ownerId
      })
      expect(owner).toMatch(/^sqlite:/)
      await nextTurn()
      expect(rows(store)).toEqual([{ task_id: 'a', owner: 'sqlite:other' }])
      store.close()
    })

    it('does not move an idle row onto a task another holder has', async () => {
      const path = file()
      const store = createSqliteDurableStore(path)
      const peer = createSqliteDurableStore(path, { pollMs: 1 })
      await store.exclusive('a', async () => {})
      let release!: () => void
      const holding = peer.exclusive('b', () => new Promise<void>((resolve) => (release = resolve)))
      await vi.waitFor(() => expect(rows(store).some((row) => row.task_id === 'b')).toBe(true))
      let ran = false
      const waiting = store.exclusive('b', async () => {
        ran = true
      })
      await nextTurn()
      expect(ran).toBe(false)
      release()
      await holding
      await waiting
      expect(ran).toBe(true)
      await nextTurn()
      expect(rows(store)).toEqual([])
      store.close()
      peer.close()
    })

    it('close deletes the idle rows at once', async () => {
      const path = file()
      const store = createSqliteDurableStore(path)
      await store.exclusive('a', async () => {})
      store.close()
      const reader = new Database(path)
      expect(reader.prepare('SELECT count(*) AS n FROM agent_core_durable_leases').get()).toEqual({ n: 0 })
      reader.close()
    })
  })

  it('reports a closed database as DurableStoreError', async () => {
    const store = createSqliteDurableStore(file())
    store.close()
    await expect(store.load('t')).rejects.toSatisfy((error) => DurableStoreError.isInstance(error))
    await expect(store.save('t', sampleCheckpoint(1))).rejects.toSatisfy((error) =>
      DurableStoreError.isInstance(error),
    )
    await expect(store.list()).rejects.toSatisfy((error) => DurableStoreError.isInstance(error))
    await expect(
      store.fencing.save('t', sampleCheckpoint(1), { expectedVersion: undefined }),
    ).rejects.toSatisfy((error) => DurableStoreError.isInstance(error))
  })
})
