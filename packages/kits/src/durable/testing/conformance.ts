import type { DurableStore } from '@agent-core/kits/durable'
import { assert } from './assert.js'
import { registerFencingTests, registerLeaseWaitTests, registerSignalTests } from './capability-tests.js'
import { registerContractTests } from './contract-tests.js'
import { registerListingTests } from './listing-tests.js'
import { registerRunnerTests } from './runner-tests.js'

/**
 * What the store factory of {@link describeDurableStoreConformance} hands to each test.
 * @example
 * ```ts
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * import type { DurableStoreHarness } from '@agent-core/kits/durable/testing'
 *
 * const store = createMemoryDurableStore()
 * const harness: DurableStoreHarness = {
 *   store,
 *   writeRaw: async (taskId, text) => void store.records.set(taskId, { text, version: 1 }),
 * }
 * ```
 */
export interface DurableStoreHarness {
  /** The store under test, over empty storage. */
  readonly store: DurableStore
  /**
   * Another store over the same storage, as another process or connection sees it (a second connection to
   * the same file or database). Omit it for stores that cannot be shared; the tests then use `store` twice.
   */
  openPeer?(): Promise<DurableStore>
  /**
   * Stores raw serialized text as the checkpoint of `taskId`, bypassing `save` (how a corrupt record
   * looks). The tests of corrupt records need it, unless the options say `rawRecords: false`.
   */
  writeRaw?(taskId: string, text: string): Promise<void>
  /** Releases what the harness opened (peers included). */
  close?(): Promise<void>
}

/**
 * The test functions of a runner: `describe(name, body)` and `it(name, body)` as vitest, `node:test`,
 * jest and mocha all provide them. The suite only calls them with a name and a function, so a runner
 * that names them otherwise (`suite` and `test`) fits as well.
 * @example
 * ```ts no-run
 * import { suite, test } from 'node:test'
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * import { type DurableConformanceRunner, describeDurableStoreConformance } from '@agent-core/kits/durable/testing'
 *
 * const runner: DurableConformanceRunner = { describe: suite, it: test }
 * describeDurableStoreConformance({
 *   ...runner,
 *   name: 'memory store',
 *   open: async () => ({ store: createMemoryDurableStore() }),
 *   fencing: true,
 *   reportsLeaseWaits: true,
 *   listing: true,
 *   honoursSignal: true,
 *   rawRecords: false, // this harness has no writeRaw
 * })
 * ```
 */
export interface DurableConformanceRunner {
  /** Groups tests: the runner's `describe` (or `suite`). */
  readonly describe: (name: string, body: () => void) => unknown
  /** Registers one asynchronous test: the runner's `it` (or `test`). */
  readonly it: (name: string, body: () => Promise<void>) => unknown
}

/**
 * Options of {@link describeDurableStoreConformance}.
 * @example
 * ```ts no-run
 * import { describe, it } from 'node:test'
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * import type { DurableStoreConformanceOptions } from '@agent-core/kits/durable/testing'
 *
 * const options: DurableStoreConformanceOptions = {
 *   describe,
 *   it,
 *   name: 'memory store',
 *   open: async () => ({ store: createMemoryDurableStore() }),
 *   fencing: true,
 *   reportsLeaseWaits: true,
 *   listing: true,
 *   honoursSignal: true,
 * }
 * ```
 */
export interface DurableStoreConformanceOptions extends DurableConformanceRunner {
  /** Names the suite: its tests are grouped under `<name>: durable store conformance`. */
  readonly name: string
  /** Opens the store under test over empty storage; called once per test, closed after it. */
  open(): Promise<DurableStoreHarness>
  /** The store declares version fencing (`store.fencing`): test the compare-and-set saves. */
  readonly fencing?: boolean | undefined
  /** The store declares `reportsLeaseWaits`: test that a waiter hears who holds the lease. */
  readonly reportsLeaseWaits?: boolean | undefined
  /** The store lists tasks by status (`store.list`): test the listing. */
  readonly listing?: boolean | undefined
  /** `exclusive` honours `options.signal`: an aborted signal stops a wait (and refuses to start one). */
  readonly honoursSignal?: boolean | undefined
  /**
   * The harness can write raw text as a record (`writeRaw`), so the tests of corrupt records run. Default
   * `true`; pass `false` for a store that cannot hold text that is not a checkpoint.
   */
  readonly rawRecords?: boolean | undefined
}

