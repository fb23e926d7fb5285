/**
 * The conformance suite every {@link DurableStore} passes (memory, SQLite, PostgreSQL, an App's own).
 * Private to the repository's tests (the `testing` folder is not a subpath); import it by relative path:
 *
 * ```ts no-run
 * import { describeDurableStoreConformance } from '../testing/conformance.js'
 * describeDurableStoreConformance('my store', async () => ({ store, writeRaw, close }))
 * ```
 */
import { AbortedError, ConflictError, InvalidInputError, InvalidStateError } from '@agent-core/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { CheckpointV2, DurableStore, StoredCheckpoint } from '../store.js'

/** What a store factory hands to the suite. */
export interface DurableStoreHarness {
  /** The store under test, over empty storage. */
  readonly store: DurableStore
  /**
   * Another store over the same storage, as another process or connection would see it (a second
   * connection to the same file or database). Omit for stores that cannot be shared (memory).
   */
  openPeer?(): Promise<DurableStore>
  /** Overwrites (or creates) the stored serialized checkpoint of `taskId` with raw text, bypassing `save`. */
  writeRaw(taskId: string, text: string): Promise<void>
  /** Releases everything the harness opened (peers included). */
  close(): Promise<void>
}

/** Builds a valid checkpoint for the suite. */
export function sampleCheckpoint<State>(
  state: State,
  overrides: Partial<CheckpointV2<State>> = {},
): CheckpointV2<State> {
  return {
    version: 2,
    definitionId: 'conformance',
    revision: 'r1',
    nextStepIndex: 0,
    attemptCount: 1,
    maxAttempts: 3,
    deadlineAtMs: null,
    status: 'running',
    state,
    ...overrides,
  }
}

/** Lets other tasks (timers, I/O callbacks) run, without measuring time. */
async function yieldTurns(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setTimeout(resolve, 0))
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

/** The state of a loaded checkpoint; fails the test when nothing was loaded. */
function stateOf<State>(stored: StoredCheckpoint | undefined): State {
  if (stored === undefined) throw new Error('expected a stored checkpoint, but load returned undefined')
  return (stored.checkpoint as CheckpointV2<State>).state
}

/** Calls `fn` so that a synchronous throw and a rejection are both seen as a rejection. */
function attempt<T>(fn: () => Promise<T>): Promise<T> {
  return Promise.resolve().then(fn)
}

/**
 * Registers the conformance tests of a durable store under `describe(name)`. `factory` is called before
 * each test and must return a harness over empty storage.
 *
 * @example
 * ```ts no-run
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * import { describeDurableStoreConformance } from '../testing/conformance.js'
 *
 * describeDurableStoreConformance('memory store', async () => {
 *   const store = createMemoryDurableStore()
 *   return {
 *     store,
 *     writeRaw: async (taskId, text) => void store.records.set(taskId, { text, version: 99 }),
 *     close: async () => {},
 *   }
 * })
 * ```
 */
