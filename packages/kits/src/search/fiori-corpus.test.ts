/**
 * Hybrid search on real data: the 778 SAP Fiori documentation chunks of `@sap-ux/fiori-docs-embeddings`
 * with their 384-dimensional all-MiniLM-L6-v2 embeddings (records.jsonl + embeddings.bin, float32 in
 * record order).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { getEmbeddingsPath } from '@sap-ux/fiori-docs-embeddings'
import { beforeAll, describe, expect, it } from 'vitest'
import { type Embedder, HybridSearch, reciprocalRankFusion, TextSearch, VectorSearch } from './index.js'

interface Chunk {
  id: string
  title: string
  content: string
  category: string
  document_id: string
}

const DIMENSIONS = 384
let chunks: Chunk[]
let embeddings: Float32Array
let text: TextSearch<Chunk>
let vectors: VectorSearch<Omit<Chunk, 'content'>>

function embeddingOf(index: number): Float32Array {
  return embeddings.subarray(index * DIMENSIONS, (index + 1) * DIMENSIONS)
}

/** The chunk's long alphabetic words, split like minisearch's default tokenizer (spaces, punctuation). */
function wordsOf(chunk: Chunk): Set<string> {
  return new Set(
    chunk.content
      .toLowerCase()
      .split(/[\n\r\p{Z}\p{P}]+/u)
      .filter((w) => /^[a-z]{6,}$/.test(w)),
  )
}

function documentFrequencies(): Map<string, number> {
  const frequency = new Map<string, number>()
  for (const chunk of chunks)
    for (const word of wordsOf(chunk)) frequency.set(word, (frequency.get(word) ?? 0) + 1)
  return frequency
}

/** Two words of the chunk that no other chunk contains: a distinctive phrase to search for. */
function distinctiveWords(index: number, documentFrequency: ReadonlyMap<string, number>): string[] {
  return [...wordsOf(chunks[index]!)].filter((w) => documentFrequency.get(w) === 1).slice(0, 2)
}

