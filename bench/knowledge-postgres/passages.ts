/**
 * Generated passages with the term statistics of real documentation, for the text side of the
 * PostgreSQL knowledge bench. Source: the 778 SAP Fiori documentation chunks of
 * `@sap-ux/fiori-docs-embeddings` (about 640,000 words, 12,800 distinct lower-case words).
 *
 * - **Text**: a word bigram chain over the whole corpus (each next word drawn from the words that follow
 *   the current one in the corpus, so word frequencies keep the corpus's Zipf curve and neighbouring
 *   words co-occur as in the docs), restarting at a random corpus position at sentence ends. Passage
 *   lengths are drawn from the corpus's own paragraph lengths (20 to 200 words).
 * - **A growing vocabulary**: 1% of the words are identifier variants (`word` + a number drawn from a
 *   Zipf(1) law, `table3`, `manifest17`), so, as in a real corpus, new terms keep appearing as the corpus
 *   grows (Heaps' law) instead of a vocabulary fixed at the source's.
 * - **Titles** (weight A) are real chunk titles; the heading path (weight B) is a real tag of that chunk.
 * - **Planted lookups**: every 1,000th passage carries one unique identifier (`kbref<n>z`), so a lookup
 *   query has exactly one right answer, checked by the bench.
 *
 * Everything is seeded (mulberry32), so two runs generate the same passages and queries.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { getEmbeddingsPath } from '@sap-ux/fiori-docs-embeddings'

/** mulberry32: a small seeded PRNG. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** One generated passage. */
export interface GeneratedPassage {
  readonly title: string
  readonly heading: string
  readonly text: string
  /** The planted unique identifier, when this passage carries one. */
  readonly lookup?: string | undefined
}

/** The source chunks: titles, tags and cleaned text as token ids. */
interface Source {
  readonly titles: string[]
  readonly tags: string[][]
  readonly tokens: string[]
  /** The id of the word at each corpus position. */
  readonly ids: Int32Array
  /** The words, by id. */
  readonly words: string[]
  /** For each word id, the corpus positions that follow it; empty after a sentence end (a restart). */
  readonly follows: Int32Array[]
  readonly lengths: number[]
}

function loadSource(): Source {
  const records = readFileSync(join(getEmbeddingsPath(), 'records.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { title: string; content: string; tags_json: string })
  const titles: string[] = []
  const tags: string[][] = []
  const tokens: string[] = []
  const lengths: number[] = []
  for (const record of records) {
    titles.push(record.title)
    let parsed: unknown
    try {
      parsed = JSON.parse(record.tags_json)
    } catch {
      parsed = []
    }
    tags.push(Array.isArray(parsed) ? parsed.filter((tag): tag is string => typeof tag === 'string') : [])
    const clean = record.content.replace(/\*\*[A-Z ]+\*\*:/g, ' ').replace(/[*#`|>[\](){}]/g, ' ')
    for (const paragraph of clean.split(/\n\s*\n/)) {
      const words = paragraph.split(/\s+/).filter(Boolean)
      if (words.length >= 20 && words.length <= 200) lengths.push(words.length)
      for (const word of words) tokens.push(word)
    }
  }
  const idOf = new Map<string, number>()
  const words: string[] = []
  const ids = new Int32Array(tokens.length)
  for (let i = 0; i < tokens.length; i++) {
    let id = idOf.get(tokens[i]!)
    if (id === undefined) {
      id = words.length
      idOf.set(tokens[i]!, id)
      words.push(tokens[i]!)
    }
    ids[i] = id
  }
  const lists: number[][] = words.map(() => [])
  for (let i = 0; i + 1 < tokens.length; i++) if (!/[.!?:]$/.test(tokens[i]!)) lists[ids[i]!]!.push(i + 1)
  return { titles, tags, tokens, ids, words, follows: lists.map((list) => Int32Array.from(list)), lengths }
}

/** A seeded stream of passages and of the queries to ask them. */
export class PassageGenerator {
  private readonly source = loadSource()
  private readonly random: () => number
  /** The distinct identifier variants generated so far (the vocabulary's growth beyond the source's). */
  readonly variants = new Set<string>()
  private count = 0
  private wordCount = 0

  constructor(seed = 31) {
    this.random = prng(seed)
  }

  /** Distinct words of the source corpus (case kept, punctuation attached, as the generator emits them). */
  get sourceWords(): number {
    return this.source.words.length
  }

  /** Words generated so far. */
  get words(): number {
    return this.wordCount
  }

  private pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)]!
  }

  /** The next passage. */
  next(): GeneratedPassage {
    const n = this.count++
    const source = this.source
    const chunk = Math.floor(this.random() * source.titles.length)
    const length = this.pick(source.lengths)
    const out: string[] = []
    const random = this.random
    let position = Math.floor(random() * source.ids.length)
    for (let i = 0; i < length; i++) {
      const id = source.ids[position]!
      if (random() < 0.01) {
        const stem = source.words[id]!.toLowerCase().replace(/[^a-z]/g, '') || 'item'
        const variant = `${stem}${Math.floor(1 / (random() + 1e-9))}`
        out.push(variant)
        this.variants.add(variant)
      } else out.push(source.words[id]!)
      const follows = source.follows[id]!
      position =
        follows.length === 0
          ? Math.floor(random() * source.ids.length)
          : follows[Math.floor(random() * follows.length)]!
    }
    const lookup = n % 1000 === 999 ? `kbref${n}z` : undefined
    if (lookup !== undefined) out.splice(Math.floor(this.random() * out.length), 0, lookup)
    this.wordCount += out.length
    const tags = source.tags[chunk]!
    return {
      title: source.titles[chunk]!,
      heading: tags.length > 0 ? this.pick(tags) : 'overview',
      text: out.join(' '),
      ...(lookup !== undefined ? { lookup } : {}),
    }
  }

  /** A real chunk title as a query (4 to 12 words: what a user types or an agent asks). */
  titleQuery(): string {
    return this.pick(this.source.titles)
  }

  /** Two content words that follow each other in the corpus (a short keyword query). */
  pairQuery(): string {
    const tokens = this.source.tokens
    for (;;) {
      const i = Math.floor(this.random() * (tokens.length - 1))
      const a = tokens[i]!.replace(/[.,;:!?]+$/, '')
      const b = tokens[i + 1]!.replace(/[.,;:!?]+$/, '')
      if (/^[A-Za-z][a-z]{3,}$/.test(a) && /^[A-Za-z][a-z]{3,}$/.test(b)) return `${a} ${b}`
    }
  }
}
