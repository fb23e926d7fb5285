/**
 * The PostgreSQL knowledge index at scale, on PGlite with pgvector (in process; the only pgvector this
 * machine has offline). It loads N generated passages with 384-dimensional vectors through
 * `PostgresKnowledgeStore.write` (one transaction per batch of 1,000 passages, `tsvector`s computed by the
 * server), builds the HNSW index, then measures in the same run: ingest rate, HNSW build time, query
 * latency p50/p95 of HNSW vector search, of the exact scan it replaces, of text search and of hybrid
 * search, and recall@10 of HNSW against the exact scan.
 *
 * Data (seeded, reproducible): `sqrt(N)` cluster centres drawn as Gaussian unit vectors; each passage is
 * its cluster's centre plus Gaussian noise (sigma 0.6 per unit vector) renormalised, and its text is 12
 * words from a 5,000-word synthetic vocabulary, 4 of them from its cluster's topic words. Queries are
 * centres of random clusters plus fresh noise, and for text two topic words.
 *
 * Flags: `--passages N` (default 1,000,000; PGlite keeps the database in WebAssembly memory, so on a
 * small machine run e.g. `--passages 50000`), `--queries Q` (default 100). HNSW
 * queries run with `hnsw.ef_search` 50 (the fusion's candidate window).
 * `pnpm bench knowledge-postgres -- --passages 50000` passes flags through `BENCH_ARGS` too.
 */
import { performance } from 'node:perf_hooks'
import type { KnowledgeDocumentChange } from '@agent-core/kits/knowledge'
import {
  PostgresKnowledgeIndex,
  PostgresKnowledgeStore,
  singleConnectionPool,
} from '@agent-core/kits/knowledge/postgres'
import type { Embedder } from '@agent-core/kits/search'
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite/vector'

const args = [...process.argv.slice(2), ...(process.env.BENCH_ARGS?.split(/\s+/).filter(Boolean) ?? [])]
function flag(name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`)
  if (i < 0) return fallback
  const value = Number(args[i + 1])
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} needs a positive integer`)
  return value
}
const N = flag('passages', 1_000_000)
const QUERIES = flag('queries', 100)
const D = 384
const BATCH = 1_000
const PASSAGES_PER_DOCUMENT = 10

