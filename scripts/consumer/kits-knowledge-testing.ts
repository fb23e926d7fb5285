import assert from 'node:assert/strict'
import { createMemoryKnowledgeStore, Knowledge, knowledgeFilterPredicate } from '@agent-core/kits/knowledge'
import {
  describeKnowledgeSearchConformance,
  describeKnowledgeStoreConformance,
} from '@agent-core/kits/knowledge/testing'

// The suites register their tests with any runner's describe and it; here a runner of a few lines.
const tests: { readonly name: string; readonly body: () => Promise<void> }[] = []
const runner = {
  describe: (_group: string, body: () => void) => body(),
  it: (name: string, body: () => Promise<void>) => void tests.push({ name, body }),
}
describeKnowledgeStoreConformance({
  ...runner,
  name: 'memory store',
  open: async () => ({ store: createMemoryKnowledgeStore() }),
})
describeKnowledgeSearchConformance({
  ...runner,
  name: 'in-memory index',
  open: async ({ embedder }) => {
    const publication = Knowledge.defineKnowledgePublication({
      id: 'docs',
      store: createMemoryKnowledgeStore(),
      embedder,
    })
    return {
      publication,
      search: ({ filter, ...request }) =>
        publication.search({ ...request, ...(filter ? { filter: knowledgeFilterPredicate(filter) } : {}) }),
    }
  },
})
assert.ok(tests.length > 15, `only ${tests.length} tests registered`)
for (const test of tests) {
  try {
    await test.body()
  } catch (error) {
    assert.fail(`conformance test "${test.name}" failed: ${String(error)}`)
  }
}
