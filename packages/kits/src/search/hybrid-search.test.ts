import {
  AbortedError,
  AgentCoreError,
  DuplicateIdError,
  type InvalidInputError,
  InvalidOutputError,
  InvalidStateError,
} from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { deepGarbage } from '../testing/garbage.js'
import {
  type Embedder,
  EmbeddingError,
  englishAnalyzer,
  HybridSearch,
  type HybridSearchOptions,
  looksExact,
  reciprocalRankFusion,
  standardAnalyzer,
  TextSearch,
  VectorSearch,
} from './index.js'

interface Passage {
  id: string
  title: string
  headings?: string[]
  text: string
  version?: number
}

/**
 * A deterministic toy embedder: each word (after English analysis) adds a fixed pseudo-random direction,
 * so texts that share words point alike. It counts the texts it embeds.
 */
class WordEmbedder implements Embedder {
  readonly identity = 'words-16'
  readonly dimensions = 16
  readonly maxBatch = 4
  calls = 0
  texts: string[] = []
  delayMs = 0
  failWith: unknown
  async embed(texts: readonly string[]): Promise<number[][]> {
    this.calls++
    this.texts.push(...texts)
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs))
    if (this.failWith !== undefined) throw this.failWith
    return texts.map((text) => embedWords(text))
  }
}

function embedWords(text: string): number[] {
  const vector = new Array(16).fill(0.01)
  for (const term of englishAnalyzer.analyze(text)) {
    let h = 2166136261
    for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 16777619)
    for (let d = 0; d < 16; d++) {
      h = Math.imul(h ^ (h >>> 13), 0x5bd1e995)
      vector[d] += ((h >>> 0) / 4294967296) * 2 - 1
    }
  }
  return vector
}

const corpus: Passage[] = [
  {
    id: 'snap',
    title: 'Snapshots',
    headings: ['Search kit'],
    text: 'Restore a snapshot with restore(). A snapshot carries a fingerprint.',
  },
  {
    id: 'filter',
    title: 'Filters',
    headings: ['Search kit'],
    text: 'A filter answers true or false, synchronously.',
  },
  {
    id: 'table',
    title: 'Tables',
    headings: ['Controls'],
    text: 'Use sap.m.Table for responsive tables with growing lists.',
  },
  {
    id: 'build',
    title: 'Building',
    headings: ['Tooling'],
    text: 'Run npm run build to bundle the app into dist.',
  },
  {
    id: 'deploy',
    title: 'Deploying',
    headings: ['Tooling'],
    text: 'Deployment to Cloud Foundry uses the cf CLI and a manifest.',
  },
]

function options(
  embedder?: Embedder,
  extra: Partial<HybridSearchOptions<Passage>> = {},
): HybridSearchOptions<Passage> {
  return {
    indexRevision: 'docs-v1',
    fields: ['title', 'headings', 'text'],
    boost: { title: 3, headings: 2 },
    ...(embedder ? { embedder } : {}),
    ...extra,
  }
}

async function filled(embedder?: Embedder): Promise<HybridSearch<Passage>> {
  const index = new HybridSearch<Passage>(options(embedder))
  await index.upsert(corpus)
  return index
}

/** The options of {@link options} for passages that also name their file. */
function filedOptions(embedder: Embedder): HybridSearchOptions<Passage & { file: string }> {
  return {
    indexRevision: 'docs-v1',
    fields: ['title', 'headings', 'text'],
    boost: { title: 3, headings: 2 },
    embedder,
  }
}

/** Reference: the query's identifier parts that are not also words of it, at weight 0.25. */
/** How a lookup is ranked by default (`lookupRanking: "flat"`): no field boosts, BM25 b = 0.5. */
function flatLookup(query: string): { boost?: Record<string, never>; bm25?: { b: number } } {
  return looksExact(query) ? { boost: {}, bm25: { b: 0.5 } } : {}
}

function identifierParts(query: string): Record<string, number> {
  const words = new Set<string>()
  const parts = new Set<string>()
  for (const token of englishAnalyzer.tokenize(query)) {
    const terms = englishAnalyzer.terms(token)
    if (terms.length > 1) {
      words.add(terms[0]!)
      for (const part of terms.slice(1)) parts.add(part)
    } else for (const term of terms) words.add(term)
  }
  return Object.fromEntries([...parts].filter((part) => !words.has(part)).map((part) => [part, 0.25]))
}