beforeAll(() => {
  const dir = getEmbeddingsPath()
  const meta = JSON.parse(readFileSync(join(dir, 'metadata.json'), 'utf8')) as {
    dimensions: number
    model: string
  }
  expect(meta.dimensions).toBe(DIMENSIONS)
  chunks = readFileSync(join(dir, 'records.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Chunk)
  const bytes = readFileSync(join(dir, 'embeddings.bin'))
  embeddings = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
  expect(embeddings.length).toBe(chunks.length * DIMENSIONS)

  text = new TextSearch<Chunk>({
    indexRevision: 'fiori-docs-1',
    fields: ['title', 'content'],
    storedFields: ['title', 'category'],
    searchOptions: { boost: { title: 2 } },
  })
  text.addAll(chunks)
  vectors = new VectorSearch({ identity: meta.model, dimensions: DIMENSIONS })
  vectors.upsertMany(
    chunks.map(({ id, title, category, document_id }, i) => ({
      document: { id, title, category, document_id },
      vector: embeddingOf(i),
    })),
  )
})

describe('hybrid search over the Fiori documentation chunks', () => {
  it('indexes all 778 chunks', () => {
    expect(chunks.length).toBe(778)
    expect(text.size).toBe(778)
    expect(vectors.size).toBe(778)
  })

  it("a chunk's own embedding finds that chunk first, with similarity 1", () => {
    for (let i = 0; i < chunks.length; i += 7) {
      const [first, second] = vectors.search({ vector: embeddingOf(i), limit: 2 })
      expect(first!.id).toBe(chunks[i]!.id)
      expect(first!.score).toBeCloseTo(1, 5)
      expect(second!.score).toBeLessThan(first!.score)
    }
  })

  it('nearest other neighbours are mostly from the same documentation source', () => {
    let sameCategory = 0
    let samples = 0
    for (let i = 0; i < chunks.length; i += 5) {
      const [, neighbour] = vectors.search({ vector: embeddingOf(i), limit: 2 })
      if (neighbour!.document.category === chunks[i]!.category) sameCategory++
      samples++
    }
    // Over the whole corpus, 82% of nearest neighbours share the category (random pairs: about 30%).
    expect(sameCategory / samples).toBeGreaterThan(0.7)
  })

  it('a text query for a distinctive phrase finds its chunk first', () => {
    const documentFrequency = documentFrequencies()
    let checked = 0
    for (let i = 0; i < chunks.length; i += 11) {
      const words = distinctiveWords(i, documentFrequency)
      if (words.length < 2) continue
      const [first] = text.search({ query: words.join(' '), limit: 3, combineWith: 'AND' })
      expect(first?.id, words.join(' ')).toBe(chunks[i]!.id)
      checked++
    }
    expect(checked).toBeGreaterThan(30)
  })

  it('finds a chunk by its title words, with prefix and fuzzy matching', () => {
    const target = chunks.find(
      (c) => c.title === 'Stacked Bar Micro Chart (UI.Chart + UI.DataPoint Annotations)',
    )!
    expect(text.search({ query: 'stacked bar micro chart', limit: 5 })[0]!.id).toBe(target.id)
    expect(text.search({ query: 'stackd micro chrt', limit: 5, fuzzy: 0.2 })[0]!.id).toBe(target.id)
    expect(
      text.search({ query: 'stack micr', limit: 5, prefix: true, combineWith: 'AND' }).map((h) => h.id),
    ).toContain(target.id)
  })

  it('RRF of the text and vector rankings puts the chunk first', () => {
    const documentFrequency = documentFrequencies()
    let checked = 0
    for (let i = 3; i < chunks.length; i += 13) {
      const words = distinctiveWords(i, documentFrequency)
      if (words.length === 0) continue
      const fused = reciprocalRankFusion(
        [
          { sourceId: 'text', hits: text.search({ query: words.join(' '), limit: 50 }) },
          { sourceId: 'vector', hits: vectors.search({ vector: embeddingOf(i), limit: 50 }) },
        ],
        { limit: 10 },
      )
      expect(fused[0]!.id).toBe(chunks[i]!.id)
      expect(fused[0]!.contributions.map((c) => [c.sourceId, c.rank])).toEqual([
        ['text', 1],
        ['vector', 1],
      ])
      checked++
    }
    expect(checked).toBeGreaterThan(30)
  })

  it('snapshots of both indexes restore to the same answers', () => {
    const textCopy = new TextSearch<Chunk>({
      indexRevision: 'fiori-docs-1',
      fields: ['title', 'content'],
      storedFields: ['title', 'category'],
      searchOptions: { boost: { title: 2 } },
    })
    textCopy.restore(JSON.parse(JSON.stringify(text.snapshot())))
    const vectorCopy = new VectorSearch<Omit<Chunk, 'content'>>({
      identity: vectors.identity,
      dimensions: DIMENSIONS,
    })
    vectorCopy.restore(JSON.parse(JSON.stringify(vectors.snapshot())))
    expect(textCopy.search({ query: 'deploy cloud foundry', limit: 10 })).toEqual(
      text.search({ query: 'deploy cloud foundry', limit: 10 }),
    )
    expect(vectorCopy.search({ vector: embeddingOf(42), limit: 10 })).toEqual(
      vectors.search({ vector: embeddingOf(42), limit: 10 }),
    )
  })

  it('filters and groups on real metadata', () => {
    const hits = vectors.search({
      vector: embeddingOf(0),
      limit: 5,
      filter: (document) => document.category === 'Sapui5',
      groupBy: (document) => document.document_id,
    })
    expect(hits.length).toBe(5)
    expect(hits.every((h) => h.document.category === 'Sapui5')).toBe(true)
    expect(new Set(hits.map((h) => h.document.document_id)).size).toBe(5)
  })

  it('HybridSearch over the chunks finds each chunk from its own text (self-retrieval with the shipped vectors)', async () => {
    // The shipped 384-dimensional vectors cannot embed a new query offline, so the embedder only knows
    // the chunks' own texts: enough to check that both sides of the hybrid index agree on the corpus.
    // The embedder knows each chunk by its opening (a query is embedded without its quote marks, so the
    // lookup ignores them too) and answers the chunk's shipped vector.
    const opening = (chunk: Chunk) => chunk.content.slice(0, 400)
    const key = (text: string) => text.replace(/["\u201c\u201d`]/g, ' ').trim()
    const known = new Map(chunks.map((chunk, i) => [key(opening(chunk)), embeddingOf(i)]))
    const shipped: Embedder = {
      identity: 'all-MiniLM-L6-v2 (shipped)',
      dimensions: DIMENSIONS,
      maxBatch: 128,
      async embed(texts) {
        return texts.map((text) => {
          const vector = known.get(key(text))
          if (!vector) throw new Error('only the shipped chunk texts can be embedded')
          return vector
        })
      },
    }
    const index = new HybridSearch<Chunk>({
      indexRevision: 'fiori-hybrid-1',
      fields: ['title', 'content'],
      boost: { title: 2 },
      embedder: shipped,
      embedText: opening,
    })
    await index.upsert(chunks)
    expect(index.size).toBe(778)
    let first = 0
    let vectorFirst = 0
    let checked = 0
    for (let i = 0; i < chunks.length; i += 37) {
      const [hit] = await index.search({ query: opening(chunks[i]!), limit: 3, snippetChars: 0 })
      if (hit?.id === chunks[i]!.id) first++
      if (hit?.contributions.some((c) => c.sourceId === 'vector' && c.rank === 1)) vectorFirst++
      checked++
    }
    // A few chunks share their opening (generated READMEs), so not every one can be told apart.
    expect(first / checked).toBeGreaterThan(0.9)
    expect(vectorFirst / checked).toBeGreaterThan(0.9)
  }, 120_000)
})
