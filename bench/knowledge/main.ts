/**
 * Knowledge publication: what republishing and restarting cost, every figure a ratio measured in the
 * same run. Run with `pnpm bench knowledge`.
 *
 * A synthetic handbook of Markdown documents (deterministic, about 6 passages each) is published to a
 * SQLite file through an embedder that costs real CPU per text (a stand-in for a model: it hashes the
 * text 200 times), then:
 *
 * 1. republished unchanged: target nothing embedded or written, and a small fraction of the first
 *    publish's time (the content hashes decide);
 * 2. republished with 10% of the documents edited in one heading: only the passages under that heading
 *    are embedded again (their embedded text names the heading), about 2% of the texts;
 * 3. restarted (a new publication over the same file, `load()`): target nothing embedded, against the
 *    peer of building the same `HybridSearch` from passages whose vectors are at hand.
 *
 * CPU time of this process (the machine is shared), fastest of three rounds.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Knowledge, type KnowledgeMaterial, type KnowledgePassage } from '@agent-core/kits/knowledge'
import { createSqliteKnowledgeStore } from '@agent-core/kits/knowledge/sqlite'
import { type Embedder, HybridSearch } from '@agent-core/kits/search'
import Database from 'better-sqlite3'
import { cpuMs } from '../search/measure.js'

const DOCUMENTS = Number(process.env.KNOWLEDGE_DOCUMENTS ?? 300)
const DIMENSIONS = 256
const ROUNDS = 3

const WORDS =
  'account approval budget calendar contract customer deadline delivery expense holiday invoice laptop leave manager meeting office onboarding password payroll policy printer project receipt refund report review salary schedule security shipping supplier support travel vacation vendor warehouse'.split(
    ' ',
  )

function rng(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

function handbook(count: number): KnowledgeMaterial[] {
  const next = rng(42)
  const word = () => WORDS[Math.floor(next() * WORDS.length)] as string
  const sentence = () => {
    const words = Array.from({ length: 8 + Math.floor(next() * 10) }, word)
    return `${words.join(' ').replace(/^./, (c) => c.toUpperCase())}.`
  }
  return Array.from({ length: count }, (_, d) => {
    const sections = Array.from({ length: 5 }, (_, s) => {
      const paragraphs = Array.from({ length: 2 }, () => Array.from({ length: 4 }, sentence).join(' '))
      return `## ${word()} ${s + 1}\n\n${paragraphs.join('\n\n')}`
    })
    return {
      id: `policies/${d}.md`,
      title: `Policy ${d}`,
      text: `# Policy ${d}\n\n${sections.join('\n\n')}\n`,
    }
  })
}

/** An embedder that costs CPU per text, like a (very fast) local model, and counts the texts. */
function costlyEmbedder(): Embedder & { texts: number } {
  const embedder = {
    identity: 'bench-hash-v1',
    dimensions: DIMENSIONS,
    maxBatch: 64,
    texts: 0,
    async embed(texts: readonly string[]) {
      embedder.texts += texts.length
      return texts.map((text) => {
        let digest = createHash('sha256').update(text).digest()
        for (let i = 0; i < 200; i++) digest = createHash('sha256').update(digest).digest()
        const out = new Float32Array(DIMENSIONS)
        for (let i = 0; i < DIMENSIONS; i++) out[i] = ((digest[i % 32] as number) - 127.5) / 128
        return out
      })
    },
  }
  return embedder
}

interface Round {
  first: number
  unchanged: number
  edited: number
  load: number
  peer: number
  texts: { first: number; unchanged: number; edited: number; load: number }
  passages: number
}

