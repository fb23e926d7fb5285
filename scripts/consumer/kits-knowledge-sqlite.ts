import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Knowledge } from '@agent-core/kits/knowledge'
import { createSqliteKnowledgeStore } from '@agent-core/kits/knowledge/sqlite'
import type { Embedder } from '@agent-core/kits/search'
import Database from 'better-sqlite3'

// A deterministic letter-count embedder that counts what it embeds.
let embedded = 0
const embedder: Embedder = {
  identity: 'letters-v1',
  dimensions: 26,
  async embed(texts) {
    embedded += texts.length
    return texts.map((text) => {
      const vector = new Float32Array(26).fill(0.01)
      for (const c of text.toLowerCase()) if (c >= 'a' && c <= 'z') vector[c.charCodeAt(0) - 97]! += 1
      return vector
    })
  },
}

const folder = mkdtempSync(join(tmpdir(), 'consumer-knowledge-'))
const file = join(folder, 'knowledge.db')
try {
  const database = new Database(file)
  const docs = Knowledge.defineKnowledgePublication({
    id: 'docs',
    store: createSqliteKnowledgeStore(database),
    embedder,
  })
  await docs.publish({ materials: [{ id: 'bread.md', text: '# Bread\n\nBake it for forty minutes.\n' }] })
  database.close()
  assert.equal(embedded, 1)

  // Another process opens the same file: the corpus and its vectors are there, nothing is embedded again.
  const reopened = new Database(file)
  const restarted = Knowledge.defineKnowledgePublication({
    id: 'docs',
    store: createSqliteKnowledgeStore(reopened),
    embedder,
  })
  assert.deepEqual(await restarted.load(), { publicationId: 'docs', documents: 1, passages: 1, embedded: 0 })
  const [hit] = await restarted.search({ query: 'bake bread', limit: 1, mode: 'text' })
  assert.equal(hit?.document.documentId, 'bread.md')
  reopened.close()
} finally {
  rmSync(folder, { recursive: true, force: true })
}
