/**
 * Properties of a publication against a reference model: any sequence of publish and retract calls
 * leaves the receipts, the listing, the index and the embedder calls exactly as the model says;
 * publishing the same material twice writes and embeds once; a restart loads without embedding; a
 * revision swap is atomic under concurrent searches.
 */
import { TextBlocks } from '@agent-core/kits/text-blocks'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createMemoryKnowledgeStore,
  defineKnowledgePublication,
  type KnowledgeMaterial,
  type KnowledgeStore,
} from './index.js'
import { createSqliteKnowledgeStore } from './sqlite/index.js'
import { countingEmbedder } from './testing/store-conformance.js'

const SENTENCES = [
  'Common apples grow on trees.',
  'Common pears ripen late.',
  'Common plums are purple.',
  'A common fig needs sun.',
  'Common cherries come early.',
]
const TARGET = 40

const paragraph = fc
  .array(fc.constantFrom(...SENTENCES), { minLength: 1, maxLength: 2 })
  .map((s) => s.join(' '))
const body = fc
  .tuple(
    fc.option(fc.constantFrom('# Common fruit', '# Common trees', '## Common care'), { nil: undefined }),
    fc.array(paragraph, { maxLength: 4 }),
  )
  .map(([heading, paragraphs]) => [...(heading ? [heading] : []), ...paragraphs].join('\n\n'))
const material: fc.Arbitrary<KnowledgeMaterial> = fc.record(
  {
    id: fc.constantFrom('a.md', 'b.md', 'c.md', 'd.md'),
    text: body,
    title: fc.constantFrom('Orchard', 'Garden'),
    metadata: fc.constantFrom({ shelf: 1 }, { shelf: 2 }),
  },
  { requiredKeys: ['id', 'text'] },
)
const command = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .uniqueArray(material, { selector: (m) => m.id, minLength: 0, maxLength: 4 })
      .map((materials) => ({ kind: 'publish' as const, materials })),
  },
  {
    weight: 1,
    arbitrary: fc
      .uniqueArray(fc.constantFrom('a.md', 'b.md', 'c.md', 'e.md'), { maxLength: 3 })
      .map((ids) => ({ kind: 'retract' as const, ids })),
  },
)

interface ModelDocument {
  revision: number
  live: boolean
  key: string
  /** The embedded texts and ids of the live passages. */
  passages: { id: string; embedText: string }[]
}

/** What the model expects a material to become: its passages (the same splitter, settings and embedded text). */
function expectedPassages(m: KnowledgeMaterial, revision: number) {
  if (m.text.trim() === '') return []
  return TextBlocks.passages(m.text, { targetChars: TARGET, overlapChars: 0 })
    .filter((p) => p.text.trim() !== '')
    .map((p) => ({
      id: `${m.id}@${revision}#${p.number}`,
      embedText: [m.title, ...(p.headingPath.length > 0 ? [p.headingPath.join(' > ')] : []), p.text]
        .filter((part) => part !== undefined && part.trim() !== '')
        .join('\n\n'),
    }))
}

const keyOf = (m: KnowledgeMaterial) => JSON.stringify([m.text, m.title ?? null, m.metadata?.shelf ?? null])

function countingStore(store: KnowledgeStore) {
  const counts = { writes: 0 }
  const wrapped: KnowledgeStore = {
    load: (request, options) => store.load(request, options),
    vectors: (request, options) => store.vectors(request, options),
    write: (batch, options) => {
      counts.writes++
      return store.write(batch, options)
    },
  }
  return { store: wrapped, counts }
}

