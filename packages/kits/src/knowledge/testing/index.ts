/**
 * The conformance suites of knowledge stores and indexes, for any test runner (vitest, `node:test`,
 * jest, mocha: `describe` and `it` are passed in; assertions use `node:assert/strict`).
 * {@link describeKnowledgeStoreConformance} registers the tests a `KnowledgeStore` must pass (what it
 * gives back, revisions and whole-batch conflicts, vectors per embedding space, a publication served
 * through it); {@link describeKnowledgeSearchConformance} the behaviour a publication's hybrid index keeps
 * on any engine. Run them on your own store or index the way the memory, SQLite and PostgreSQL ones of
 * this kit are tested.
 *
 * @example
 * ```ts no-run
 * import { describe, it } from 'node:test'
 * import { createMemoryKnowledgeStore } from '@agent-core/kits/knowledge'
 * import { describeKnowledgeStoreConformance } from '@agent-core/kits/knowledge/testing'
 *
 * describeKnowledgeStoreConformance({
 *   describe,
 *   it,
 *   name: 'memory store',
 *   open: async () => ({ store: createMemoryKnowledgeStore() }),
 * })
 * ```
 *
 * @module
 */
export {
  conformanceEmbedder,
  conformanceMaterials,
  describeKnowledgeSearchConformance,
  type KnowledgeSearchConformanceOptions,
  type KnowledgeSearchConformanceRequest,
  type KnowledgeSearchHarness,
} from './search-conformance.js'
export {
  describeKnowledgeStoreConformance,
  type KnowledgeConformanceRunner,
  type KnowledgeStoreConformanceOptions,
  type KnowledgeStoreHarness,
} from './store-conformance.js'
