import { describe, it } from 'vitest'
import { createMemorySessionStore } from './index.js'
import { describeSessionStoreConformance } from './testing/index.js'

describeSessionStoreConformance({
  describe,
  it,
  name: 'memory store',
  open: async () => ({ store: createMemorySessionStore() }),
})
