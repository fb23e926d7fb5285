/**
 * The conformance suite of durable stores: {@link describeDurableStoreConformance} registers, with any test
 * runner's `describe` and `it` (vitest, `node:test`, jest, mocha), the tests a `DurableStore` must pass:
 * the contract's `exclusive`, `load` and `save`, real durable tasks run through the store, and each
 * capability the store declares (version fencing, lease-wait reports, listing by status, signals). Run it
 * on your own store the way the memory, SQLite and PostgreSQL stores of this kit are tested. It imports no
 * test framework; assertions use `node:assert/strict`.
 *
 * @example
 * ```ts no-run
 * import { describe, it } from 'node:test'
 * import { createMemoryDurableStore } from '@agent-core/kits/durable'
 * import { describeDurableStoreConformance } from '@agent-core/kits/durable/testing'
 *
 * describeDurableStoreConformance({
 *   describe,
 *   it,
 *   name: 'memory store',
 *   open: async () => {
 *     const store = createMemoryDurableStore()
 *     return { store, writeRaw: async (taskId, text) => void store.records.set(taskId, { text, version: 1 }) }
 *   },
 *   fencing: true,
 *   reportsLeaseWaits: true,
 *   listing: true,
 *   honoursSignal: true,
 * })
 * ```
 *
 * @module
 */
export {
  type DurableConformanceRunner,
  type DurableStoreConformanceOptions,
  type DurableStoreHarness,
  describeDurableStoreConformance,
} from './conformance.js'
export { sampleCheckpoint } from './support.js'
