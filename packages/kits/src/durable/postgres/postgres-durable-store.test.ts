import { AbortedError, ConflictError, InvalidInputError, InvalidStateError } from '@agent-core/core'
import { describeDurableStoreConformance, sampleCheckpoint } from '@agent-core/kits/durable/testing'
import fc from 'fast-check'
import type pg from 'pg'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { CheckpointV2 } from '../store.js'
import { DurableStoreError } from '../store-error.js'
import { createPostgresDurableStore, PostgresDurableStore, postgresDurableTableSql } from './index.js'
import { type EmbeddedPostgresServer, startEmbeddedPostgres } from './testing/embedded.js'

let server: EmbeddedPostgresServer | undefined
let admin: pg.Pool
let tables = 0

/** A table name no other test uses, so every test starts over empty storage. */
function freshTable(prefix = 't'): string {
  tables += 1
  return `${prefix}_${tables}`
}

function running(): EmbeddedPostgresServer {
  if (server === undefined) throw new Error('the embedded PostgreSQL server did not start')
  return server
}

/** Advisory locks currently granted in the database (any session). */
/**
 * A lock held by a connection the store closed (rather than unlocked) is released when the server notices
 * the session ended, which happens shortly after, not at once: wait for it (bounded), do not sample once.
 */
async function noAdvisoryLocksLeft(): Promise<void> {
  await expect.poll(() => advisoryLocks(), { timeout: 20_000, interval: 50 }).toBe(0)
}

async function advisoryLocks(): Promise<number> {
  const result = await admin.query<{ count: string }>(
    "SELECT count(*) AS count FROM pg_locks WHERE locktype = 'advisory' AND granted",
  )
  return Number(result.rows[0]?.count)
}

beforeAll(async () => {
  server = await startEmbeddedPostgres()
  admin = server.createPool({ max: 2 })
})

afterAll(async () => {
  await server?.stop()
})

describeDurableStoreConformance({
  describe,
  it,
  name: 'PostgreSQL store',
  fencing: true,
  listing: true,
  honoursSignal: true,
  open: async () => {
    const tableName = freshTable('conformance')
    const pools: pg.Pool[] = [running().createPool({ max: 6 })]
    const store = createPostgresDurableStore({ pool: pools[0] as pg.Pool, tableName })
    await store.ensureSchema()
    return {
      store,
      async openPeer() {
        const pool = running().createPool({ max: 6 })
        pools.push(pool)
        return createPostgresDurableStore({ pool, tableName })
      },
      async writeRaw(taskId, text) {
        await admin.query(
          `INSERT INTO "${tableName}" (task_id, version, checkpoint) VALUES ($1, 1, $2)
           ON CONFLICT (task_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, version = "${tableName}".version + 1`,
          [taskId, text],
        )
      },
      async close() {
        await Promise.all(pools.map((pool) => pool.end()))
      },
    }
  },
})

