import assert from 'node:assert/strict'
import { InvalidStateError } from '@agent-core/core'
import { TextSearch, VectorSearch } from '@agent-core/kits/search'

const notes = new TextSearch<{ id: string; text: string }>({ indexRevision: 'notes-v1', fields: ['text'] })
notes.addAll([
  { id: 'n1', text: 'buy milk' },
  { id: 'n2', text: 'call the plumber' },
])
// remove waits until the document's terms are purged, so the snapshot holds nothing of it.
assert.equal(await notes.remove('n2'), true)
const saved = JSON.stringify(notes.snapshot())
assert.ok(!saved.includes('plumber'))

const reloaded = new TextSearch<{ id: string; text: string }>({ indexRevision: 'notes-v1', fields: ['text'] })
reloaded.restore(JSON.parse(saved))
assert.equal(reloaded.search({ query: 'milk', limit: 5 })[0]?.id, 'n1')

// Another indexRevision (or other fields) cannot load it: rebuild from the documents instead.
const newer = new TextSearch<{ id: string; text: string }>({ indexRevision: 'notes-v2', fields: ['text'] })
assert.throws(() => newer.restore(JSON.parse(saved)), InvalidStateError)

const vectors = new VectorSearch({ identity: 'embedder-a', dimensions: 2 })
vectors.upsert({ document: { id: 'x' }, vector: [3, 4] })
const vectorSnapshot = JSON.parse(JSON.stringify(vectors.snapshot()))
const copy = new VectorSearch({ identity: 'embedder-a', dimensions: 2 })
copy.restore(vectorSnapshot)
assert.deepEqual(copy.snapshot(), vectors.snapshot())
// Vectors of another model are not comparable: refused.
assert.throws(
  () => new VectorSearch({ identity: 'embedder-b', dimensions: 2 }).restore(vectorSnapshot),
  InvalidStateError,
)
