/**
 * The conformance suite of session stores: {@link describeSessionStoreConformance} registers, with any test
 * runner's `describe` and `it` (vitest, `node:test`, jest, mocha), the tests a `SessionStore` and
 * `FactStore` must pass: the contract of `read`, `append`, `pop` and `clear` (revisions, compare-and-set
 * writes, `seq`s never reused), writes that never interleave across connections, facts, and real session
 * runs through the store. Run it on your own store the way the memory, SQLite and PostgreSQL stores of this
 * kit are tested. It imports no test framework; assertions use `node:assert/strict`.
 *
 * @example
 * ```ts no-run
 * import { describe, it } from 'node:test'
 * import { createMemorySessionStore } from '@agent-core/kits/memory'
 * import { describeSessionStoreConformance } from '@agent-core/kits/memory/testing'
 *
 * describeSessionStoreConformance({
 *   describe,
 *   it,
 *   name: 'memory store',
 *   open: async () => ({ store: createMemorySessionStore() }),
 * })
 * ```
 *
 * @module
 */
export {
  describeSessionStoreConformance,
  type SessionConformanceRunner,
  type SessionStoreConformanceOptions,
  type SessionStoreHarness,
} from './conformance.js'