export function describeDurableStoreConformance(
  name: string,
  factory: () => Promise<DurableStoreHarness>,
): void {
  describe(`${name}: durable store conformance`, () => {
    let harness: DurableStoreHarness
    let store: DurableStore

    beforeEach(async () => {
      harness = await factory()
      store = harness.store
    })
    afterEach(async () => {
      await harness.close()
    })

    describe('load and save', () => {
      it('returns undefined for a task that was never saved', async () => {
        expect(await store.load('missing')).toBeUndefined()
      })

      it('round-trips a checkpoint with nested, unicode and optional fields', async () => {
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
        const saved = await store.save('round-trip', checkpoint, { expectedVersion: undefined })
        expect(Number.isSafeInteger(saved.version)).toBe(true)
        const loaded = await store.load('round-trip')
        expect(loaded).toEqual({ checkpoint, version: saved.version })
      })

      it('keeps tasks apart', async () => {
        await store.save('a', sampleCheckpoint('A'), { expectedVersion: undefined })
        await store.save('b', sampleCheckpoint('B'), { expectedVersion: undefined })
        expect((await store.load('a'))?.checkpoint).toEqual(sampleCheckpoint('A'))
        expect((await store.load('b'))?.checkpoint).toEqual(sampleCheckpoint('B'))
      })

      it('does not alias the caller objects', async () => {
        const state = { list: [1] }
        const { version } = await store.save('alias', sampleCheckpoint(state), { expectedVersion: undefined })
        state.list.push(2)
        const first = await store.load('alias')
        expect(first).toEqual({ checkpoint: sampleCheckpoint({ list: [1] }), version })
        stateOf<{ list: number[] }>(first).list.push(3)
        expect((await store.load('alias'))?.checkpoint).toEqual(sampleCheckpoint({ list: [1] }))
      })

      it('gives every save a new version and loads the latest', async () => {
        const seen = new Set<number>()
        let version: number | undefined
        for (let i = 0; i < 5; i++) {
          const result = await store.save('versions', sampleCheckpoint(i, { nextStepIndex: i }), {
            expectedVersion: version,
          })
          expect(seen.has(result.version)).toBe(false)
          seen.add(result.version)
          version = result.version
        }
        expect(await store.load('versions')).toEqual({
          checkpoint: sampleCheckpoint(4, { nextStepIndex: 4 }),
          version,
        })
      })
    })

    describe('version fencing', () => {
      it('refuses a save with a stale version and keeps the newer checkpoint', async () => {
        const first = await store.save('fence', sampleCheckpoint('v1'), { expectedVersion: undefined })
        const second = await store.save('fence', sampleCheckpoint('v2'), { expectedVersion: first.version })
        const stale = attempt(() =>
          store.save('fence', sampleCheckpoint('stale'), { expectedVersion: first.version }),
        )
        await expect(stale).rejects.toSatisfy((error) => ConflictError.isInstance(error))
        expect(await store.load('fence')).toEqual({
          checkpoint: sampleCheckpoint('v2'),
          version: second.version,
        })
      })

      it('refuses to create a task that already exists', async () => {
        const first = await store.save('exists', sampleCheckpoint('first'), { expectedVersion: undefined })
        const again = attempt(() =>
          store.save('exists', sampleCheckpoint('again'), { expectedVersion: undefined }),
        )
        await expect(again).rejects.toSatisfy((error) => ConflictError.isInstance(error))
        expect(await store.load('exists')).toEqual({
          checkpoint: sampleCheckpoint('first'),
          version: first.version,
        })
      })

      it('refuses an update of a task that does not exist', async () => {
        const update = attempt(() => store.save('absent', sampleCheckpoint('x'), { expectedVersion: 1 }))
        await expect(update).rejects.toSatisfy((error) => ConflictError.isInstance(error))
        expect(await store.load('absent')).toBeUndefined()
      })

      it('lets exactly one of many concurrent compare-and-set writers win each version', async () => {
        const peer = harness.openPeer ? await harness.openPeer() : store
        const stores = [store, peer, store, peer]
        await store.save('counter', sampleCheckpoint(0), { expectedVersion: undefined })
        const writer = async (writerStore: DurableStore) => {
          for (let done = 0; done < 5; ) {
            const current = await writerStore.load('counter')
            const count = stateOf<number>(current)
            await yieldTurns(1)
            try {
              await writerStore.save('counter', sampleCheckpoint(count + 1), {
                expectedVersion: current?.version,
              })
              done++
            } catch (error) {
              if (!ConflictError.isInstance(error)) throw error
            }
          }
        }
        await Promise.all(stores.map(writer))
        const final = await store.load('counter')
        expect(stateOf<number>(final)).toBe(20)
      })
    })

    describe('corrupt and bad input', () => {
      it('surfaces truncated JSON as InvalidStateError, not as a missing task', async () => {
        await harness.writeRaw('corrupt', '{"version":2,"definitionId":"conf')
        const loaded = attempt(() => store.load('corrupt'))
        await expect(loaded).rejects.toSatisfy((error) => InvalidStateError.isInstance(error))
      })

      it('returns well-formed JSON of any shape unvalidated (the runner validates it)', async () => {
        await harness.writeRaw('shape', '{"version":7}')
        expect((await store.load('shape'))?.checkpoint).toEqual({ version: 7 })
      })

      it('refuses task ids that are not non-empty strings', async () => {
        for (const bad of ['', 42, undefined, null] as unknown[]) {
          await expect(attempt(() => store.load(bad as string))).rejects.toSatisfy((error) =>
            InvalidInputError.isInstance(error),
          )
          await expect(
            attempt(() => store.save(bad as string, sampleCheckpoint(1), { expectedVersion: undefined })),
          ).rejects.toSatisfy((error) => InvalidInputError.isInstance(error))
          await expect(attempt(() => store.exclusive(bad as string, async () => 1))).rejects.toSatisfy(
            (error) => InvalidInputError.isInstance(error),
          )
        }
      })

      it('refuses a checkpoint JSON cannot carry and stores nothing', async () => {
        const bad = sampleCheckpoint({ big: 10n })
        await expect(
          attempt(() => store.save('bigint', bad as CheckpointV2, { expectedVersion: undefined })),
        ).rejects.toSatisfy((error) => InvalidInputError.isInstance(error))
        expect(await store.load('bigint')).toBeUndefined()
      })
    })

    describe('exclusive', () => {
      it('returns the operation result and hands it a lease for the task', async () => {
        const result = await store.exclusive('lease', async (lease) => {
          expect(lease.taskId).toBe('lease')
          expect(typeof lease.ownerId).toBe('string')
          return 'done'
        })
        expect(result).toBe('done')
      })

      it('never runs two operations on the same task at once', async () => {
        const peer = harness.openPeer ? await harness.openPeer() : store
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
        await Promise.all([store, peer, store, peer, store, peer].map((s) => s.exclusive('mutex', operation)))
        expect(runs).toBe(6)
        expect(maxActive).toBe(1)
      })

      it('lets different tasks run at the same time', async () => {
        const bStarted = deferred()
        const a = store.exclusive('task-a', async () => {
          await bStarted.promise
          return 'a'
        })
        const b = store.exclusive('task-b', async () => {
          bStarted.resolve()
          return 'b'
        })
        expect(await Promise.all([a, b])).toEqual(['a', 'b'])
      })

      it('rethrows the operation error and releases the lease', async () => {
        const failure = new Error('operation failed')
        await expect(
          store.exclusive('rethrow', async () => {
            throw failure
          }),
        ).rejects.toBe(failure)
        expect(await store.exclusive('rethrow', async () => 'again')).toBe('again')
      })

      it('refuses an already aborted signal without running the operation', async () => {
        const controller = new AbortController()
        controller.abort()
        let ran = false
        const call = attempt(() =>
          store.exclusive(
            'aborted',
            async () => {
              ran = true
            },
            { signal: controller.signal },
          ),
        )
        await expect(call).rejects.toSatisfy((error) => AbortedError.isInstance(error))
        expect(ran).toBe(false)
      })

      it('stops waiting when the signal aborts, leaving the holder and later callers unaffected', async () => {
        const peer = harness.openPeer ? await harness.openPeer() : store
        const holderEntered = deferred()
        const releaseHolder = deferred()
        const holder = store.exclusive('waiting', async () => {
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
        await expect(waiter).rejects.toSatisfy((error) => AbortedError.isInstance(error))
        releaseHolder.resolve()
        expect(await holder).toBe('holder')
        expect(await peer.exclusive('waiting', async () => 'later')).toBe('later')
        expect(waiterRan).toBe(false)
      })

      it('serializes read-modify-write cycles done under the lease', async () => {
        const peer = harness.openPeer ? await harness.openPeer() : store
        const increment = (s: DurableStore) =>
          s.exclusive('locked-counter', async () => {
            const current = await s.load('locked-counter')
            const count = current === undefined ? 0 : (current.checkpoint as CheckpointV2<number>).state
            await yieldTurns(1)
            await s.save('locked-counter', sampleCheckpoint(count + 1), { expectedVersion: current?.version })
          })
        await Promise.all(Array.from({ length: 8 }, (_, i) => increment(i % 2 === 0 ? store : peer)))
        expect(stateOf<number>(await store.load('locked-counter'))).toBe(8)
      })
    })
  })
}
