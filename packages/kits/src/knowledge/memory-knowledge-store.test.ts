import { createMemoryKnowledgeStore } from './index.js'
import { describeKnowledgeStoreConformance } from './testing/store-conformance.js'

describeKnowledgeStoreConformance('memory store', () => {
  const store = createMemoryKnowledgeStore()
  // The same object is the "restarted" store: memory survives only as long as the object.
  return { store, reopen: () => store, close: () => undefined }
})