async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run()
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('HybridSearch without an embedder', () => {
  it('is a text index with field boosts, matched terms and snippets', async () => {
    const index = await filled()
    const hits = await index.search({ query: 'how are snapshots restored?', limit: 3 })
    expect(hits[0]).toMatchObject({
      id: 'snap',
      terms: ['snapshot', 'restor'],
      document: corpus[0],
      contributions: [{ sourceId: 'text', rank: 1, weight: 1 }],
    })
    expect(hits[0]!.snippet).toMatchObject({ field: 'text', start: 0 })
    const { snippet } = hits[0]!
    for (const range of snippet!.highlights) {
      expect(['Restore', 'snapshot', 'restore']).toContain(corpus[0]!.text.slice(range.start, range.end))
    }
    // The title boost puts the passage titled "Deploying" first for "deploy".
    expect((await index.search({ query: 'deploy', limit: 1 }))[0]?.id).toBe('deploy')
    expect(await index.search({ query: 'anything', limit: 5, mode: 'vector' })).toEqual([])
  })

  it('cuts the snippet around the best match in a long text', async () => {
    const index = new HybridSearch<Passage>(options())
    const long = `${'Filler words about nothing in particular. '.repeat(30)}The vacuum purges removed terms from the index. ${'More filler text follows here. '.repeat(30)}`
    await index.upsert([{ id: 'long', title: 'Long', text: long }])
    const [hit] = await index.search({ query: 'vacuum purge', limit: 1, snippetChars: 80 })
    expect(hit!.snippet!.text).toContain('vacuum purges')
    expect(hit!.snippet!.text.length).toBeLessThanOrEqual(80)
    expect(long.slice(hit!.snippet!.start, hit!.snippet!.end)).toBe(hit!.snippet!.text)
    expect((await index.search({ query: 'vacuum', limit: 1, snippetChars: 0 }))[0]!.snippet).toBeUndefined()
  })
})

