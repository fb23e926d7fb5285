/**
 * Garbage in, typed errors out: whatever a caller, a store or an embedder gives the knowledge kit, a
 * refusal is an AgentCoreError (or the App's own error, passed through), never a TypeError.
 */
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppError, deepGarbage, typed } from '../testing/garbage.js'
import { createMemoryKnowledgeStore, defineKnowledgePublication, type KnowledgeStore } from './index.js'
import { createSqliteKnowledgeStore } from './sqlite/index.js'
import { countingEmbedder } from './testing/store-conformance.js'

/** A thenable that settles at once, so no call under test can hang on it. */
const settling = { then: (resolve: (value: unknown) => void) => resolve(true) }
const garbage = deepGarbage(
  [0, settling, () => settling, new AbortController().signal, new Float32Array(3), new Map([['x', 1]])],
  fc.sparseArray(fc.anything(), { maxLength: 4 }),
)

/** The valid value, or garbage in its place (mostly valid, to reach the deeper checks). */
const maybe = <T>(valid: T): fc.Arbitrary<unknown> =>
  fc.oneof({ arbitrary: fc.constant(valid), weight: 3 }, { arbitrary: garbage, weight: 1 })

/** Awaits `run`; a throw or rejection must be typed (see `typed`). */
async function typedAsync(run: () => unknown): Promise<void> {
  try {
    await run()
  } catch (error) {
    typed(() => {
      throw error
    })
  }
}

// biome-ignore lint/suspicious/noExplicitAny: garbage is passed through the public API on purpose
type Loose = any

const material = fc.oneof(
  garbage,
  fc.record(
    {
      id: maybe('a.md'),
      text: maybe('# A\n\nSome words.'),
      title: maybe('A'),
      metadata: maybe({ k: [1, 'x'] }),
    },
    { requiredKeys: [] },
  ),
)
const request = fc.oneof(
  garbage,
  fc.record(
    {
      materials: fc.oneof(garbage, fc.array(material, { maxLength: 3 })),
      ids: fc.oneof(garbage, fc.array(maybe('a.md'), { maxLength: 3 })),
      onProgress: maybe(() => undefined),
    },
    { requiredKeys: [] },
  ),
)
const context = fc.oneof(
  garbage,
  fc.record(
    { signal: garbage, app: garbage, now: maybe(() => 1), diagnostics: garbage },
    { requiredKeys: [] },
  ),
)
const searchRequest = fc.oneof(
  garbage,
  fc.record(
    {
      query: maybe('words'),
      limit: maybe(3),
      filter: maybe(() => true),
      mode: maybe('text'),
      signal: garbage,
    },
    { requiredKeys: [] },
  ),
)

/** A store whose answers are garbage (or that throws garbage). */
function garbageStore(load: unknown, vectors: unknown, write: unknown, throws: boolean): KnowledgeStore {
  const answer = (value: unknown) => async () => {
    if (throws) throw value
    return value
  }
  return { load: answer(load), vectors: answer(vectors), write: answer(write) } as Loose
}