describe('PostgreSQL store: options and input', () => {
  it('refuses options that are not exactly one of pool and connectionString', () => {
    const pool = running().createPool({ max: 1 })
    const bad: unknown[] = [
      undefined,
      null,
      42,
      {},
      { pool, connectionString: running().connectionString },
      { pool: {} },
      { pool: 'postgres://x' },
      { connectionString: '' },
      { connectionString: 7 },
    ]
    for (const options of bad) {
      expect(() => new PostgresDurableStore(options as never)).toThrow(InvalidInputError)
    }
  })

  it('refuses table names that could carry SQL, and quotes valid ones', () => {
    const pool = running().createPool({ max: 1 })
    for (const tableName of [
      '',
      'a;drop table x',
      'x"y',
      '1abc',
      'a.b.c',
      '.a',
      'a.',
      'naïve',
      'a'.repeat(64),
      42,
      null,
    ] as unknown[]) {
      expect(() => createPostgresDurableStore({ pool, tableName: tableName as string })).toThrow(
        InvalidInputError,
      )
      expect(() => postgresDurableTableSql(tableName as string)).toThrow(InvalidInputError)
    }
    expect(createPostgresDurableStore({ pool, tableName: 'app.Durable_1' }).tableName).toBe('app.Durable_1')
    expect(postgresDurableTableSql('app.Durable_1')).toContain(
      'CREATE TABLE IF NOT EXISTS "app"."Durable_1" (',
    )
    expect(postgresDurableTableSql()).toContain('"agent_core_durable_checkpoints"')
  })

  it('refuses a lockWaitSliceMs out of range, NaN or fractional, and a non-boolean createTable', () => {
    const pool = running().createPool({ max: 1 })
    for (const lockWaitSliceMs of [
      0,
      9,
      60_001,
      -1,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      '100',
      2 ** 60,
    ]) {
      expect(() => createPostgresDurableStore({ pool, lockWaitSliceMs: lockWaitSliceMs as number })).toThrow(
        InvalidInputError,
      )
    }
    expect(() => createPostgresDurableStore({ pool, createTable: 'yes' as never })).toThrow(InvalidInputError)
  })

  it('refuses bad exclusive arguments before touching the database', async () => {
    const store = createPostgresDurableStore({
      pool: running().createPool({ max: 1 }),
      tableName: freshTable(),
    })
    await expect(store.exclusive('t', 'not a function' as never)).rejects.toBeInstanceOf(InvalidInputError)
    await expect(store.exclusive('t', async () => 1, null as never)).rejects.toBeInstanceOf(InvalidInputError)
    await expect(store.exclusive('t', async () => 1, { signal: {} as AbortSignal })).rejects.toBeInstanceOf(
      InvalidInputError,
    )
    await expect(store.exclusive(Number.NaN as never, async () => 1)).rejects.toBeInstanceOf(
      InvalidInputError,
    )
  })

  it('refuses bad save options and versions: NaN, fractions, unsafe integers, strings', async () => {
    const store = createPostgresDurableStore({
      pool: running().createPool({ max: 1 }),
      tableName: freshTable(),
    })
    for (const options of [
      undefined,
      null,
      {},
      { expectedVersion: Number.NaN },
      { expectedVersion: 1.5 },
      { expectedVersion: 2 ** 60 },
      { expectedVersion: '1' },
    ]) {
      await expect(store.fencing.save('t', sampleCheckpoint(1), options as never)).rejects.toBeInstanceOf(
        InvalidInputError,
      )
    }
    expect(await store.fencing.load('t')).toBeUndefined()
  })

  it('refuses task ids PostgreSQL text cannot hold (NUL) without writing', async () => {
    const store = createPostgresDurableStore({
      pool: running().createPool({ max: 1 }),
      tableName: freshTable(),
    })
    await expect(
      store.fencing.save('a\u0000b', sampleCheckpoint(1), { expectedVersion: undefined }),
    ).rejects.toBeInstanceOf(InvalidInputError)
    await expect(store.fencing.load('a\u0000b')).rejects.toBeInstanceOf(InvalidInputError)
    await expect(store.exclusive('a\u0000b', async () => 1)).rejects.toBeInstanceOf(InvalidInputError)
  })

  it('keeps NUL characters and lone surrogates inside checkpoint strings exactly', async () => {
    const store = createPostgresDurableStore({
      pool: running().createPool({ max: 1 }),
      tableName: freshTable(),
    })
    const checkpoint = sampleCheckpoint({ text: 'a\u0000b\ud800c', quote: '"\'\\' })
    const { version } = await store.fencing.save('odd', checkpoint, { expectedVersion: undefined })
    expect(await store.fencing.load('odd')).toEqual({ checkpoint, version })
  })

  it('stores a task id that looks like SQL as plain data', async () => {
    const store = createPostgresDurableStore({
      pool: running().createPool({ max: 2 }),
      tableName: freshTable(),
    })
    const taskId = "x'); DROP TABLE pg_class; --"
    const saved = await store.exclusive(taskId, () =>
      store.fencing.save(taskId, sampleCheckpoint(1), { expectedVersion: undefined }),
    )
    expect((await store.fencing.load(taskId))?.version).toBe(saved.version)
  })
})

