import assert from 'node:assert/strict'
import { createMemoryDurableStore } from '@agent-core/kits/durable'
import { describeDurableStoreConformance } from '@agent-core/kits/durable/testing'

// The suite registers its tests with any runner's describe and it; here a runner of a few lines.
const tests: { readonly name: string; readonly body: () => Promise<void> }[] = []
describeDurableStoreConformance({
  describe: (_group, body) => body(),
  it: (name, body) => void tests.push({ name, body }),
  name: 'memory store',
  open: async () => {
    const store = createMemoryDurableStore()
    return { store, writeRaw: async (taskId, text) => void store.records.set(taskId, { text, version: 1 }) }
  },
  fencing: true,
  reportsLeaseWaits: true,
  listing: true,
  honoursSignal: true,
})
assert.ok(tests.length > 20, `only ${tests.length} tests registered`)
for (const test of tests) {
  try {
    await test.body()
  } catch (error) {
    assert.fail(`conformance test "${test.name}" failed: ${String(error)}`)
  }
}