describe('HybridSearch with an embedder', () => {
  it('equals fusing its two parts by hand (property)', async () => {
    const embedder = new WordEmbedder()
    const index = await filled(embedder)
    const text = new TextSearch<Passage>({
      indexRevision: 'docs-v1',
      fields: ['title', 'headings', 'text'],
      analyzer: englishAnalyzer,
      searchOptions: { boost: { title: 3, headings: 2 } },
    })
    text.addAll(corpus)
    const vectors = new VectorSearch<{ id: string }>({ identity: 'words-16', dimensions: 16 })
    vectors.upsertMany(
      corpus.map((p) => ({
        document: { id: p.id },
        vector: embedWords([p.title, p.headings!.join(' / '), p.text].join('\n\n')),
      })),
    )
    const word = fc.constantFrom(
      'snapshot',
      'restore',
      'filter',
      'sap.m.Table',
      'build',
      'npm',
      'deploy',
      'cloud',
      'true',
      '"run build"',
      'tables',
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(word, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 5 }),
        async (words, limit) => {
          const query = words.join(' ')
          const hits = await index.search({ query, limit })
          const textWeight = looksExact(query) ? 60 + 50 + 1 : 1
          const manual = reciprocalRankFusion(
            [
              {
                sourceId: 'text',
                hits: text.search({
                  query,
                  limit: 50,
                  termBoost: identifierParts(query),
                  ...flatLookup(query),
                }),
                weight: textWeight,
              },
              {
                sourceId: 'vector',
                hits: vectors.search({ vector: embedWords(query.replace(/"/g, ' ').trim()), limit: 50 }),
                weight: 1,
              },
            ],
            { limit },
          )
          expect(hits.map((hit) => [hit.id, hit.score])).toEqual(
            manual.map((fused) => [fused.id, fused.score]),
          )
          for (const hit of hits) expect(hit.document).toEqual(corpus.find((p) => p.id === hit.id))
        },
      ),
      { numRuns: 60 },
    )
  })

  it('lets candidates of one source document support each other (property against a reference)', async () => {
    interface Filed extends Passage {
      file: string
    }
    const filed: Filed[] = corpus.flatMap((passage, i) => [
      { ...passage, file: `f${i % 3}` },
      {
        ...passage,
        id: `${passage.id}-2`,
        text: `${passage.text} More about ${passage.title}.`,
        file: `f${(i + 1) % 3}`,
      },
    ])
    const embedder = new WordEmbedder()
    const word = fc.constantFrom(
      'snapshot',
      'restore',
      'filter',
      'build',
      'deploy',
      'cloud',
      'tables',
      'about',
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(word, { minLength: 2, maxLength: 4 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(0, 0.25, 0.5, 2),
        async (words, limit, documentSupport) => {
          const query = `how do I ${words.join(' and ')}`
          const plain = new HybridSearch<Filed>({
            ...filedOptions(embedder),
            fusion: { documentSupport },
          })
          const grouped = new HybridSearch<Filed>({
            ...filedOptions(embedder),
            documentOf: (passage) => passage.file,
            fusion: { documentSupport },
          })
          await plain.upsert(filed)
          await grouped.upsert(filed)
          // Reference: every fused candidate, plus support x the 3 best other candidates of its file.
          const all = await plain.search({ query, limit: 1000, snippetChars: 0 })
          const fileOf = new Map(filed.map((passage) => [passage.id, passage.file]))
          const expected = all
            .map((hit) => {
              const others = all
                .filter((other) => other.id !== hit.id && fileOf.get(other.id) === fileOf.get(hit.id))
                .slice(0, 3)
                .reduce((sum, other) => sum + other.score, 0)
              return { id: hit.id, score: hit.score + documentSupport * others }
            })
            .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
            .slice(0, limit)
          const hits = await grouped.search({ query, limit, snippetChars: 0 })
          expect(hits.map((hit) => hit.id)).toEqual(expected.map((hit) => hit.id))
          for (const [i, hit] of hits.entries()) expect(hit.score).toBeCloseTo(expected[i]!.score, 12)
        },
      ),
      { numRuns: 40 },
    )
  })

  it('does not let documents support their passages unless asked (documentSupport defaults to 0)', async () => {
    const filed = corpus.map((passage, i) => ({ ...passage, file: `f${i % 2}` }))
    const byFile = new HybridSearch<Passage & { file: string }>({
      ...filedOptions(new WordEmbedder()),
      documentOf: (passage) => passage.file,
    })
    const alone = new HybridSearch<Passage & { file: string }>(filedOptions(new WordEmbedder()))
    await byFile.upsert(filed)
    await alone.upsert(filed)
    for (const query of ['restore a snapshot', 'how do I deploy to the cloud', 'filter the tables']) {
      const ranked = async (index: HybridSearch<Passage & { file: string }>) =>
        (await index.search({ query, limit: 5 })).map((hit) => [hit.id, hit.score])
      expect(await ranked(byFile)).toEqual(await ranked(alone))
    }
  })

  it('keeps an exact lookup where the text side puts it, whatever its document', async () => {
    const index = new HybridSearch<Passage & { file: string }>({
      ...filedOptions(new WordEmbedder()),
      documentOf: (passage) => passage.file,
      fusion: { documentSupport: 1 },
    })
    await index.upsert([
      ...corpus.map((passage) => ({ ...passage, file: 'one' })),
      { id: 'other', title: 'Other', text: 'Lists of sap.m.Table rows.', file: 'two' },
    ])
    const plain = await filled(new WordEmbedder())
    const query = 'sap.m.Table'
    expect((await index.search({ query, limit: 3 })).map((hit) => hit.id).slice(0, 1)).toEqual(
      (await plain.search({ query, limit: 1 })).map((hit) => hit.id),
    )
  })

  it('weights the parts of an identifier below the whole identifier on the text side', async () => {
    const index = new HybridSearch<Passage>(options())
    await index.upsert([
      { id: 'whole', title: 'Grouping', text: 'Use UI.FieldGroup once.' },
      {
        id: 'parts',
        title: 'Fields',
        text: 'A field in a group; each field of the group; field, group, ui.',
      },
    ])
    expect((await index.search({ query: 'UI.FieldGroup', limit: 2 })).map((hit) => hit.id)).toEqual([
      'whole',
      'parts',
    ])
    const text = new TextSearch<Passage>({
      indexRevision: 'r',
      fields: ['title', 'text'],
      analyzer: englishAnalyzer,
    })
    text.addAll([
      { id: 'whole', title: 'Grouping', text: 'Use UI.FieldGroup once.' },
      {
        id: 'parts',
        title: 'Fields',
        text: 'A field in a group; each field of the group; field, group, ui.',
      },
    ])
    const [weighted] = text.search({
      query: 'UI.FieldGroup',
      limit: 2,
      termBoost: { field: 0.25, group: 0.25, ui: 0.25 },
    })
    const [unweighted] = text.search({ query: 'UI.FieldGroup', limit: 2 })
    expect(weighted!.score).toBeLessThan(unweighted!.score)
    // A weight must be a positive finite number; the error names the term.
    expect(() => text.search({ query: 'UI.FieldGroup', limit: 1, termBoost: { field: 0 } })).toThrow(
      /request\.termBoost\["field"\]/,
    )
  })

  it('ranks text hits that hold the query words as written above stem-only matches (verbatim, property against a reference)', async () => {
    const vocabulary = [
      'deploy',
      'deploying',
      'deployment',
      'card',
      'cards',
      'table',
      'tables',
      'sap.m.Table',
      'restore',
      'restored',
      'the',
      'of',
    ]
    const word = fc.constantFrom(...vocabulary)
    const passage = fc.record({
      title: fc.array(word, { maxLength: 2 }).map((words) => words.join(' ')),
      text: fc.array(word, { minLength: 1, maxLength: 8 }).map((words) => words.join(' ')),
    })
    await fc.assert(
      fc.asyncProperty(
        fc.array(passage, { minLength: 1, maxLength: 8 }),
        fc.array(word, { minLength: 1, maxLength: 3 }),
        fc.constantFrom(0, 0.5, 1, 3),
        fc.integer({ min: 1, max: 8 }),
        async (passages, words, verbatim, limit) => {
          const documents = passages.map((p, i) => ({ id: `p${i}`, ...p }))
          const query = words.join(' ')
          const index = new HybridSearch<Passage>({
            indexRevision: 'docs-v1',
            fields: ['title', 'text'],
            boost: { title: 3 },
            fusion: { verbatim },
          })
          await index.upsertAll(documents)
          const text = new TextSearch<Passage>({
            indexRevision: 'docs-v1',
            fields: ['title', 'text'],
            analyzer: englishAnalyzer,
            searchOptions: { boost: { title: 3 } },
          })
          text.addAll(documents)
          // Reference: of the query words a hit matches (verbatim, or by its first term), the share
          // its fields hold verbatim (lower-cased tokens), times the weight.
          const queryWords = new Map<string, string>()
          for (const token of englishAnalyzer.tokenize(query)) {
            const terms = englishAnalyzer.terms(token)
            if (terms.length > 0) queryWords.set(token.toLowerCase(), terms[0]!)
          }
          const expected = text
            .search({ query, limit: 50, termBoost: identifierParts(query), ...flatLookup(query) })
            .map((hit) => {
              const document = documents.find((d) => d.id === hit.id)!
              const tokens = new Set(
                englishAnalyzer.tokenize(`${document.title} ${document.text}`).map((t) => t.toLowerCase()),
              )
              const held = [...queryWords.keys()].filter((w) => tokens.has(w)).length
              const found = [...queryWords].filter(
                ([w, term]) => tokens.has(w) || hit.terms.includes(term),
              ).length
              const share = found === 0 ? 0 : held / found
              return { id: hit.id, score: hit.score * (1 + verbatim * share) }
            })
            .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
            .slice(0, limit)
          const hits = await index.search({ query, limit, snippetChars: 0 })
          expect(hits.map((hit) => hit.id)).toEqual(expected.map((hit) => hit.id))
          for (const [i, hit] of hits.entries())
            expect(hit.contributions[0]!.score).toBeCloseTo(expected[i]!.score, 9)
        },
      ),
      { numRuns: 80 },
    )
  })

  it('puts the passage that says "cards" above the one that says "card" with verbatim on (default 0.5)', async () => {
    const documents: Passage[] = [
      { id: 'a-card', title: 'Page', text: 'Each card of the overview page.' },
      { id: 'b-cards', title: 'Page', text: 'The cards of the overview page.' },
    ]
    const on = new HybridSearch<Passage>(options(undefined, { fusion: { verbatim: 1 } }))
    const off = new HybridSearch<Passage>(options(undefined, { fusion: { verbatim: 0 } }))
    const byDefault = new HybridSearch<Passage>(options())
    await on.upsertAll(documents)
    await byDefault.upsertAll(documents)
    await off.upsertAll(documents)
    const ids = async (index: HybridSearch<Passage>) =>
      (await index.search({ query: 'overview page cards', limit: 2 })).map((hit) => hit.id)
    expect(await ids(on)).toEqual(['b-cards', 'a-card'])
    expect(await ids(byDefault)).toEqual(['b-cards', 'a-card'])
    // Without it both match the same stems equally, and the tie goes by id.
    expect(await ids(off)).toEqual(['a-card', 'b-cards'])
  })

  it('ranks a lookup by BM25 over all fields alike with b = 0.5 (lookupRanking "flat", the default)', async () => {
    // Every passage of the guide has the identifier in its title; the reference passage uses it.
    const documents: Passage[] = [
      {
        id: 'guide-1',
        title: 'Migrating to macros:FormElement',
        text: 'Why the old form extension is gone.',
      },
      { id: 'guide-2', title: 'Migrating to macros:FormElement', text: 'What changes in the manifest.' },
      {
        id: 'reference',
        title: 'Form building block',
        text: 'Place macros:FormElement elements as children of the form; each macros:FormElement takes a metaPath.',
      },
      { id: 'other', title: 'Tables', text: 'Columns and rows of a table.' },
    ]
    const flat = new HybridSearch<Passage>(options())
    const boosted = new HybridSearch<Passage>(options(undefined, { fusion: { lookupRanking: 'boosted' } }))
    await flat.upsertAll(documents)
    await boosted.upsertAll(documents)
    const query = 'macros:FormElement'
    const ids = async (index: HybridSearch<Passage>) =>
      (await index.search({ query, limit: 3, snippetChars: 0 })).map((hit) => hit.id)
    expect(await ids(flat)).toEqual(['reference', 'guide-1', 'guide-2'])
    expect(await ids(boosted)).toEqual(['guide-1', 'guide-2', 'reference'])
    // "flat" is the text index searched with no boosts and b = 0.5; "boosted" with the index's boosts.
    const text = new TextSearch<Passage>({
      indexRevision: 'docs-v1',
      fields: ['title', 'headings', 'text'],
      analyzer: englishAnalyzer,
    })
    text.addAll(documents)
    const reference = text
      .search({ query, limit: 3, bm25: { b: 0.5 }, termBoost: identifierParts(query) })
      .map((hit) => hit.id)
    expect(await ids(flat)).toEqual(reference)
    // A query that is no lookup keeps the boosts in both.
    const question = 'why is the old form extension gone'
    expect((await flat.search({ query: question, limit: 4 })).map((hit) => hit.id)).toEqual(
      (await boosted.search({ query: question, limit: 4 })).map((hit) => hit.id),
    )
  })

  it('re-adding unchanged documents embeds nothing; only changed texts are embedded (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.array(
            fc.record({
              id: fc.constantFrom('a', 'b', 'c', 'd'),
              text: fc.constantFrom('one', 'two', 'three', ''),
            }),
            { maxLength: 4 },
          ),
          {
            maxLength: 6,
          },
        ),
        async (batches) => {
          const embedder = new WordEmbedder()
          const index = new HybridSearch<Passage>(options(embedder, { fields: ['text'], boost: {} }))
          const current = new Map<string, string>()
          for (const batch of batches) {
            const unique = [...new Map(batch.map((doc) => [doc.id, doc])).values()]
            const expected = unique.filter(
              (doc) => doc.text !== '' && current.get(doc.id) !== doc.text,
            ).length
            const before = embedder.texts.length
            await index.upsert(unique.map((doc) => ({ ...doc, title: '' })))
            expect(embedder.texts.length - before).toBe(expected)
            for (const doc of unique) current.set(doc.id, doc.text)
          }
          const before = embedder.texts.length
          await index.upsert([...current].map(([id, text]) => ({ id, text, title: '' })))
          expect(embedder.texts.length).toBe(before)
          // Restoring a snapshot keeps the hashes: upserting the same documents again embeds nothing.
          const copy = new HybridSearch<Passage>(options(embedder, { fields: ['text'], boost: {} }))
          copy.restore(JSON.parse(JSON.stringify(index.snapshot())))
          await copy.upsert([...current].map(([id, text]) => ({ id, text, title: '' })))
          expect(embedder.texts.length).toBe(before)
        },
      ),
      { numRuns: 80 },
    )
  })

  it('embeds in batches of maxBatch and never sends an empty text', async () => {
    const embedder = new WordEmbedder()
    const index = new HybridSearch<Passage>(options(embedder))
    await index.upsert([...corpus, { id: 'empty', title: '', text: '' }])
    expect(embedder.calls).toBe(2)
    expect(embedder.texts).toHaveLength(5)
    expect(embedder.texts.every((text) => text.trim() !== '')).toBe(true)
    expect(index.size).toBe(6)
  })

  it('makes a batch visible on both sides at once, to concurrent searches (property)', async () => {
    const embedder = new WordEmbedder()
    const index = new HybridSearch<Passage>(options(embedder, { fields: ['text'], boost: {} }))
    const version = (v: number) =>
      ['p1', 'p2', 'p3'].map((id) => ({ id, title: '', version: v, text: `release${v} notes for ${id}` }))
    await index.upsert(version(0))
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 4 }),
        async (v, delay) => {
          embedder.delayMs = delay
          const update = index.upsert(version(v))
          const seen: number[][] = []
          const reads = Array.from({ length: 6 }, async (_, i) => {
            await new Promise((resolve) => setTimeout(resolve, i))
            const hits = await index.search({ query: 'notes', limit: 10 })
            seen.push(hits.map((hit) => hit.document.version!))
            // Text and vector sides hold the same documents: every hit is in both rankings.
            for (const hit of hits)
              expect(hit.contributions.map((c) => c.sourceId)).toEqual(['text', 'vector'])
          })
          await Promise.all([update, ...reads])
          for (const versions of seen) expect(new Set(versions).size).toBe(1)
          expect(
            (await index.search({ query: `release${v}`, limit: 3 })).map((hit) => hit.document.version),
          ).toEqual([v, v, v])
        },
      ),
      { numRuns: 25 },
    )
  })

  it('swaps a revision atomically with update(): removals and upserts land together (property)', async () => {
    const embedder = new WordEmbedder()
    const index = new HybridSearch<Passage>(options(embedder, { fields: ['text'], boost: {} }))
    const revision = (r: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        id: `guide@${r}#${i}`,
        title: '',
        version: r,
        text: `guide passage ${i} rev${r}`,
      }))
    let current = revision(0, 3)
    await index.upsert(current)
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 4 }),
        async (count, delay) => {
          const r = (current[0]?.version ?? 0) + 1
          const next = revision(r, count)
          embedder.delayMs = delay
          const swap = index.update({ remove: current.map((p) => p.id), upsert: next })
          const seen: number[][] = []
          const reads = Array.from({ length: 5 }, async (_, i) => {
            await new Promise((resolve) => setTimeout(resolve, i))
            seen.push(
              (await index.search({ query: 'guide passage', limit: 20 })).map((hit) => hit.document.version!),
            )
          })
          expect(await swap).toBe(current.length)
          await Promise.all(reads)
          for (const versions of seen) expect(new Set(versions).size).toBe(1)
          expect(index.size).toBe(count)
          current = next
        },
      ),
      { numRuns: 20 },
    )
    // A failed embedding leaves the old revision in place.
    embedder.failWith = new Error('down')
    await expect(index.update({ remove: current.map((p) => p.id), upsert: revision(99, 2) })).rejects.toThrow(
      EmbeddingError,
    )
    expect(index.ids()).toEqual(current.map((p) => p.id))
  })

  it('leaves the index unchanged when the embedder fails, with a typed error', async () => {
    const embedder = new WordEmbedder()
    const index = await filled(embedder)
    const before = JSON.stringify(index.snapshot())
    const changed = corpus.map((p) => ({ ...p, text: `${p.text} changed` }))
    embedder.failWith = new Error('model server down')
    const error = await rejection(() => index.upsert(changed))
    expect(EmbeddingError.isInstance(error)).toBe(true)
    expect((error as Error).cause).toBe(embedder.failWith)
    embedder.failWith = new AbortedError('stopped', { details: { point: 'test' } })
    expect(AbortedError.isInstance(await rejection(() => index.upsert(changed)))).toBe(true)
    embedder.failWith = undefined
    // Wrong answers are refused too.
    const wrong: Embedder[] = [
      {
        identity: 'words-16',
        dimensions: 16,
        embed: async (texts) => texts.slice(1).map(() => new Array(16).fill(1)),
      },
      {
        identity: 'words-16',
        dimensions: 16,
        embed: async (texts) => texts.map(() => new Array(15).fill(1)),
      },
      {
        identity: 'words-16',
        dimensions: 16,
        embed: async (texts) => texts.map(() => new Array(16).fill(Number.NaN)),
      },
      { identity: 'words-16', dimensions: 16, embed: async () => 'vectors' as never },
    ]
    for (const bad of wrong) {
      const other = new HybridSearch<Passage>(options(bad))
      expect(InvalidOutputError.isInstance(await rejection(() => other.upsert(corpus)))).toBe(true)
      expect(other.size).toBe(0)
    }
    const controller = new AbortController()
    controller.abort()
    expect(
      AbortedError.isInstance(await rejection(() => index.upsert(changed, { signal: controller.signal }))),
    ).toBe(true)
    expect(JSON.stringify(index.snapshot())).toBe(before)
    // A query that cannot be embedded is a typed error; the text side still answers on request.
    embedder.failWith = new Error('down again')
    expect(
      EmbeddingError.isInstance(await rejection(() => index.search({ query: 'snapshot', limit: 2 }))),
    ).toBe(true)
    expect((await index.search({ query: 'snapshot', limit: 2, mode: 'text' }))[0]?.id).toBe('snap')
  })

  it('leans on the text side for identifiers and quoted phrases', async () => {
    const index = await filled(new WordEmbedder())
    for (const query of [
      'sap.m.Table',
      '"run build"',
      'getEmbeddingsPath',
      'manifest.json',
      'npm_config',
      '--watch',
    ]) {
      expect(looksExact(query), query).toBe(true)
    }
    expect(looksExact('filter bar selection fields')).toBe(true)
    for (const query of ['how do I restore a snapshot', 'deploy to the cloud', 'what is a table for?'])
      expect(looksExact(query), query).toBe(false)
    const [hit] = await index.search({ query: 'sap.m.Table', limit: 1 })
    expect(hit!.id).toBe('table')
    expect(hit!.contributions[0]).toMatchObject({ sourceId: 'text', rank: 1, weight: 111 })
    const [plain] = await index.search({ query: 'which tables grow?', limit: 1 })
    expect(plain!.contributions[0]).toMatchObject({ sourceId: 'text', weight: 1 })
    // With lookups: 'fuse', a lookup is fused like any other query.
    const fused = new HybridSearch<Passage>(options(new WordEmbedder(), { fusion: { lookups: 'fuse' } }))
    await fused.upsert(corpus)
    expect((await fused.search({ query: 'sap.m.Table', limit: 1 }))[0]!.contributions[0]!.weight).toBe(1)
  })

  it('calls the filter once per document with a copy, and applies it on both sides', async () => {
    const index = await filled(new WordEmbedder())
    const calls: string[] = []
    const hits = await index.search({
      query: 'tooling build deploy',
      limit: 5,
      filter: (doc, id) => {
        calls.push(id)
        ;(doc as Passage).title = 'mutated'
        return doc.headings?.[0] === 'Tooling'
      },
    })
    expect(hits.map((hit) => hit.id).sort()).toEqual(['build', 'deploy'])
    expect(new Set(calls).size).toBe(calls.length)
    expect(index.get('build')!.title).toBe('Building')
  })

  it('removes from both sides at once, and addAll refuses known ids', async () => {
    const embedder = new WordEmbedder()
    const index = await filled(embedder)
    expect(await index.remove(['snap', 'nope'])).toBe(1)
    expect(index.has('snap')).toBe(false)
    expect((await index.search({ query: 'snapshot restore', limit: 5 })).map((hit) => hit.id)).not.toContain(
      'snap',
    )
    expect(DuplicateIdError.isInstance(await rejection(() => index.addAll([corpus[1]!])))).toBe(true)
    expect(DuplicateIdError.isInstance(await rejection(() => index.upsert([corpus[1]!, corpus[1]!])))).toBe(
      true,
    )
    await index.addAll([corpus[0]!])
    expect(index.ids()).toContain('snap')
  })

  it('snapshots both sides with one fingerprint, as JSON and as a binary stream', async () => {
    const embedder = new WordEmbedder()
    const index = await filled(embedder)
    const json = JSON.parse(JSON.stringify(index.snapshot()))
    const fromJson = new HybridSearch<Passage>(options(embedder))
    fromJson.restore(json)
    const fromBytes = new HybridSearch<Passage>(options(embedder))
    await fromBytes.restoreFrom([...index.snapshotChunks()])
    for (const query of ['snapshot', 'sap.m.Table', 'deploy to cloud foundry', 'filters']) {
      const expected = await index.search({ query, limit: 5 })
      expect(await fromJson.search({ query, limit: 5 })).toEqual(expected)
      expect(await fromBytes.search({ query, limit: 5 })).toEqual(expected)
    }
    // Another analyzer, embedder or revision: refused, and the target unchanged.
    const others = [
      new HybridSearch<Passage>(options(embedder, { analyzer: standardAnalyzer })),
      new HybridSearch<Passage>(options(undefined)),
      new HybridSearch<Passage>(
        options({ ...embedder, identity: 'other', embed: embedder.embed.bind(embedder), dimensions: 16 }),
      ),
      new HybridSearch<Passage>(options(embedder, { indexRevision: 'docs-v2' })),
    ]
    for (const other of others) {
      expect(() => other.restore(json)).toThrow(InvalidStateError)
      await expect(other.restoreFrom([...index.snapshotChunks()])).rejects.toThrow(InvalidStateError)
      expect(other.size).toBe(0)
    }
    // A corrupt stream or snapshot is refused.
    const bytes = Buffer.concat([...index.snapshotChunks()])
    bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 1
    await expect(fromBytes.restoreFrom([bytes])).rejects.toThrow(InvalidStateError)
    const lying = { ...json, documents: json.documents.slice(1) }
    expect(() => fromJson.restore(lying)).toThrow(InvalidStateError)
    expect(fromJson.size).toBe(5)
  })

  it('refuses a restore while an update runs, and a snapshot of data JSON cannot carry', async () => {
    const embedder = new WordEmbedder()
    const index = await filled(embedder)
    const snapshot = index.snapshot()
    embedder.delayMs = 20
    const update = index.upsert([{ id: 'new', title: 'New', text: 'fresh text' }])
    expect(() => index.restore(snapshot)).toThrow(InvalidStateError)
    await update
    await index.upsert([{ id: 'dated', title: 'Dated', text: 'x', version: new Date(0) as never }])
    expect(index.get('dated')!.version).toBeInstanceOf(Date)
    expect(() => index.snapshot()).toThrow(/JSON/)
  })
})