/** mulberry32: a small seeded PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const random = prng(384)
const gaussian = () => Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random())
function unit(values: Float32Array): Float32Array {
  let norm = 0
  for (const x of values) norm += x * x
  norm = Math.sqrt(norm)
  for (let i = 0; i < values.length; i++) values[i]! /= norm
  return values
}
const clusters = Math.max(2, Math.round(Math.sqrt(N)))
const centres = Array.from({ length: clusters }, () => unit(Float32Array.from({ length: D }, gaussian)))
const VOCABULARY = 5_000
const word = (n: number) => `w${n.toString(36)}`
const topic = (cluster: number, k: number) => word((cluster * 7 + k * 131) % VOCABULARY)
const noisy = (centre: Float32Array) => {
  const out = new Float32Array(D)
  const sigma = 0.6 / Math.sqrt(D)
  for (let i = 0; i < D; i++) out[i] = centre[i]! + gaussian() * sigma
  return unit(out)
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
}
async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now()
  const value = await run()
  return { ms: performance.now() - start, value }
}

const queryVectors = new Map<string, Float32Array>()
const embedder: Embedder = {
  identity: 'bench-384',
  dimensions: D,
  async embed(texts) {
    return texts.map((text) => {
      const found = queryVectors.get(text)
      if (found === undefined) throw new Error(`no vector for ${text}`)
      return found
    })
  },
}

console.log(
  `PGlite + pgvector: ${N.toLocaleString('en')} passages, ${D} dimensions, ${clusters} clusters, ${QUERIES} queries`,
)
const opened = await timed(() => PGlite.create({ extensions: { vector } }))
console.log(`PGlite start: ${(opened.ms / 1000).toFixed(1)} s`)
const db = opened.value
const store = new PostgresKnowledgeStore(singleConnectionPool(db))
await store.createSchema({ vectors: 'pgvector' })
const live = { signal: new AbortController().signal }

// ---- ingest --------------------------------------------------------------------------------------------
const ingestStart = performance.now()
let written = 0
let documentNumber = 0
while (written < N) {
  const documents: KnowledgeDocumentChange[] = []
  const vectors: { hash: string; vector: Float32Array }[] = []
  const size = Math.min(BATCH, N - written)
  for (let i = 0; i < size; i += PASSAGES_PER_DOCUMENT) {
    const id = `doc-${documentNumber++}.md`
    const count = Math.min(PASSAGES_PER_DOCUMENT, size - i)
    const passages = Array.from({ length: count }, (_, p) => {
      const n = written + i + p
      const cluster = Math.floor(random() * clusters)
      const words = Array.from({ length: 12 }, (_, w) =>
        w < 4 ? topic(cluster, w) : word(Math.floor(random() * VOCABULARY)),
      )
      const text = `${words.join(' ')}.`
      const hash = `h${n}`
      vectors.push({ hash, vector: noisy(centres[cluster]!) })
      return {
        id: `${id}@1#${p + 1}`,
        documentId: id,
        revision: 1,
        number: p + 1,
        headingPath: [],
        text,
        start: 0,
        end: text.length,
        startLine: 1,
        endLine: 1,
        hash,
      }
    })
    documents.push({
      expectedRevision: 0,
      record: { id, revision: 1, contentHash: id, passageCount: count, publishedAtMs: 1 },
      passages,
    })
  }
  await store.write(
    { publicationId: 'bench', space: { identity: embedder.identity, dimensions: D }, documents, vectors },
    live,
  )
  written += size
  if (written % 50_000 === 0) console.log(`  ${written.toLocaleString('en')} passages`)
}
const ingestSeconds = (performance.now() - ingestStart) / 1000
console.log(
  `ingest: ${(N / ingestSeconds).toFixed(0)} passages/s (${ingestSeconds.toFixed(1)} s, batches of ${BATCH} in one transaction each)`,
)

const index = new PostgresKnowledgeIndex({
  store,
  publicationId: 'bench',
  embedder,
  fusion: { candidates: 50 },
})
const build = await timed(() => index.createVectorIndex({ m: 16, efConstruction: 64 }))
console.log(`HNSW build (m 16, ef_construction 64): ${(build.ms / 1000).toFixed(1)} s`)

// ---- queries -------------------------------------------------------------------------------------------
const latencies = {
  hnsw: [] as number[],
  exact: [] as number[],
  text: [] as number[],
  hybrid: [] as number[],
}
let recall = 0
for (let q = 0; q < QUERIES; q++) {
  const cluster = Math.floor(random() * clusters)
  const text = `query ${q}`
  queryVectors.set(text, noisy(centres[cluster]!))
  const approximate = await timed(() =>
    index.search({ query: text, limit: 10, mode: 'vector', snippetChars: 0 }),
  )
  const exact = await timed(() =>
    index.search({ query: text, limit: 10, mode: 'vector', snippetChars: 0, exact: true }),
  )
  latencies.hnsw.push(approximate.ms)
  latencies.exact.push(exact.ms)
  const truth = new Set(exact.value.map((hit) => hit.id))
  recall += approximate.value.filter((hit) => truth.has(hit.id)).length / Math.max(1, truth.size)
  const words = `${topic(cluster, 0)} ${topic(cluster, 1)}`
  queryVectors.set(words, noisy(centres[cluster]!))
  latencies.text.push((await timed(() => index.search({ query: words, limit: 10, mode: 'text' }))).ms)
  latencies.hybrid.push((await timed(() => index.search({ query: words, limit: 10 }))).ms)
}
recall /= QUERIES
for (const list of Object.values(latencies)) list.sort((a, b) => a - b)
const row = (name: string, list: number[]) =>
  console.log(
    `  ${name.padEnd(28)} p50 ${percentile(list, 0.5).toFixed(1).padStart(8)} ms   p95 ${percentile(list, 0.95).toFixed(1).padStart(8)} ms`,
  )
console.log(`query latency over ${QUERIES} queries (limit 10; ef_search 50):`)
row('vector, HNSW', latencies.hnsw)
row('vector, exact scan', latencies.exact)
row('text (tsvector, ts_rank)', latencies.text)
row('hybrid (RRF in SQL)', latencies.hybrid)
const speedup = percentile(latencies.exact, 0.5) / percentile(latencies.hnsw, 0.5)
console.log(`HNSW vs exact scan, p50: ${speedup.toFixed(1)}x faster`)
console.log(
  `recall@10 of HNSW against the exact scan: ${recall.toFixed(3)} (limit 0.90: ${recall >= 0.9 ? 'PASS' : 'FAIL'})`,
)
await db.close()
if (recall < 0.9) process.exitCode = 1
