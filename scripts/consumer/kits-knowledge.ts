import assert from 'node:assert/strict'
import { createMemoryKnowledgeStore, Knowledge } from '@agent-core/kits/knowledge'

const handbook = Knowledge.defineKnowledgePublication({ id: 'handbook', store: createMemoryKnowledgeStore() })
const leave = {
  id: 'leave.md',
  text: '# Leave\n\nAsk your manager two weeks ahead.\n\n## Sick leave\n\nCall in before nine.\n',
}
const receipt = await handbook.publish({ materials: [leave] })
assert.deepEqual(receipt.published[0]?.passageIds, ['leave.md@1#1', 'leave.md@1#2'])

const [hit] = await handbook.search({ query: 'sick', limit: 3 })
assert.equal(hit?.id, 'leave.md@1#2')
assert.deepEqual(hit?.document.headingPath, ['Leave', 'Sick leave'])

// Publishing the same material again writes nothing.
const again = await handbook.publish({ materials: [leave] })
assert.deepEqual(again.skipped, [{ id: 'leave.md', reason: 'unchanged', revision: 1 }])