describe('PostgreSQL store: schema', () => {
  it('creates its table once even when many stores race to create it', async () => {
    const tableName = `${freshTable('race')}`
    const stores = Array.from({ length: 6 }, () =>
      createPostgresDurableStore({ pool: running().createPool({ max: 1 }), tableName }),
    )
    await Promise.all(stores.map((store) => store.ensureSchema()))
    const result = await admin.query<{ count: string }>(
      'SELECT count(*) AS count FROM pg_class WHERE relname = $1',
      [tableName],
    )
    expect(Number(result.rows[0]?.count)).toBe(1)
  })

  it('creates a schema-qualified table, and uses a migrated table with createTable: false', async () => {
    await admin.query('CREATE SCHEMA IF NOT EXISTS app')
    const tableName = `app.${freshTable('migrated')}`
    await admin.query(postgresDurableTableSql(tableName))
    const store = createPostgresDurableStore({
      pool: running().createPool({ max: 1 }),
      tableName,
      createTable: false,
    })
    const { version } = await store.fencing.save('m', sampleCheckpoint('m'), { expectedVersion: undefined })
    expect(await store.fencing.load('m')).toEqual({ checkpoint: sampleCheckpoint('m'), version })
  })

  it('with createTable: false, reports a missing table as a non-retryable DurableStoreError', async () => {
    const store = createPostgresDurableStore({
      pool: running().createPool({ max: 1 }),
      tableName: freshTable('missing'),
      createTable: false,
    })
    const error = await store.fencing.load('x').catch((caught: unknown) => caught)
    expect(DurableStoreError.isInstance(error)).toBe(true)
    expect((error as DurableStoreError).details).toMatchObject({
      operation: 'load',
      sqlState: '42P01',
      retryable: false,
    })
  })

  it('refuses a table of the same name that has other columns', async () => {
    const tableName = freshTable('foreign')
    await admin.query(`CREATE TABLE "${tableName}" (task_id integer PRIMARY KEY, payload jsonb)`)
    const store = createPostgresDurableStore({ pool: running().createPool({ max: 1 }), tableName })
    await expect(store.ensureSchema()).rejects.toSatisfy(
      (error) =>
        InvalidStateError.isInstance(error) &&
        (error as InvalidStateError).details.reason === 'foreign-table',
    )
    await expect(
      store.fencing.save('x', sampleCheckpoint(1), { expectedVersion: undefined }),
    ).rejects.toSatisfy((error) => InvalidStateError.isInstance(error))
  })

  it('reports an unreachable server as a retryable DurableStoreError and works once it is reachable', async () => {
    const store = createPostgresDurableStore({
      connectionString: `postgresql://postgres:x@127.0.0.1:1/none`,
      tableName: freshTable(),
    })
    const error = await store.fencing.load('x').catch((caught: unknown) => caught)
    expect(DurableStoreError.isInstance(error)).toBe(true)
    expect((error as DurableStoreError).details).toMatchObject({ retryable: true })
    await store.close()
    await expect(store.fencing.load('x')).rejects.toSatisfy((caught) => InvalidStateError.isInstance(caught))

    const owned = createPostgresDurableStore({
      connectionString: running().connectionString,
      tableName: freshTable(),
    })
    const { version } = await owned.fencing.save('x', sampleCheckpoint('x'), { expectedVersion: undefined })
    expect((await owned.fencing.load('x'))?.version).toBe(version)
    await owned.close()
    await owned.close()
  })
})

