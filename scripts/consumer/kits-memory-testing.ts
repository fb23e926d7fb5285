import assert from 'node:assert/strict'
import { createMemorySessionStore } from '@agent-core/kits/memory'
import { describeSessionStoreConformance } from '@agent-core/kits/memory/testing'

// The suite registers its tests with any runner's describe and it; here a runner of a few lines.
const tests: { readonly name: string; readonly body: () => Promise<void> }[] = []
describeSessionStoreConformance({
  describe: (_group, body) => body(),
  it: (name, body) => void tests.push({ name, body }),
  name: 'memory store',
  open: async () => ({ store: createMemorySessionStore() }),
})
assert.ok(tests.length > 10, `only ${tests.length} tests registered`)
for (const test of tests) {
  try {
    await test.body()
  } catch (error) {
    assert.fail(`conformance test "${test.name}" failed: ${String(error)}`)
  }
}