async function round(materials: KnowledgeMaterial[]): Promise<Round> {
  const folder = mkdtempSync(join(tmpdir(), 'bench-knowledge-'))
  const file = join(folder, 'knowledge.db')
  const database = new Database(file)
  database.pragma('journal_mode = WAL')
  try {
    const embedder = costlyEmbedder()
    const definition = { id: 'handbook', store: createSqliteKnowledgeStore(database), embedder }
    const docs = Knowledge.defineKnowledgePublication(definition)
    await docs.load()

    let start = cpuMs()
    const receipt = await docs.publish({ materials })
    const first = cpuMs() - start
    const texts = { first: embedder.texts, unchanged: 0, edited: 0, load: 0 }

    start = cpuMs()
    const same = await docs.publish({ materials })
    const unchanged = cpuMs() - start
    texts.unchanged = embedder.texts - texts.first
    if (same.batches !== 0) throw new Error('an unchanged republish wrote a batch')

    const edits = materials.map((m, i) =>
      i % 10 === 0 ? { ...m, text: m.text.replace('## ', '## revised ') } : m,
    )
    start = cpuMs()
    await docs.publish({ materials: edits })
    const edited = cpuMs() - start
    texts.edited = embedder.texts - texts.first - texts.unchanged

    // A restart: a new publication over the same file.
    const before = embedder.texts
    const restarted = Knowledge.defineKnowledgePublication(definition)
    start = cpuMs()
    await restarted.load()
    const load = cpuMs() - start
    texts.load = embedder.texts - before

    // The peer: the same index built from passages whose vectors are at hand (no store, no checks).
    const passages: KnowledgePassage[] = []
    for (const d of await restarted.list()) {
      for (let n = 1; n <= d.passageCount; n++) {
        const passage = await restarted.passage(`${d.id}@${d.revision}#${n}`)
        if (passage) passages.push(passage)
      }
    }
    const vectors = new Map<string, Float32Array>()
    const lookup: Embedder = {
      identity: embedder.identity,
      dimensions: DIMENSIONS,
      maxBatch: 4096,
      async embed(batch) {
        return batch.map((text) => {
          let vector = vectors.get(text)
          if (vector === undefined) {
            vector = new Float32Array(DIMENSIONS).fill(0.5)
            vectors.set(text, vector)
          }
          return vector
        })
      },
    }
    const embedText = (p: KnowledgePassage) => [p.title ?? '', p.headingPath.join(' > '), p.text].join('\n\n')
    await lookup.embed(passages.map(embedText), {})
    start = cpuMs()
    const index = new HybridSearch<KnowledgePassage>({
      indexRevision: 'peer',
      fields: ['title', 'headingPath', 'text'],
      embedder: lookup,
      embedText,
    })
    await index.upsertAll(passages)
    const peer = cpuMs() - start
    return { first, unchanged, edited, load, peer, texts, passages: receipt.passageCount }
  } finally {
    database.close()
    rmSync(folder, { recursive: true, force: true })
  }
}

const materials = handbook(DOCUMENTS)
const rounds: Round[] = []
for (let i = 0; i < ROUNDS; i++) rounds.push(await round(materials))
const best = (key: 'first' | 'unchanged' | 'edited' | 'load' | 'peer') =>
  Math.min(...rounds.map((r) => r[key]))
const r = rounds[0] as Round
const ratio = (value: number, base: number) => `${(value / base).toFixed(3)}x`

console.log(
  `\n## Knowledge publication: ${DOCUMENTS} documents, ${r.passages} passages, SQLite file, D = ${DIMENSIONS}`,
)
console.log(`first publish:        ${best('first').toFixed(0)} ms CPU, ${r.texts.first} texts embedded`)
console.log(
  `unchanged republish:  ${best('unchanged').toFixed(1)} ms CPU, ${r.texts.unchanged} embedded, ${ratio(best('unchanged'), best('first'))} of the first publish`,
)
console.log(
  `10% edited:           ${best('edited').toFixed(0)} ms CPU, ${r.texts.edited} embedded (${((100 * r.texts.edited) / r.texts.first).toFixed(1)}% of the texts), ${ratio(best('edited'), best('first'))} of the first publish`,
)
console.log(
  `restart (load):       ${best('load').toFixed(0)} ms CPU, ${r.texts.load} embedded, ${ratio(best('load'), best('first'))} of the first publish; ${ratio(best('load'), best('peer'))} of building the same HybridSearch from vectors at hand (${best('peer').toFixed(0)} ms)`,
)
if (r.texts.unchanged !== 0 || r.texts.load !== 0) {
  console.error('FAIL: an unchanged republish or a restart embedded something')
  process.exit(1)
}