describe('knowledge: garbage input', () => {
  it('defineKnowledgePublication refuses any malformed definition with a typed error', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          garbage,
          fc.record(
            {
              id: maybe('docs'),
              store: maybe(createMemoryKnowledgeStore()),
              embedder: fc.oneof(
                garbage,
                fc.record({
                  identity: maybe('e'),
                  dimensions: maybe(3),
                  maxBatch: garbage,
                  embed: maybe(() => []),
                }),
              ),
              passages: fc.oneof(
                garbage,
                fc.record({ targetChars: maybe(50), overlapChars: maybe(5) }, { requiredKeys: [] }),
              ),
              assertMaterial: garbage,
              authorize: garbage,
              passagesPerBatch: maybe(4),
              search: fc.oneof(
                garbage,
                fc.record(
                  { boost: maybe({ title: 2 }), analyzer: garbage, fusion: maybe({ k: 60 }) },
                  { requiredKeys: [] },
                ),
              ),
            },
            { requiredKeys: ['id', 'store'] },
          ),
        ),
        (definition) => {
          typed(() => defineKnowledgePublication(definition as Loose))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('publish, retract, load, list, search and passage refuse garbage with typed errors', async () => {
    await fc.assert(
      fc.asyncProperty(
        request,
        request,
        context,
        searchRequest,
        garbage,
        async (publish, retract, ctx, search, id) => {
          const docs = defineKnowledgePublication({
            id: 'docs',
            store: createMemoryKnowledgeStore(),
            embedder: countingEmbedder(),
            passages: { targetChars: 20 },
          })
          await typedAsync(() => docs.publish(publish as Loose, ctx as Loose))
          await typedAsync(() => docs.publish(publish as Loose))
          await typedAsync(() => docs.retract(retract as Loose, ctx as Loose))
          await typedAsync(() => docs.load(publish as Loose, ctx as Loose))
          await typedAsync(() => docs.list(ctx as Loose))
          await typedAsync(() => docs.search(search as Loose))
          await typedAsync(() => docs.passage(id as Loose))
        },
      ),
      { numRuns: 200 },
    )
  })

  it('a store or an embedder answering garbage gives a typed error', async () => {
    await fc.assert(
      fc.asyncProperty(
        garbage,
        garbage,
        garbage,
        fc.boolean(),
        garbage,
        async (load, vectors, write, throws, vector) => {
          const embedder = {
            identity: 'g',
            dimensions: 3,
            embed: async (texts: readonly string[]) => texts.map(() => vector),
          }
          const fromStore = defineKnowledgePublication({
            id: 'docs',
            store: garbageStore(load, vectors, write, throws),
            embedder: countingEmbedder(),
          })
          await typedAsync(() => fromStore.publish({ materials: [{ id: 'a', text: 'words' }] }))
          await typedAsync(() => fromStore.search({ query: 'words', limit: 2 }))
          const fromModel = defineKnowledgePublication({
            id: 'docs',
            store: createMemoryKnowledgeStore(),
            embedder: embedder as Loose,
          })
          await typedAsync(() => fromModel.publish({ materials: [{ id: 'a', text: 'words' }] }))
          await typedAsync(() => fromModel.search({ query: 'words', limit: 2 }))
        },
      ),
      { numRuns: 200 },
    )
  })

  it('the memory and SQLite stores refuse garbage calls with typed errors', async () => {
    const database = new Database(':memory:')
    const sqlite = createSqliteKnowledgeStore(database)
    try {
      await fc.assert(
        fc.asyncProperty(garbage, garbage, garbage, async (first, second, third) => {
          for (const store of [createMemoryKnowledgeStore(), sqlite]) {
            await typedAsync(() => store.load(first as Loose, second as Loose))
            await typedAsync(() => store.vectors(first as Loose, { signal: new AbortController().signal }))
            await typedAsync(() => store.write(first as Loose, { signal: new AbortController().signal }))
            await typedAsync(() =>
              store.write(
                { publicationId: 'p', space: first, documents: [second], vectors: [third] } as Loose,
                {
                  signal: new AbortController().signal,
                },
              ),
            )
          }
          typed(() => createSqliteKnowledgeStore(first as Loose, second as Loose))
          typed(() => createSqliteKnowledgeStore(database, second as Loose))
        }),
        { numRuns: 200 },
      )
    } finally {
      database.close()
    }
  })

  it('passes the App error of a refusing authorize or assertMaterial through unchanged', async () => {
    const refusal = new AppError('no')
    const docs = defineKnowledgePublication({
      id: 'docs',
      store: createMemoryKnowledgeStore(),
      authorize: () => {
        throw refusal
      },
    })
    await expect(docs.publish({ materials: [{ id: 'a', text: 'x' }] })).rejects.toBe(refusal)
    const checked = defineKnowledgePublication({
      id: 'docs',
      store: createMemoryKnowledgeStore(),
      assertMaterial: () => {
        throw refusal
      },
    })
    await expect(checked.publish({ materials: [{ id: 'a', text: 'x' }] })).rejects.toBe(refusal)
  })
})
