/**
 * The behaviour every hybrid index of a publication keeps (the in-memory `HybridSearch` of a
 * publication and `PostgresKnowledgeIndex` alike), with any test runner.
 */

import { AgentCoreError } from '@agent-core/core'
import type {
  KnowledgeFilter,
  KnowledgeMaterial,
  KnowledgePassage,
  KnowledgePublication,
} from '@agent-core/kits/knowledge'
import type { Embedder, HybridSearchHit } from '@agent-core/kits/search'
import { assert } from './assert.js'
import { type KnowledgeConformanceRunner, rejects } from './store-conformance.js'

/**
 * A request of the search conformance suite: the fields both indexes take, with a declared filter.
 * @example
 * ```ts
 * import type { KnowledgeSearchConformanceRequest } from '@agent-core/kits/knowledge/testing'
 * const request: KnowledgeSearchConformanceRequest = { query: 'manager', limit: 3, filter: { metadata: { lang: 'en' } } }
 * ```
 */
export interface KnowledgeSearchConformanceRequest {
  readonly query: string
  readonly limit: number
  readonly mode?: 'hybrid' | 'text' | 'vector' | undefined
  readonly filter?: KnowledgeFilter | undefined
  readonly snippetChars?: number | undefined
}

/**
 * What the index factory of {@link describeKnowledgeSearchConformance} hands to each test: a
 * publication to publish and retract through, and the search under test over what it published.
 * @example
 * ```ts
 * import { createMemoryKnowledgeStore, Knowledge, knowledgeFilterPredicate } from '@agent-core/kits/knowledge'
 * import type { KnowledgeSearchHarness } from '@agent-core/kits/knowledge/testing'
 * const publication = Knowledge.defineKnowledgePublication({ id: 'docs', store: createMemoryKnowledgeStore() })
 * const harness: KnowledgeSearchHarness = {
 *   publication,
 *   search: ({ filter, ...request }) =>
 *     publication.search({ ...request, ...(filter ? { filter: knowledgeFilterPredicate(filter) } : {}) }),
 * }
 * ```
 */
export interface KnowledgeSearchHarness {
  /** Publishes and retracts the suite's materials (its embedder is the one `open` was given). */
  readonly publication: KnowledgePublication
  /** The search under test, over the publication's passages. */
  search(request: KnowledgeSearchConformanceRequest): Promise<readonly HybridSearchHit<KnowledgePassage>[]>
  /** Releases what the harness opened. */
  readonly close?: (() => unknown) | undefined
}

/**
 * Options of {@link describeKnowledgeSearchConformance}.
 * @example
 * ```ts no-run
 * import { describe, it } from 'node:test'
 * import { createMemoryKnowledgeStore, Knowledge, knowledgeFilterPredicate } from '@agent-core/kits/knowledge'
 * import type { KnowledgeSearchConformanceOptions } from '@agent-core/kits/knowledge/testing'
 * const options: KnowledgeSearchConformanceOptions = {
 *   describe,
 *   it,
 *   name: 'in-memory index',
 *   open: async ({ embedder }) => {
 *     const publication = Knowledge.defineKnowledgePublication({ id: 'docs', store: createMemoryKnowledgeStore(), embedder })
 *     return { publication, search: ({ filter, ...r }) => publication.search({ ...r, ...(filter ? { filter: knowledgeFilterPredicate(filter) } : {}) }) }
 *   },
 * }
 * ```
 */
export interface KnowledgeSearchConformanceOptions extends KnowledgeConformanceRunner {
  readonly name: string
  /** A harness over an empty publication whose embedder is `embedder`. */
  readonly open: (setup: { readonly embedder: Embedder }) => Promise<KnowledgeSearchHarness>
}

/**
 * The suite's corpus: four documents in two folders, two languages, tags.
 * @example
 * ```ts
 * import { conformanceMaterials } from '@agent-core/kits/knowledge/testing'
 * const ids = conformanceMaterials.map((material) => material.id)
 * ```
 */
