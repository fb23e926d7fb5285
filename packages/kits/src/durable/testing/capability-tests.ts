import { AbortedError, ConflictError, InvalidInputError } from '@agent-core/core'
import type { DurableFencing, DurableLeaseWait, DurableStore } from '@agent-core/kits/durable'
import { assert } from './assert.js'
import type { ConformanceSuite } from './conformance.js'
import { deferred, rejectsWith, sampleCheckpoint, stateOf, yieldTurns } from './support.js'

function fencingOf(store: DurableStore): DurableFencing {
  const { fencing } = store
  assert.ok(fencing !== undefined, 'the store declares no fencing')
  return fencing
}

function isPositiveVersion(version: unknown): boolean {
  return typeof version === 'number' && Number.isSafeInteger(version) && version >= 1
}

/** `store.fencing`: versioned loads and compare-and-set saves. */
export function registerFencingTests(suite: ConformanceSuite): void {
  suite.test('fencing.load reads what load reads, with a positive version', async ({ store }) => {
    const fencing = fencingOf(store)
    assert.equal(await fencing.load('nothing'), undefined)
    const { version } = await fencing.save('v', sampleCheckpoint('v'), { expectedVersion: undefined })
    assert.ok(isPositiveVersion(version), `the version ${version} is not a positive safe integer`)
    assert.deepEqual(await fencing.load('v'), { checkpoint: await store.load('v'), version })
  })

  suite.test('gives every save a new version and loads the latest', async ({ store }) => {
    const fencing = fencingOf(store)
    const seen = new Set<number>()
    let version: number | undefined
    for (let i = 0; i < 5; i++) {
      const result = await fencing.save('versions', sampleCheckpoint(i, { nextStepIndex: i }), {
        expectedVersion: version,
      })
      assert.ok(isPositiveVersion(result.version))
      assert.equal(seen.has(result.version), false, `version ${result.version} was used twice`)
      seen.add(result.version)
      version = result.version
    }
    assert.deepEqual(await fencing.load('versions'), {
      checkpoint: sampleCheckpoint(4, { nextStepIndex: 4 }),
      version,
    })
  })

  suite.test('refuses a save with a stale version and keeps the newer checkpoint', async ({ store }) => {
    const fencing = fencingOf(store)
    const first = await fencing.save('fence', sampleCheckpoint('v1'), { expectedVersion: undefined })
    const second = await fencing.save('fence', sampleCheckpoint('v2'), { expectedVersion: first.version })
    await rejectsWith(
      () => fencing.save('fence', sampleCheckpoint('stale'), { expectedVersion: first.version }),
      ConflictError,
      'a save with a stale version',
    )
    assert.deepEqual(await fencing.load('fence'), {
      checkpoint: sampleCheckpoint('v2'),
      version: second.version,
    })
  })

  suite.test('refuses to create a task that exists, and to update one that does not', async ({ store }) => {
    const fencing = fencingOf(store)
    const first = await fencing.save('exists', sampleCheckpoint('first'), { expectedVersion: undefined })
    await rejectsWith(
      () => fencing.save('exists', sampleCheckpoint('again'), { expectedVersion: undefined }),
      ConflictError,
      'creating a task that exists',
    )
    assert.deepEqual(await fencing.load('exists'), {
      checkpoint: sampleCheckpoint('first'),
      version: first.version,
    })
    await rejectsWith(
      () => fencing.save('absent', sampleCheckpoint('x'), { expectedVersion: first.version }),
      ConflictError,
      'updating a task that does not exist',
    )
    assert.equal(await store.load('absent'), undefined)
  })

  suite.test(
    'a plain save moves the version too, so a fenced writer that read before it is refused',
    async ({ store }) => {
      const fencing = fencingOf(store)
      const first = await fencing.save('mixed', sampleCheckpoint('fenced'), { expectedVersion: undefined })
      await store.save('mixed', sampleCheckpoint('plain'))
      const after = await fencing.load('mixed')
      assert.notEqual(after?.version, first.version)
      await rejectsWith(
        () => fencing.save('mixed', sampleCheckpoint('stale'), { expectedVersion: first.version }),
        ConflictError,
        'a fenced save after a plain one',
      )
      assert.deepEqual(await store.load('mixed'), sampleCheckpoint('plain'))
    },
  )

  suite.test(
    'refuses expected versions that are not undefined or a positive safe integer',
    async ({ store }) => {
      const fencing = fencingOf(store)
      for (const options of [
        undefined,
        null,
        {},
        { expectedVersion: 0 },
        { expectedVersion: -1 },
        { expectedVersion: 1.5 },
        { expectedVersion: Number.NaN },
        { expectedVersion: '1' },
      ] as unknown[]) {
        await rejectsWith(
          () => fencing.save('odd', sampleCheckpoint(1), options as never),
          InvalidInputError,
          `a fenced save with options ${JSON.stringify(options) ?? String(options)}`,
        )
      }
      assert.equal(await store.load('odd'), undefined)
    },
  )

  suite.test(
    'lets exactly one of many concurrent compare-and-set writers win each version',
    async (harness) => {
      const peer = await suite.peer(harness)
      const writers: DurableStore[] = [harness.store, peer, harness.store, peer]
      await fencingOf(harness.store).save('counter', sampleCheckpoint(0), { expectedVersion: undefined })
      const write = async (writer: DurableStore) => {
        const fencing = fencingOf(writer)
        for (let done = 0; done < 5; ) {
          const current = await fencing.load('counter')
          const count = stateOf<number>(current?.checkpoint)
          await yieldTurns(1)
          try {
            await fencing.save('counter', sampleCheckpoint(count + 1), { expectedVersion: current?.version })
            done++
          } catch (error) {
            if (!ConflictError.isInstance(error)) throw error
          }
        }
      }
      await Promise.all(writers.map(write))
      assert.equal(stateOf<number>(await harness.store.load('counter')), 20)
    },
  )
}