describe('HybridSearch bad input', () => {
  it('rejects bad options and requests with typed errors naming the field', async () => {
    const field = (run: () => unknown) => {
      try {
        run()
      } catch (error) {
        return (error as InvalidInputError).details.field
      }
      return undefined
    }
    expect(field(() => new HybridSearch(null as never))).toBe('options')
    expect(field(() => new HybridSearch({ indexRevision: '', fields: ['a'] } as never))).toBe(
      'options.indexRevision',
    )
    expect(field(() => new HybridSearch({ indexRevision: 'r', fields: [] } as never))).toBe('options.fields')
    expect(
      field(() => new HybridSearch({ indexRevision: 'r', fields: ['a'], boost: { b: 2 } } as never)),
    ).toBe('options.boost.b')
    expect(
      field(
        () =>
          new HybridSearch({
            indexRevision: 'r',
            fields: ['a'],
            fusion: { lookupRanking: 'plain' },
          } as never),
      ),
    ).toBe('options.fusion.lookupRanking')
    expect(field(() => new HybridSearch({ indexRevision: 'r', fields: ['a'], embedder: {} } as never))).toBe(
      'options.embedder',
    )
    expect(
      field(() => new HybridSearch({ indexRevision: 'r', fields: ['a'], fusion: { k: -1 } } as never)),
    ).toBe('options.fusion.k')
    for (const verbatim of [-1, Number.NaN, '1'])
      expect(
        field(() => new HybridSearch({ indexRevision: 'r', fields: ['a'], fusion: { verbatim } } as never)),
      ).toBe('options.fusion.verbatim')
    const index = await filled()
    const reason = async (run: () => Promise<unknown>) =>
      ((await rejection(run)) as InvalidInputError).details.field
    expect(await reason(() => index.search({ query: 1 as never, limit: 1 }))).toBe('request.query')
    expect(await reason(() => index.search({ query: 'x', limit: -1 }))).toBe('request.limit')
    expect(await reason(() => index.search({ query: 'x', limit: 1, mode: 'both' as never }))).toBe(
      'request.mode',
    )
    expect(await reason(() => index.upsert([{ id: 'x', title: { nested: 1 } as never, text: '' }]))).toBe(
      'documents[0].title',
    )
    expect(await reason(() => index.upsert([{ title: 't', text: '' } as never]))).toBe('documents[0].id')
  })

  it('only ever throws typed errors on garbage (property)', async () => {
    const garbage = deepGarbage([{ then: () => undefined }], fc.constant(undefined))
    const index = await filled(new WordEmbedder())
    await fc.assert(
      fc.asyncProperty(garbage, garbage, async (a, b) => {
        for (const run of [
          () => new HybridSearch(a as never),
          () => new HybridSearch({ indexRevision: 'r', fields: ['text'], embedder: a, fusion: b } as never),
          () => index.search(a as never),
          () => index.search({ query: 'x', limit: 2, filter: a, mode: b } as never),
          () => index.upsert(a as never),
          () => index.upsert([a] as never),
          () => index.remove(a as never),
          () => index.restore(a as never),
          () => index.restoreFrom(a as never),
        ]) {
          try {
            await run()
          } catch (error) {
            expect(AgentCoreError.isInstance(error), String(error)).toBe(true)
          }
        }
      }),
      { numRuns: 150 },
    )
    expect(index.size).toBe(5)
  })
})