export const conformanceMaterials: readonly KnowledgeMaterial[] = Object.freeze([
  {
    id: 'guides/restore.md',
    title: 'Restore',
    text: '# Snapshots\n\nRestore a snapshot with restore().\n\n## Schedule\n\nSnapshots are taken nightly at two.\n',
    metadata: { lang: 'en', tags: ['ops', 'backup'] },
  },
  {
    id: 'guides/leave.md',
    title: 'Leave',
    text: '# Leave\n\nAsk your manager two weeks ahead.\n',
    metadata: { lang: 'en', tags: ['hr'] },
  },
  {
    id: 'notes/urlaub.md',
    text: '# Urlaub\n\nFrage deine Managerin zwei Wochen vorher.\n',
    metadata: { lang: 'de', tags: ['hr'] },
  },
  { id: 'notes/kitchen.md', text: 'Bananas are yellow. Apples are red.' },
])

/**
 * A deterministic embedder of letter and bigram counts (16 dimensions): texts that share words get
 * close vectors, so vector rankings are meaningful and the same on every engine.
 * @example
 * ```ts
 * import { conformanceEmbedder } from '@agent-core/kits/knowledge/testing'
 * const [vector] = await conformanceEmbedder().embed(['Apples are red.'], {})
 * console.log(vector?.length) // 16
 * ```
 */
export function conformanceEmbedder(): Embedder {
  return {
    identity: 'agent-core/conformance-letters',
    dimensions: 16,
    async embed(texts) {
      return texts.map((text) => {
        const out = new Array<number>(16).fill(0.01)
        const lower = text.toLowerCase()
        for (let i = 0; i < lower.length; i++) {
          const c = lower.charCodeAt(i)
          if (c < 97 || c > 122) continue
          out[c % 16]! += 1
          const next = lower.charCodeAt(i + 1)
          if (next >= 97 && next <= 122) out[(c * 31 + next) % 16]! += 0.5
        }
        return out
      })
    },
  }
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    const x = Math.fround(a[i]!)
    const y = Math.fround(b[i]!)
    dot += x * y
    na += x * x
    nb += y * y
  }
  return dot / Math.sqrt(na * nb)
}

/** Checks what holds for every hit list: scores non-increasing, contributions well formed, text first. */
function assertWellFormed(hits: readonly HybridSearchHit<KnowledgePassage>[], what: string): void {
  for (let i = 0; i < hits.length; i++) {
    const hit = hits[i]!
    assert.equal(hit.id, hit.document.id, `${what}: hit ${i} id`)
    assert.ok(Number.isFinite(hit.score) && hit.score > 0, `${what}: hit ${i} score`)
    if (i > 0) assert.ok(hits[i - 1]!.score >= hit.score, `${what}: scores are not in order at ${i}`)
    assert.ok(hit.contributions.length >= 1, `${what}: hit ${i} has contributions`)
    if (hit.contributions.length === 2) assert.equal(hit.contributions[0]!.sourceId, 'text')
    for (const part of hit.contributions) {
      assert.ok(Number.isSafeInteger(part.rank) && part.rank >= 1, `${what}: rank`)
      assert.ok(Math.abs(part.contribution - part.weight / (60 + part.rank)) < 1e-12, `${what}: contribution`)
    }
    if (hit.snippet !== undefined) {
      assert.equal(hit.snippet.text, hit.document.text.slice(hit.snippet.start, hit.snippet.end))
      for (const range of hit.snippet.highlights)
        assert.ok(range.start >= hit.snippet.start && range.end <= hit.snippet.end, `${what}: highlight`)
    }
  }
  assert.equal(new Set(hits.map((hit) => hit.id)).size, hits.length, `${what}: a passage appears twice`)
}

const documentsOf = (hits: readonly HybridSearchHit<KnowledgePassage>[]) =>
  hits.map((hit) => hit.document.documentId)

/**
 * Registers, with any test runner's `describe` and `it`, the behaviour a publication's hybrid index
 * keeps whatever engine runs it: lookups decided by text, OR-ranked text matches with title and heading
 * boosts, vector rankings by cosine similarity (checked against an exact computation), declared filters,
 * limits, snippets and contributions, new revisions and retractions seen at once, and typed errors.
 * @example
 * ```ts no-run
 * import { describe, it } from 'node:test'
 * import { createMemoryKnowledgeStore, Knowledge, knowledgeFilterPredicate } from '@agent-core/kits/knowledge'
 * import { describeKnowledgeSearchConformance } from '@agent-core/kits/knowledge/testing'
 *
 * describeKnowledgeSearchConformance({
 *   describe,
 *   it,
 *   name: 'in-memory index',
 *   open: async ({ embedder }) => {
 *     const publication = Knowledge.defineKnowledgePublication({ id: 'docs', store: createMemoryKnowledgeStore(), embedder })
 *     return { publication, search: ({ filter, ...r }) => publication.search({ ...r, ...(filter ? { filter: knowledgeFilterPredicate(filter) } : {}) }) }
 *   },
 * })
 * ```
 */