/** What the section files register tests with. */
export interface ConformanceSuite {
  readonly options: DurableStoreConformanceOptions
  /** Registers a test that opens a fresh harness, runs `body` with it and closes it. */
  test(name: string, body: (harness: DurableStoreHarness) => Promise<void>): void
  /** A second store over the harness's storage (or the store itself, when it cannot be shared). */
  peer(harness: DurableStoreHarness): Promise<DurableStore>
}

function checkHarness(harness: unknown): DurableStoreHarness {
  const candidate = harness as Partial<DurableStoreHarness> | null
  assert.ok(
    typeof candidate === 'object' &&
      candidate !== null &&
      typeof candidate.store === 'object' &&
      candidate.store !== null,
    'open() must resolve to a harness { store, openPeer?, writeRaw?, close? }',
  )
  return candidate as DurableStoreHarness
}

/**
 * Registers the conformance tests of a durable store with any test runner. The contract part runs for
 * every store: `load` of an unknown task, round trips, replacing saves, no aliasing, typed refusals of bad
 * task ids, unserializable and corrupt checkpoints, `exclusive` (mutual exclusion, also across peers,
 * errors, different tasks in parallel), and real durable tasks run through the store (created, resumed
 * after a failure and after progress saves, raced by two runs). Each capability the options name adds its
 * own tests, and one test checks that the store declares exactly the capabilities under test.
 *
 * The suite imports no test framework: pass your runner's `describe` and `it`.
 *
 * @example
 * ```ts no-run
 * import { describe, it } from 'vitest' // or: from 'node:test'
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * import { describeDurableStoreConformance } from '@agent-core/kits/durable/testing'
 *
 * describeDurableStoreConformance({
 *   describe,
 *   it,
 *   name: 'memory store',
 *   open: async () => ({ store: createMemoryDurableStore() }),
 *   fencing: true,
 *   reportsLeaseWaits: true,
 *   listing: true,
 *   honoursSignal: true,
 * })
 * ```
 */
export function describeDurableStoreConformance(options: DurableStoreConformanceOptions): void {
  assert.ok(typeof options === 'object' && options !== null, 'pass { describe, it, name, open }')
  const { describe, it, name, open } = options
  assert.equal(typeof describe, 'function', 'options.describe must be the test runner describe')
  assert.equal(typeof it, 'function', 'options.it must be the test runner it (or test)')
  assert.ok(typeof name === 'string' && name.length > 0, 'options.name must name the store')
  assert.equal(typeof open, 'function', 'options.open must open the store under test')
  const suite: ConformanceSuite = {
    options,
    test(title, body) {
      it(title, async () => {
        const harness = checkHarness(await open())
        try {
          await body(harness)
        } finally {
          await harness.close?.()
        }
      })
    },
    async peer(harness) {
      return harness.openPeer ? harness.openPeer() : harness.store
    },
  }
  describe(`${name}: durable store conformance`, () => {
    describe('contract', () => registerContractTests(suite))
    describe('durable tasks through the store', () => registerRunnerTests(suite))
    if (options.honoursSignal) describe('exclusive honours its signal', () => registerSignalTests(suite))
    if (options.fencing) describe('version fencing', () => registerFencingTests(suite))
    if (options.reportsLeaseWaits) describe('lease-wait reports', () => registerLeaseWaitTests(suite))
    if (options.listing) describe('listing tasks by status', () => registerListingTests(suite))
  })
}