describe('knowledge publication properties', () => {
  it('matches the reference model for any sequence of publish and retract calls', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(command, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(1, 3, 256),
        fc.constantFrom('memory', 'sqlite'),
        async (commands, passagesPerBatch, kind) => {
          const sqlite = kind === 'sqlite' ? new Database(':memory:') : undefined
          const { store, counts } = countingStore(
            sqlite ? createSqliteKnowledgeStore(sqlite) : createMemoryKnowledgeStore(),
          )
          try {
            const embedder = countingEmbedder('toy', 4)
            const options = { id: 'p', store, embedder, passages: { targetChars: TARGET }, passagesPerBatch }
            const publication = defineKnowledgePublication(options)
            const model = new Map<string, ModelDocument>()
            for (const c of commands) {
              const liveTexts = new Set(
                [...model.values()].filter((d) => d.live).flatMap((d) => d.passages.map((p) => p.embedText)),
              )
              const writesBefore = counts.writes
              const embeddedBefore = embedder.texts.length
              if (c.kind === 'publish') {
                const receipt = await publication.publish({ materials: c.materials })
                const published: { id: string; revision: number; previousRevision: number | undefined }[] = []
                const skipped: { id: string; reason: string; revision: number | undefined }[] = []
                const fresh = new Set<string>()
                for (const m of c.materials) {
                  const before = model.get(m.id)
                  if (before?.live && before.key === keyOf(m)) {
                    skipped.push({ id: m.id, reason: 'unchanged', revision: before.revision })
                    continue
                  }
                  const revision = (before?.revision ?? 0) + 1
                  const passages = expectedPassages(m, revision)
                  for (const p of passages) if (!liveTexts.has(p.embedText)) fresh.add(p.embedText)
                  published.push({
                    id: m.id,
                    revision,
                    previousRevision: before?.live ? before.revision : undefined,
                  })
                  model.set(m.id, { revision, live: true, key: keyOf(m), passages })
                }
                expect(
                  receipt.published.map(({ id, revision, previousRevision }) => ({
                    id,
                    revision,
                    previousRevision,
                  })),
                ).toEqual(published)
                expect(receipt.skipped).toEqual(skipped)
                expect(receipt.embedded).toBe(embedder.texts.length - embeddedBefore)
                // Within one transaction, exactly the texts no live passage had are embedded, each once.
                if (receipt.batches <= 1) expect(new Set(embedder.texts.slice(embeddedBefore))).toEqual(fresh)
                expect(embedder.texts.length - embeddedBefore).toBe(
                  new Set(embedder.texts.slice(embeddedBefore)).size,
                )
                // Nothing to change: nothing written, nothing embedded.
                if (published.length === 0)
                  expect([counts.writes - writesBefore, receipt.embedded]).toEqual([0, 0])
              } else {
                const receipt = await publication.retract({ ids: c.ids })
                const retracted: { id: string; revision: number }[] = []
                const skipped: { id: string; reason: string; revision: number | undefined }[] = []
                for (const id of c.ids) {
                  const before = model.get(id)
                  if (before?.live) {
                    retracted.push({ id, revision: before.revision })
                    before.live = false
                  } else skipped.push({ id, reason: 'not-published', revision: before?.revision })
                }
                expect(receipt.retracted.map(({ id, revision }) => ({ id, revision }))).toEqual(retracted)
                expect(receipt.skipped).toEqual(skipped)
                expect(embedder.texts.length).toBe(embeddedBefore)
              }
              await expectIndexMatches(publication, model)
            }
            // A restart over the same store: the same documents and passages, nothing embedded.
            const embedded = embedder.texts.length
            const restarted = defineKnowledgePublication(options)
            expect((await restarted.load()).embedded).toBe(0)
            expect(embedder.texts.length).toBe(embedded)
            expect(await restarted.list()).toEqual(await publication.list())
            await expectIndexMatches(restarted, model)
          } finally {
            sqlite?.close()
          }
        },
      ),
      { numRuns: 60 },
    )
  })

  it('swaps revisions atomically: a concurrent search sees all old or all new passages', async () => {
    // How often a search that ran during a publish saw the old and the new passages: both must happen.
    const observed = { old: 0, new: 0 }
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(material, { selector: (m) => m.id, minLength: 1, maxLength: 3 }),
        fc.uniqueArray(material, { selector: (m) => m.id, minLength: 1, maxLength: 3 }),
        fc.constantFrom<'text' | 'hybrid'>('text', 'hybrid'),
        async (first, second, mode) => {
          const inner = countingEmbedder('toy', 4)
          // A slow embedder, so that searches run while the publication embeds and writes.
          const embedder = {
            ...inner,
            embed: async (texts: readonly string[]) => {
              await new Promise((resolve) => setTimeout(resolve, 2))
              return inner.embed(texts, {})
            },
          }
          const publication = defineKnowledgePublication({
            id: 'p',
            store: createMemoryKnowledgeStore(),
            embedder,
            passages: { targetChars: TARGET },
          })
          await publication.publish({ materials: first })
          const old = new Map((await publication.list()).map((d) => [d.id, d]))
          let done = false
          const publishing = publication.publish({ materials: second }).finally(() => {
            done = true
          })
          // Searches start while the publish runs and overlap it (a hybrid one awaits its query's vector).
          const searches: Promise<string[]>[] = []
          while (!done) {
            searches.push(
              publication
                .search({ query: 'common', limit: 1000, mode })
                .then((hits) => hits.map((h) => h.id)),
            )
            await new Promise((resolve) => setImmediate(resolve))
          }
          const seen = await Promise.all(searches)
          const receipt = await publishing
          const after = new Map((await publication.list()).map((d) => [d.id, d]))
          const changed = new Set(receipt.published.map((p) => p.id))
          for (const ids of seen) {
            // The changed documents all show their old revision, or all their new one (one transaction).
            const revisions = new Set<string>()
            for (const id of changed) {
              const mine = ids.filter((hit) => hit.startsWith(`${id}@`))
              const revision = new Set(mine.map((hit) => hit.slice(id.length + 1).split('#')[0]))
              expect(revision.size).toBeLessThanOrEqual(1)
              const state = [...revision][0] === String(after.get(id)?.revision) ? 'new' : 'old'
              if (mine.length > 0) {
                revisions.add(state)
                observed[state]++
              }
              const expected = state === 'new' ? after.get(id) : old.get(id)
              if (mine.length > 0) expect(mine.length).toBe(expected?.passageCount)
            }
            expect(revisions.size).toBeLessThanOrEqual(1)
          }
        },
      ),
      { numRuns: 25 },
    )
    expect(observed.old).toBeGreaterThan(0)
    expect(observed.new).toBeGreaterThan(0)
  })
})

/** The listing and the index hold exactly the model's live revisions and their passages. */
async function expectIndexMatches(
  publication: ReturnType<typeof defineKnowledgePublication>,
  model: Map<string, ModelDocument>,
): Promise<void> {
  const live = [...model].filter(([, d]) => d.live).sort(([a], [b]) => (a < b ? -1 : 1))
  expect((await publication.list()).map((d) => [d.id, d.revision, d.passageCount])).toEqual(
    live.map(([id, d]) => [id, d.revision, d.passages.length]),
  )
  const expected = live.flatMap(([, d]) => d.passages.map((p) => p.id)).sort()
  const hits = await publication.search({ query: 'common', limit: 1000, mode: 'text' })
  expect(hits.map((h) => h.id).sort()).toEqual(expected)
}