export function describeKnowledgeSearchConformance(options: KnowledgeSearchConformanceOptions): void {
  const { describe, it, name, open } = options
  const test = (
    title: string,
    body: (harness: KnowledgeSearchHarness, embedder: Embedder) => Promise<void>,
  ) =>
    it(title, async () => {
      const embedder = conformanceEmbedder()
      const harness = await open({ embedder })
      try {
        await harness.publication.publish({ materials: conformanceMaterials })
        await body(harness, embedder)
      } finally {
        await harness.close?.()
      }
    })

  describe(`${name}: knowledge search conformance`, () => {
    test('a lookup is decided by text: the passage holding the identifier comes first', async ({
      search,
    }) => {
      const hits = await search({ query: 'restore()', limit: 3 })
      assertWellFormed(hits, 'restore()')
      assert.equal(hits[0]?.id, 'guides/restore.md@1#1')
      assert.deepStrictEqual(hits[0]?.contributions.map((part) => [part.sourceId, part.rank]).slice(0, 1), [
        ['text', 1],
      ])
    })

    test('text mode finds the passages holding a word, with terms, matches and a highlighted snippet', async ({
      search,
    }) => {
      const hits = await search({ query: 'bananas', limit: 10, mode: 'text' })
      assertWellFormed(hits, 'bananas')
      assert.deepStrictEqual(
        hits.map((hit) => hit.id),
        ['notes/kitchen.md@1#1'],
      )
      const [hit] = hits
      assert.deepStrictEqual(
        hit?.contributions.map((part) => part.sourceId),
        ['text'],
      )
      assert.ok(hit?.terms.includes('banana'), `terms: ${JSON.stringify(hit?.terms)}`)
      assert.ok(hit?.snippet?.text.includes('Bananas'))
      const highlighted = hit?.snippet?.highlights.map((range) =>
        hit.document.text.slice(range.start, range.end),
      )
      assert.deepStrictEqual(highlighted, ['Bananas'])
      assert.deepStrictEqual(await search({ query: 'zebra', limit: 10, mode: 'text' }), [])
    })

    test('text terms are ORed and a passage holding more of them ranks first; titles and headings lift', async ({
      search,
    }) => {
      const both = await search({ query: 'snapshot nightly', limit: 10, mode: 'text' })
      assertWellFormed(both, 'snapshot nightly')
      assert.deepStrictEqual(
        both.map((hit) => hit.id),
        ['guides/restore.md@1#2', 'guides/restore.md@1#1'],
      )
      const leave = await search({ query: 'leave', limit: 10, mode: 'text' })
      assert.equal(leave[0]?.document.documentId, 'guides/leave.md')
    })

    test('vector mode ranks by cosine similarity, as an exact computation does', async ({
      search,
      publication,
    }, embedder) => {
      const query = 'Bananas are yellow. Apples are red.'
      const hits = await search({ query, limit: 10, mode: 'vector' })
      assertWellFormed(hits, 'vector')
      const [queryVector] = (await embedder.embed([query], {})) as number[][]
      const passages: KnowledgePassage[] = []
      for (const document of await publication.list()) {
        for (let n = 1; n <= document.passageCount; n++) {
          const passage = await publication.passage(`${document.id}@${document.revision}#${n}`)
          if (passage !== undefined) passages.push(passage)
        }
      }
      assert.equal(hits.length, passages.length, 'every passage with a vector is a candidate')
      const texts = passages.map((p) =>
        [p.title, p.headingPath.length > 0 ? p.headingPath.join(' > ') : undefined, p.text]
          .filter((part) => part !== undefined && part.trim() !== '')
          .join('\n\n'),
      )
      const vectors = (await embedder.embed(texts, {})) as number[][]
      const exact = new Map(passages.map((p, i) => [p.id, cosine(queryVector!, vectors[i]!)]))
      for (const hit of hits) {
        const part = hit.contributions[0]!
        assert.equal(part.sourceId, 'vector')
        assert.ok(
          Math.abs(part.score - exact.get(hit.id)!) < 1e-4,
          `cosine of ${hit.id}: ${part.score} vs ${exact.get(hit.id)}`,
        )
      }
      // The vector ranks follow the exact order (the fused order also lifts passages of one document).
      const order = [...exact.entries()]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .map(([id]) => id)
      assert.equal(order[0], 'notes/kitchen.md@1#1')
      const byRank = new Map(hits.map((hit) => [hit.contributions[0]!.rank, hit.id]))
      for (let rank = 1; rank <= 3; rank++)
        assert.equal(byRank.get(rank), order[rank - 1], `vector rank ${rank}`)
    })

    test('hybrid mode fuses both rankings', async ({ search }) => {
      const hits = await search({ query: 'who do I ask about two weeks of leave?', limit: 4 })
      assertWellFormed(hits, 'hybrid')
      const leave = hits.findIndex((hit) => hit.document.documentId === 'guides/leave.md')
      assert.ok(leave >= 0 && leave <= 1, `the leave passage is among the first two: ${leave}`)
      assert.deepStrictEqual(
        hits[leave]?.contributions.map((part) => [part.sourceId, part.rank]),
        [
          ['text', 1],
          ['vector', 1],
        ],
      )
      assert.ok(hits.length <= 4)
    })

    test('declared filters keep only what they name', async ({ search }) => {
      const all = async (filter: KnowledgeFilter) =>
        new Set(documentsOf(await search({ query: 'manager two weeks snapshot bananas', limit: 20, filter })))
      assert.deepStrictEqual(
        await all({ documentIdPrefix: 'notes/' }),
        new Set(['notes/urlaub.md', 'notes/kitchen.md']),
      )
      assert.deepStrictEqual(
        await all({ metadata: { tags: 'hr' } }),
        new Set(['guides/leave.md', 'notes/urlaub.md']),
      )
      assert.deepStrictEqual(await all({ metadata: { lang: ['de'] } }), new Set(['notes/urlaub.md']))
      assert.deepStrictEqual(
        await all({ metadata: { lang: 'en', tags: ['backup', 'nope'] } }),
        new Set(['guides/restore.md']),
      )
      assert.deepStrictEqual(await all({ documentIds: ['notes/kitchen.md'] }), new Set(['notes/kitchen.md']))
      assert.deepStrictEqual(await all({ metadata: { missing: null } }), new Set())
      assert.deepStrictEqual(await all({}), new Set(conformanceMaterials.map((m) => m.id)))
    })

    test('limits: at most limit hits, none for 0; snippetChars 0 leaves snippets out', async ({ search }) => {
      assert.deepStrictEqual(await search({ query: 'snapshot', limit: 0 }), [])
      const one = await search({ query: 'snapshot', limit: 1 })
      assert.equal(one.length, 1)
      const bare = await search({ query: 'snapshot', limit: 2, snippetChars: 0 })
      assert.ok(bare.every((hit) => hit.snippet === undefined))
      const short = await search({ query: 'nightly', limit: 1, snippetChars: 12, mode: 'text' })
      assert.ok((short[0]?.snippet?.text.length ?? 0) <= 12)
    })

    test('a new revision and a retraction are seen by the next search', async ({ search, publication }) => {
      await publication.publish({ materials: [{ id: 'notes/kitchen.md', text: 'Cherries are dark.' }] })
      assert.deepStrictEqual(await search({ query: 'bananas', limit: 5, mode: 'text' }), [])
      assert.deepStrictEqual(
        (await search({ query: 'cherries', limit: 5, mode: 'text' })).map((hit) => hit.id),
        ['notes/kitchen.md@2#1'],
      )
      await publication.retract({ ids: ['guides/leave.md'] })
      const hits = await search({ query: 'manager weeks leave', limit: 10 })
      assert.ok(!documentsOf(hits).includes('guides/leave.md'))
    })

    test('refuses malformed requests with typed errors', async ({ search }) => {
      const typed = (e: unknown) => AgentCoreError.isInstance(e)
      const bad: unknown[] = [
        { query: 5, limit: 1 },
        { query: 'x', limit: -1 },
        { query: 'x', limit: Number.NaN },
        { query: 'x', limit: 1, mode: 'fuzzy' },
        { query: 'x', limit: 1, filter: { nope: 1 } },
        { query: 'x', limit: 1, filter: { metadata: { lang: { en: true } } } },
        { query: 'x', limit: 1, filter: { documentIds: 'a.md' } },
      ]
      for (const [i, request] of bad.entries())
        await rejects(
          () => search(request as KnowledgeSearchConformanceRequest),
          typed,
          `malformed request #${i}`,
        )
    })
  })
}