describe('PostgreSQL store: listing and stored versions', () => {
  it('adds the listing columns to a table of an earlier version, filling them from the checkpoints', async () => {
    const tableName = freshTable('legacy')
    await admin.query(
      `CREATE TABLE "${tableName}" (task_id text PRIMARY KEY, version bigint NOT NULL, checkpoint text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
    )
    await admin.query(
      `INSERT INTO "${tableName}" (task_id, version, checkpoint) VALUES ($1, 4, $2), ($3, 1, $4), ($5, 1, 'not json')`,
      [
        'old-running',
        JSON.stringify(sampleCheckpoint('a', { definitionId: 'legacy' })),
        'old-done',
        JSON.stringify(
          sampleCheckpoint('b', { definitionId: 'legacy', status: 'completed', nextStepIndex: 1 }),
        ),
        'old-corrupt',
      ],
    )
    const store = createPostgresDurableStore({ pool: running().createPool({ max: 1 }), tableName })
    await store.ensureSchema()
    expect((await store.list({ status: 'running' })).map((task) => [task.taskId, task.definitionId])).toEqual(
      [['old-running', 'legacy']],
    )
    expect((await store.list()).map((task) => task.taskId)).toEqual(['old-done', 'old-running'])
    expect(await store.fencing.load('old-running')).toEqual({
      checkpoint: sampleCheckpoint('a', { definitionId: 'legacy' }),
      version: 4,
    })
  })

  it('orders task ids by bytes, whatever the database collation', async () => {
    const store = createPostgresDurableStore({
      pool: running().createPool({ max: 1 }),
      tableName: freshTable(),
    })
    for (const taskId of ['b', 'B', 'a', 'é', 'Z', '_']) await store.save(taskId, sampleCheckpoint(taskId))
    expect((await store.list()).map((task) => task.taskId)).toEqual(['B', 'Z', '_', 'a', 'b', 'é'])
  })

  it('refuses a stored version of 0 or below as a corrupt record', async () => {
    const tableName = freshTable()
    const store = createPostgresDurableStore({ pool: running().createPool({ max: 1 }), tableName })
    await store.save('t', sampleCheckpoint(1))
    for (const version of [0, -2]) {
      await admin.query(`UPDATE "${tableName}" SET version = $1 WHERE task_id = 't'`, [version])
      await expect(store.fencing.load('t')).rejects.toSatisfy(
        (error) =>
          InvalidStateError.isInstance(error) && (error as InvalidStateError).details.reason === 'corrupt',
      )
      await expect(store.load('t')).rejects.toSatisfy((error) => InvalidStateError.isInstance(error))
    }
  })
})

describe('PostgreSQL store: locking', () => {
  // Each test counts advisory locks; start from none, whatever an earlier test's closed sessions left.
  beforeEach(noAdvisoryLocksLeft)

  it('returns the lock connection to the pool and drops the lock after success, throw and abort', async () => {
    const pool = running().createPool({ max: 3 })
    const store = createPostgresDurableStore({ pool, tableName: freshTable() })
    await store.exclusive('a', async () => {
      expect(await advisoryLocks()).toBe(1)
    })
    await expect(
      store.exclusive('a', async () => {
        throw new RangeError('boom')
      }),
    ).rejects.toBeInstanceOf(RangeError)
    const controller = new AbortController()
    const holder = createPostgresDurableStore({
      pool: running().createPool({ max: 1 }),
      tableName: store.tableName,
    })
    let releaseHolder!: () => void
    const held = new Promise<void>((resolve) => {
      releaseHolder = resolve
    })
    let entered!: () => void
    const holderEntered = new Promise<void>((resolve) => {
      entered = resolve
    })
    const holding = holder.exclusive('a', async () => {
      entered()
      await held
    })
    try {
      await holderEntered
      const waiting = store.exclusive('a', async () => 'never', { signal: controller.signal })
      controller.abort()
      await expect(waiting).rejects.toSatisfy((error) => AbortedError.isInstance(error))
    } finally {
      releaseHolder()
    }
    await holding
    expect(await store.exclusive('a', async () => 'free')).toBe('free')
    expect(pool.totalCount - pool.idleCount).toBe(0)
    await noAdvisoryLocksLeft()
  })

  it('keeps waiting across lock-wait slices and statement timeouts until the holder releases', async () => {
    const tableName = freshTable()
    const holder = createPostgresDurableStore({ pool: running().createPool({ max: 1 }), tableName })
    await holder.ensureSchema()
    // The waiters' connections run only the lock and unlock statements (the table exists already).
    const sliced = createPostgresDurableStore({
      pool: running().createPool({ max: 1 }),
      tableName,
      createTable: false,
      lockWaitSliceMs: 10,
    })
    const timedOut = createPostgresDurableStore({
      pool: running().createPool({ max: 1, statement_timeout: 40 }),
      tableName,
      createTable: false,
    })
    let releaseHolder!: () => void
    const held = new Promise<void>((resolve) => {
      releaseHolder = resolve
    })
    let entered!: () => void
    const holderEntered = new Promise<void>((resolve) => {
      entered = resolve
    })
    const order: string[] = []
    const holding = holder.exclusive('slices', async () => {
      entered()
      await held
      order.push('holder')
    })
    await holderEntered
    const waiters = [
      sliced.exclusive('slices', async () => order.push('sliced')),
      timedOut.exclusive('slices', async () => order.push('timed-out')),
    ]
    try {
      // Let both waiters go through several waits that end without the lock.
      for (let seen = 0; seen < 5; ) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        const waiting = await admin.query<{ count: string }>(
          "SELECT count(*) AS count FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
        )
        if (Number(waiting.rows[0]?.count) > 0) seen += 1
      }
    } finally {
      releaseHolder()
    }
    await holding
    await Promise.all(waiters)
    expect(order[0]).toBe('holder')
    expect([...order].sort()).toEqual(['holder', 'sliced', 'timed-out'])
    await noAdvisoryLocksLeft()
  })

  it('lets a waiter of the same store give up while queued in process, without taking a connection', async () => {
    const pool = running().createPool({ max: 2 })
    const store = createPostgresDurableStore({ pool, tableName: freshTable() })
    let releaseHolder!: () => void
    const held = new Promise<void>((resolve) => {
      releaseHolder = resolve
    })
    let entered!: () => void
    const holderEntered = new Promise<void>((resolve) => {
      entered = resolve
    })
    const holding = store.exclusive('queued', async () => {
      entered()
      await held
      return 'holder'
    })
    try {
      await holderEntered
      const controller = new AbortController()
      const waiter = store.exclusive('queued', async () => 'waiter', { signal: controller.signal })
      const later = store.exclusive('queued', async () => 'later')
      await new Promise((resolve) => setTimeout(resolve, 0))
      expect(pool.totalCount).toBe(1)
      controller.abort()
      await expect(waiter).rejects.toSatisfy((error) => AbortedError.isInstance(error))
      releaseHolder()
      expect(await holding).toBe('holder')
      expect(await later).toBe('later')
    } finally {
      releaseHolder()
    }
    expect(pool.totalCount - pool.idleCount).toBe(0)
  })

  it('does not take a connection or run the operation when the signal is already aborted', async () => {
    const pool = running().createPool({ max: 1 })
    const store = createPostgresDurableStore({ pool, tableName: freshTable() })
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    let ran = false
    await expect(
      store.exclusive(
        't',
        async () => {
          ran = true
        },
        { signal: controller.signal },
      ),
    ).rejects.toSatisfy((error) => AbortedError.isInstance(error))
    expect(ran).toBe(false)
    expect(pool.totalCount).toBe(0)
  })

  it('needs one pooled connection per running operation, loads and saves included', async () => {
    const pool = running().createPool({ max: 1 })
    const store = createPostgresDurableStore({ pool, tableName: freshTable() })
    const version = await store.exclusive('solo', async () => {
      await store.fencing.save('solo', sampleCheckpoint(1), { expectedVersion: undefined })
      const loaded = await store.fencing.load('solo')
      return (await store.fencing.save('solo', sampleCheckpoint(2), { expectedVersion: loaded?.version }))
        .version
    })
    expect(await store.fencing.load('solo')).toEqual({ checkpoint: sampleCheckpoint(2), version })
  })

  it('releases the lock of a holder whose connection dies, and refuses that holder any further save', async () => {
    const tableName = freshTable()
    const first = createPostgresDurableStore({ pool: running().createPool({ max: 2 }), tableName })
    const second = createPostgresDurableStore({ pool: running().createPool({ max: 2 }), tableName })
    const created = await first.fencing.save('lost', sampleCheckpoint('created'), {
      expectedVersion: undefined,
    })
    let killed!: () => void
    const connectionKilled = new Promise<void>((resolve) => {
      killed = resolve
    })
    let resumeHolder!: () => void
    const holderResumes = new Promise<void>((resolve) => {
      resumeHolder = resolve
    })
    let leaseSignal: AbortSignal | undefined
    const holder = first.exclusive('lost', async (lease) => {
      leaseSignal = lease.signal
      try {
        const { rows } = await admin.query<{ pid: number }>(
          "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted",
        )
        expect(rows).toHaveLength(1)
        // Ends the holder's session and waits until the backend is gone (and its lock with it).
        await admin.query('SELECT pg_terminate_backend($1, 10000)', [rows[0]?.pid])
      } finally {
        // Never leave the test waiting on a holder whose own checks failed: it rejects, and the test says why.
        killed()
      }
      await holderResumes
      return first.fencing.save('lost', sampleCheckpoint('stale'), { expectedVersion: created.version })
    })
    await connectionKilled
    let takeover: { version: number }
    try {
      takeover = await second.exclusive('lost', async () => {
        const loaded = await second.fencing.load('lost')
        return second.fencing.save('lost', sampleCheckpoint('newer'), { expectedVersion: loaded?.version })
      })
    } finally {
      resumeHolder()
    }
    await expect(holder).rejects.toSatisfy(
      (error) => ConflictError.isInstance(error) && (error as ConflictError).details.reason === 'lease-lost',
    )
    // The holder's lease signal aborted as soon as its connection ended, with a lease-lost reason.
    expect(leaseSignal?.aborted).toBe(true)
    expect(ConflictError.isInstance(leaseSignal?.reason)).toBe(true)
    expect((leaseSignal?.reason as ConflictError | undefined)?.details.reason).toBe('lease-lost')
    expect(await first.fencing.load('lost')).toEqual({
      checkpoint: sampleCheckpoint('newer'),
      version: takeover.version,
    })
    await noAdvisoryLocksLeft()
  })
})

describe('PostgreSQL store: compare-and-set against a reference model', () => {
  it('accepts a save exactly when the model says the expected version is current', async () => {
    const store = createPostgresDurableStore({
      pool: running().createPool({ max: 2 }),
      tableName: freshTable('model'),
    })
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            task: fc.constantFrom('a', 'b', 'c'),
            kind: fc.constantFrom('current', 'stale', 'create', 'load'),
            value: fc.integer(),
          }),
          { maxLength: 25 },
        ),
        async (operations) => {
          run += 1
          const model = new Map<string, { value: number; version: number; history: number[] }>()
          for (const { task, kind, value } of operations) {
            const taskId = `${run}-${task}`
            const current = model.get(taskId)
            if (kind === 'load') {
              const loaded = await store.fencing.load(taskId)
              expect(
                loaded === undefined ? undefined : (loaded.checkpoint as CheckpointV2<number>).state,
              ).toBe(current?.value)
              expect(loaded?.version).toBe(current?.version)
              continue
            }
            const expectedVersion =
              kind === 'create' ? undefined : kind === 'current' ? current?.version : current?.history[0]
            const accepted = expectedVersion === current?.version
            const outcome = await store.fencing
              .save(taskId, sampleCheckpoint(value), { expectedVersion })
              .then(
                (saved) => ({ saved }),
                (error: unknown) => ({ error }),
              )
            if ('saved' in outcome) {
              expect(accepted).toBe(true)
              expect(current?.history ?? []).not.toContain(outcome.saved.version)
              model.set(taskId, {
                value,
                version: outcome.saved.version,
                history: [...(current?.history ?? []), outcome.saved.version],
              })
            } else {
              expect(ConflictError.isInstance(outcome.error)).toBe(true)
              expect(accepted).toBe(false)
            }
          }
        },
      ),
      { numRuns: 40 },
    )
  })
})
