import { describe, it } from 'vitest'
import { createMemoryKnowledgeStore, Knowledge, knowledgeFilterPredicate } from './index.js'
import { describeKnowledgeSearchConformance, describeKnowledgeStoreConformance } from './testing/index.js'

describeKnowledgeStoreConformance({
  describe,
  it,
  name: 'memory store',
  open: async () => {
    const store = createMemoryKnowledgeStore()
    // The same object is the "restarted" store: memory survives only as long as the object.
    return { store, reopen: () => store }
  },
})

describeKnowledgeSearchConformance({
  describe,
  it,
  name: 'in-memory index',
  open: async ({ embedder }) => {
    const publication = Knowledge.defineKnowledgePublication({
      id: 'docs',
      store: createMemoryKnowledgeStore(),
      embedder,
    })
    return {
      publication,
      search: async ({ filter, ...request }) =>
        publication.search({ ...request, ...(filter ? { filter: knowledgeFilterPredicate(filter) } : {}) }),
    }
  },
})
