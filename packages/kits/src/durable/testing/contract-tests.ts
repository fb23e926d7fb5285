import { InvalidInputError, InvalidStateError } from '@agent-core/core'
import type { CheckpointV2, DurableStore } from '@agent-core/kits/durable'
import { assert } from './assert.js'
import type { ConformanceSuite, DurableStoreHarness } from './conformance.js'
import {
  deferred,
  rejectsAny,
  rejectsWith,
  sampleCheckpoint,
  stateOf,
  underLease,
  yieldTurns,
} from './support.js'

/** The harness's `writeRaw`, which the tests of raw records need. */
export function rawWriter(harness: DurableStoreHarness): (taskId: string, text: string) => Promise<void> {
  const { writeRaw } = harness
  assert.ok(
    typeof writeRaw === 'function',
    'the tests of corrupt records need harness.writeRaw(taskId, text); pass it, or rawRecords: false when the store cannot hold raw text',
  )
  return (taskId, text) => writeRaw.call(harness, taskId, text)
}

/** The contract's three methods, for every store. */
export function registerContractTests(suite: ConformanceSuite): void {
  const { options } = suite

  suite.test('declares exactly the capabilities under test', async ({ store }) => {
    assert.equal(store.fencing !== undefined, options.fencing === true, 'store.fencing vs options.fencing')
    assert.equal(
      store.reportsLeaseWaits === true,
      options.reportsLeaseWaits === true,
      'store.reportsLeaseWaits vs options.reportsLeaseWaits',
    )
    const lists = typeof (store as { list?: unknown }).list === 'function'
    assert.equal(lists, options.listing === true, 'store.list vs options.listing')
  })

  suite.test('load returns undefined for a task that was never saved', async ({ store }) => {
    assert.equal(await store.load('missing'), undefined)
  })

  suite.test('round-trips a checkpoint with nested, unicode and optional fields', async ({ store }) => {
    const checkpoint = sampleCheckpoint(
      { items: [1, 2.5, { deep: [true, null] }], text: 'naïve — 東京 🚀', empty: {} },
      {
        nextStepIndex: 2,
        attemptCount: 2,
        maxAttempts: 5,
        deadlineAtMs: 1_700_000_000_000,
        modelBudget: { maxCalls: 10, reservedCalls: 4, maxCallsPerAttempt: 2 },
      },
    )
    await store.save('round-trip', checkpoint)
    assert.deepEqual(await store.load('round-trip'), checkpoint)
  })

  suite.test('save replaces the earlier checkpoint of the task', async ({ store }) => {
    await store.save('replace', sampleCheckpoint('first'))
    await store.save('replace', sampleCheckpoint('second', { nextStepIndex: 1 }))
    assert.deepEqual(await store.load('replace'), sampleCheckpoint('second', { nextStepIndex: 1 }))
  })

  suite.test('keeps tasks apart', async ({ store }) => {
    await store.save('a', sampleCheckpoint('A'))
    await store.save('b', sampleCheckpoint('B'))
    assert.deepEqual(await store.load('a'), sampleCheckpoint('A'))
    assert.deepEqual(await store.load('b'), sampleCheckpoint('B'))
  })

  suite.test('does not alias the caller objects', async ({ store }) => {
    const state = { list: [1] }
    await store.save('alias', sampleCheckpoint(state))
    state.list.push(2)
    const first = await store.load('alias')
    assert.deepEqual(first, sampleCheckpoint({ list: [1] }))
    stateOf<{ list: number[] }>(first).list.push(3)
    assert.deepEqual(await store.load('alias'), sampleCheckpoint({ list: [1] }))
  })

  suite.test('refuses task ids that are not non-empty strings with InvalidInputError', async ({ store }) => {
    for (const bad of ['', 42, undefined, null] as unknown[]) {
      const label = `with taskId ${JSON.stringify(bad) ?? String(bad)}`
      await rejectsWith(() => store.load(bad as string), InvalidInputError, `load ${label}`)
      await rejectsWith(
        () => store.save(bad as string, sampleCheckpoint(1)),
        InvalidInputError,
        `save ${label}`,
      )
      await rejectsWith(
        () => store.exclusive(bad as string, async () => 1),
        InvalidInputError,
        `exclusive ${label}`,
      )
    }
  })

  suite.test(
    'refuses a checkpoint JSON cannot carry with InvalidInputError and stores nothing',
    async ({ store }) => {
      const bad = sampleCheckpoint({ big: 10n }) as CheckpointV2
      await rejectsWith(() => store.save('bigint', bad), InvalidInputError, 'save of a BigInt state')
      assert.equal(await store.load('bigint'), undefined)
    },
  )

  if (options.rawRecords !== false) {
    suite.test('surfaces a corrupt record as InvalidStateError, never as a missing task', async (harness) => {
      await rawWriter(harness)('corrupt', '{"version":2,"definitionId":"conf')
      await rejectsWith(() => harness.store.load('corrupt'), InvalidStateError, 'load of truncated JSON')
    })
    suite.test('returns stored JSON of any shape unvalidated (the runner validates it)', async (harness) => {
      await rawWriter(harness)('shape', '{"version":7}')
      assert.deepEqual(await harness.store.load('shape'), { version: 7 })
    })
  }

  suite.test(
    'exclusive returns the operation result; a lease it hands over names the task',
    async ({ store }) => {
      const result = await store.exclusive('lease', async (lease) => {
        if (lease !== undefined) {
          assert.equal(lease.taskId, 'lease')
          assert.equal(typeof lease.ownerId, 'string')
          if (lease.signal !== undefined)
            assert.equal(lease.signal.aborted, false, 'a fresh lease is not lost')
        }
        return 'done'
      })
      assert.equal(result, 'done')
    },
  )

  suite.test(
    'exclusive never runs two operations on the same task at once, across peers',
    async (harness) => {
      const peer = await suite.peer(harness)
      let active = 0
      let maxActive = 0
      let runs = 0
      const operation = async () => {
        active++
        maxActive = Math.max(maxActive, active)
        await yieldTurns()
        runs++
        active--
      }
      const stores: DurableStore[] = [harness.store, peer, harness.store, peer, harness.store, peer]
      await Promise.all(stores.map((s) => s.exclusive('mutex', operation)))
      assert.equal(runs, 6)
      assert.equal(maxActive, 1)
    },
  )

  suite.test('exclusive lets different tasks run at the same time', async ({ store }) => {
    const bStarted = deferred()
    const a = store.exclusive('task-a', async () => {
      await bStarted.promise
      return 'a'
    })
    const b = store.exclusive('task-b', async () => {
      bStarted.resolve()
      return 'b'
    })
    assert.deepEqual(await Promise.all([a, b]), ['a', 'b'])
  })

  suite.test('exclusive rethrows the operation error and releases the lease', async ({ store }) => {
    const failure = new Error('operation failed')
    const error = await rejectsAny(
      () =>
        store.exclusive('rethrow', async () => {
          throw failure
        }),
      'exclusive of a failing operation',
    )
    assert.equal(error, failure)
    assert.equal(await store.exclusive('rethrow', async () => 'again'), 'again')
  })

  suite.test('serializes read-modify-write cycles done under the lease, across peers', async (harness) => {
    const peer = await suite.peer(harness)
    const increment = (s: DurableStore) =>
      underLease(s, 'locked-counter', async () => {
        const current = await s.load('locked-counter')
        const count = current === undefined ? 0 : stateOf<number>(current)
        await yieldTurns(1)
        await s.save('locked-counter', sampleCheckpoint(count + 1))
      })
    await Promise.all(Array.from({ length: 8 }, (_, i) => increment(i % 2 === 0 ? harness.store : peer)))
    assert.equal(stateOf<number>(await harness.store.load('locked-counter')), 8)
  })
}