/** `exclusive(..., { signal })`: an aborted signal stops a wait and refuses to start one. */
export function registerSignalTests(suite: ConformanceSuite): void {
  suite.test('refuses an already aborted signal without running the operation', async ({ store }) => {
    const controller = new AbortController()
    controller.abort()
    let ran = false
    await rejectsWith(
      () =>
        store.exclusive(
          'aborted',
          async () => {
            ran = true
          },
          { signal: controller.signal },
        ),
      AbortedError,
      'exclusive with an aborted signal',
    )
    assert.equal(ran, false)
  })

  suite.test(
    'stops waiting when the signal aborts, leaving the holder and later callers unaffected',
    async (harness) => {
      const peer = await suite.peer(harness)
      const holderEntered = deferred()
      const releaseHolder = deferred()
      const holder = harness.store.exclusive('waiting', async () => {
        holderEntered.resolve()
        await releaseHolder.promise
        return 'holder'
      })
      await holderEntered.promise
      const controller = new AbortController()
      let waiterRan = false
      const waiter = peer.exclusive(
        'waiting',
        async () => {
          waiterRan = true
        },
        { signal: controller.signal },
      )
      await yieldTurns()
      controller.abort()
      await rejectsWith(() => waiter, AbortedError, 'a waiter whose signal aborted')
      releaseHolder.resolve()
      assert.equal(await holder, 'holder')
      assert.equal(await peer.exclusive('waiting', async () => 'later'), 'later')
      assert.equal(waiterRan, false)
    },
  )
}

/** `reportsLeaseWaits`: a waiter hears who holds the lease. */
export function registerLeaseWaitTests(suite: ConformanceSuite): void {
  suite.test(
    'a waiter hears the holder through onWait, then runs once the lease is released',
    async (harness) => {
      const peer = await suite.peer(harness)
      const holderEntered = deferred()
      const releaseHolder = deferred()
      let holderId: string | undefined
      const holder = harness.store.exclusive('reported', async (lease) => {
        holderId = lease?.ownerId
        holderEntered.resolve()
        await releaseHolder.promise
      })
      await holderEntered.promise
      const waits: DurableLeaseWait[] = []
      const heard = deferred()
      const waiter = peer.exclusive('reported', async () => 'waiter', {
        onWait: (wait) => {
          waits.push(wait)
          heard.resolve()
          throw new Error('a throwing onWait changes nothing')
        },
      })
      await heard.promise
      releaseHolder.resolve()
      await holder
      assert.equal(await waiter, 'waiter')
      assert.ok(waits.length >= 1)
      const [first] = waits
      assert.equal(first?.taskId, 'reported')
      if (holderId !== undefined) assert.equal(first?.holder.ownerId, holderId)
      const expiresAtMs = first?.holder.expiresAtMs
      assert.ok(expiresAtMs === null || (typeof expiresAtMs === 'number' && Number.isFinite(expiresAtMs)))
    },
  )
}
