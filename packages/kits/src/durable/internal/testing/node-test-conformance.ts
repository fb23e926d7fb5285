/**
 * The store conformance suite under `node:test` instead of vitest: the memory store with every capability,
 * and a contract-shaped App store with none. `testing/testing.test.ts` runs this file with
 * `node --import tsx --conditions=@agent-core/source --test` and checks every test passed.
 */
import { describe, it } from 'node:test'
import { createMemoryDurableStore } from '@agent-core/kits/durable'
import { describeDurableStoreConformance } from '@agent-core/kits/durable/testing'
import { contractStore } from './fixtures.js'

describeDurableStoreConformance({
  describe,
  it,
  name: 'memory store under node:test',
  open: async () => {
    const store = createMemoryDurableStore()
    return { store, writeRaw: async (taskId, text) => void store.records.set(taskId, { text, version: 1 }) }
  },
  fencing: true,
  reportsLeaseWaits: true,
  listing: true,
  honoursSignal: true,
})

describeDurableStoreConformance({
  describe,
  it,
  name: 'contract-shaped store under node:test',
  open: async () => {
    const store = contractStore()
    return { store, writeRaw: async (taskId, text) => void store.rows.set(taskId, text) }
  },
})
