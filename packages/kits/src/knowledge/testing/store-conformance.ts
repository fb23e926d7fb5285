/**
 * The rules every KnowledgeStore keeps, run on the memory, SQLite and PostgreSQL stores alike, with any
 * test runner (`describe` and `it` are passed in; assertions use `node:assert/strict`).
 */

import { AgentCoreError, ConflictError } from '@agent-core/core'
import {
  Knowledge,
  type KnowledgeDocumentChange,
  type KnowledgeEmbeddingSpace,
  type KnowledgePassageRecord,
  type KnowledgeStore,
  type KnowledgeStoreBatch,
} from '@agent-core/kits/knowledge'
import type { Embedder } from '@agent-core/kits/search'
import { assert } from './assert.js'

/**
 * What the store factory of {@link describeKnowledgeStoreConformance} hands to each test.
 * @example
 * ```ts
 * import { createMemoryKnowledgeStore } from '@agent-core/kits/knowledge'
 * import type { KnowledgeStoreHarness } from '@agent-core/kits/knowledge/testing'
 * const store = createMemoryKnowledgeStore()
 * const harness: KnowledgeStoreHarness = { store, reopen: async () => store }
 * ```
 */
export interface KnowledgeStoreHarness {
  /** The store under test, over empty storage. */
  readonly store: KnowledgeStore
  /**
   * The same data through a new handle, as a restarted process sees it (the old handle may be closed
   * first). Omit it for a store that does not persist; the tests then use `store` again.
   */
  readonly reopen?: (() => KnowledgeStore | Promise<KnowledgeStore>) | undefined
  /** Releases what the harness opened (connections, files). */
  readonly close?: (() => unknown) | undefined
}

/**
 * The test functions of a runner: `describe(name, body)` and `it(name, body)` as vitest, `node:test`,
 * jest and mocha provide them.
 * @example
 * ```ts no-run
 * import { suite, test } from 'node:test'
 * import type { KnowledgeConformanceRunner } from '@agent-core/kits/knowledge/testing'
 * const runner: KnowledgeConformanceRunner = { describe: suite, it: test }
 * ```
 */
export interface KnowledgeConformanceRunner {
  /** Groups tests: the runner's `describe` (or `suite`). */
  readonly describe: (name: string, body: () => void) => unknown
  /** Registers one asynchronous test: the runner's `it` (or `test`). */
  readonly it: (name: string, body: () => Promise<void>) => unknown
}

/**
 * Options of {@link describeKnowledgeStoreConformance}.
 * @example
 * ```ts no-run
 * import { describe, it } from 'node:test'
 * import { createMemoryKnowledgeStore } from '@agent-core/kits/knowledge'
 * import type { KnowledgeStoreConformanceOptions } from '@agent-core/kits/knowledge/testing'
 * const options: KnowledgeStoreConformanceOptions = {
 *   describe,
 *   it,
 *   name: 'memory store',
 *   open: async () => ({ store: createMemoryKnowledgeStore() }),
 * }
 * ```
 */
export interface KnowledgeStoreConformanceOptions extends KnowledgeConformanceRunner {
  /** Names the group of tests. */
  readonly name: string
  /** A store over empty storage, for one test. */
  readonly open: () => Promise<KnowledgeStoreHarness>
}

const live = { signal: new AbortController().signal }
/** The embedding space of the suite's vectors (3 dimensions). */
export const space: KnowledgeEmbeddingSpace = Object.freeze({ identity: 'toy', dimensions: 3 })
const otherSpace: KnowledgeEmbeddingSpace = Object.freeze({ identity: 'toy', dimensions: 4 })

/** SHA-256 (base64url) of a text, as the kit hashes embedded texts. */
export const hashOf = (text: string): string =>
  // node:crypto on first use: loaded at import, it (and node:stream) would add about 2 ms to a cold import
  process.getBuiltinModule('node:crypto').createHash('sha256').update(text).digest('base64url')

/** A passage record of `documentId` at `revision`. */
export function passage(
  documentId: string,
  revision: number,
  number: number,
  text: string,
): KnowledgePassageRecord {
  return {
    id: `${documentId}@${revision}#${number}`,
    documentId,
    revision,
    number,
    headingPath: ['Top', 'Sub'],
    text,
    start: number * 10,
    end: number * 10 + text.length,
    startLine: number,
    endLine: number + 1,
    hash: hashOf(text),
  }
}

/** A change that publishes `texts` as `revision` of `id`. */
export function change(
  id: string,
  revision: number,
  expectedRevision: number,
  texts: string[],
): KnowledgeDocumentChange {
  return {
    expectedRevision,
    record: {
      id,
      revision,
      contentHash: hashOf(`${id}:${revision}:${texts.join('|')}`),
      title: `Title of ${id}`,
      metadata: { tags: ['a', 'b'], nested: { n: 1.5, ok: true, none: null } },
      passageCount: texts.length,
      publishedAtMs: 1_000 + revision,
    },
    passages: texts.map((text, i) => passage(id, revision, i + 1, text)),
  }
}

/** A vector of `dimensions` numbers derived from `seed`. */
export const vector = (seed: number, dimensions = 3) =>
  Float32Array.from({ length: dimensions }, (_, i) => seed + i * 0.25 + 0.1)

/** A deterministic embedder that counts the texts it embeds. */
export function countingEmbedder(identity = 'toy', dimensions = 3): Embedder & { texts: string[] } {
  const texts: string[] = []
  return {
    identity,
    dimensions,
    texts,
    async embed(batch: readonly string[]) {
      texts.push(...batch)
      return batch.map((text) => {
        const out = new Float32Array(dimensions)
        for (let i = 0; i < text.length; i++) out[text.charCodeAt(i) % dimensions]! += 1
        out[0]! += 0.5
        return out
      })
    },
  }
}

function batch(
  documents: KnowledgeDocumentChange[],
  vectors: KnowledgeStoreBatch['vectors'] = [],
  s = space,
) {
  return { publicationId: 'docs', space: s, documents, vectors }
}

/** Expects `call` to reject (or throw) with an error `accept` accepts. */
export async function rejects(
  call: () => unknown,
  accept: (error: unknown) => boolean,
  what: string,
): Promise<unknown> {
  const outcome = await Promise.resolve()
    .then(call)
    .then(
      () => ({ failed: false as const, error: undefined }),
      (error: unknown) => ({ failed: true as const, error }),
    )
  assert.ok(outcome.failed, `${what} should fail, but it succeeded`)
  assert.ok(accept(outcome.error), `${what} failed with an unexpected error: ${String(outcome.error)}`)
  return outcome.error
}

const vectorValues = (v: Float32Array | undefined) => [...(v ?? [])]
const sortedKeys = (map: ReadonlyMap<string, unknown>) => [...map.keys()].sort()

/**
 * Registers, with any test runner's `describe` and `it`, the tests a `KnowledgeStore` must pass: what
 * it gives back, publications kept apart, vectors per embedding space (first one kept, unreferenced ones
 * swept), retractions, whole-batch `ConflictError`s, aborted and malformed calls refused, copies, and a
 * real publication served through it (reloaded without re-embedding). Each test opens a fresh harness
 * and closes it.
 * @example
 * ```ts no-run
 * import { describe, it } from 'node:test'
 * import { createMemoryKnowledgeStore } from '@agent-core/kits/knowledge'
 * import { describeKnowledgeStoreConformance } from '@agent-core/kits/knowledge/testing'
 *
 * describeKnowledgeStoreConformance({
 *   describe,
 *   it,
 *   name: 'memory store',
 *   open: async () => ({ store: createMemoryKnowledgeStore() }),
 * })
 * ```
 */
export function describeKnowledgeStoreConformance(options: KnowledgeStoreConformanceOptions): void {
  const { describe, it, name, open } = options
  /** Runs `body` on a fresh harness, closing it afterwards. */
  const test = (
    title: string,
    body: (store: KnowledgeStore, harness: KnowledgeStoreHarness) => Promise<void>,
  ) =>
    it(title, async () => {
      const harness = await open()
      try {
        await body(harness.store, harness)
      } finally {
        await harness.close?.()
      }
    })

  describe(`${name}: KnowledgeStore conformance`, () => {
    test('loads an empty publication', async (store) => {
      const contents = await store.load({ publicationId: 'docs', space }, live)
      assert.deepStrictEqual(contents.documents, [])
      assert.deepStrictEqual(contents.passages, [])
      assert.equal(contents.vectors.size, 0)
    })

    test('gives back exactly what it was given: records, passages in order, vectors of the space', async (store) => {
      const b = change('b.md', 1, 0, ['beta one', 'beta two'])
      const a = change('a.md', 1, 0, ['alpha'])
      const vectors = [
        { hash: hashOf('beta one'), vector: vector(1) },
        { hash: hashOf('beta two'), vector: vector(2) },
        { hash: hashOf('alpha'), vector: vector(3) },
      ]
      await store.write(batch([b, a], vectors), live)
      const contents = await store.load({ publicationId: 'docs', space }, live)
      assert.deepStrictEqual(contents.documents, [a.record, b.record])
      assert.deepStrictEqual(contents.passages, [...a.passages, ...b.passages])
      assert.deepStrictEqual(sortedKeys(contents.vectors), vectors.map((v) => v.hash).sort())
      for (const { hash, vector: v } of vectors)
        assert.deepStrictEqual(vectorValues(contents.vectors.get(hash)), [...v])
      // Another space sees none of them; no space sees none either.
      assert.equal((await store.load({ publicationId: 'docs', space: otherSpace }, live)).vectors.size, 0)
      assert.equal((await store.load({ publicationId: 'docs', space: undefined }, live)).vectors.size, 0)
    })

    test('keeps publications apart', async (store) => {
      await store.write(
        batch([change('a.md', 1, 0, ['alpha'])], [{ hash: hashOf('alpha'), vector: vector(1) }]),
        live,
      )
      const other = await store.load({ publicationId: 'other', space }, live)
      assert.deepStrictEqual(other.documents, [])
      assert.equal(other.vectors.size, 0)
      const found = await store.vectors({ publicationId: 'other', space, hashes: [hashOf('alpha')] }, live)
      assert.equal(found.size, 0)
    })

    test('reads the vectors of given hashes, leaving out missing ones and other spaces', async (store) => {
      await store.write(
        batch(
          [change('a.md', 1, 0, ['alpha', 'beta'])],
          [
            { hash: hashOf('alpha'), vector: vector(1) },
            { hash: hashOf('beta'), vector: vector(2) },
          ],
        ),
        live,
      )
      await store.write(batch([], [{ hash: hashOf('alpha'), vector: vector(7, 4) }], otherSpace), live)
      const found = await store.vectors(
        { publicationId: 'docs', space, hashes: [hashOf('alpha'), hashOf('nope')] },
        live,
      )
      assert.deepStrictEqual([...found.keys()], [hashOf('alpha')])
      assert.deepStrictEqual(vectorValues(found.get(hashOf('alpha'))), [...vector(1)])
      const wide = await store.vectors(
        { publicationId: 'docs', space: otherSpace, hashes: [hashOf('alpha')] },
        live,
      )
      assert.deepStrictEqual(vectorValues(wide.get(hashOf('alpha'))), [...vector(7, 4)])
    })

    test('keeps the first vector written for a hash', async (store) => {
      await store.write(
        batch([change('a.md', 1, 0, ['alpha'])], [{ hash: hashOf('alpha'), vector: vector(1) }]),
        live,
      )
      await store.write(batch([], [{ hash: hashOf('alpha'), vector: vector(9) }]), live)
      const found = await store.vectors({ publicationId: 'docs', space, hashes: [hashOf('alpha')] }, live)
      assert.deepStrictEqual(vectorValues(found.get(hashOf('alpha'))), [...vector(1)])
    })

    test('replaces all passages of a document on a new revision and sweeps unreferenced vectors', async (store) => {
      await store.write(
        batch(
          [change('a.md', 1, 0, ['keep', 'drop'])],
          [
            { hash: hashOf('keep'), vector: vector(1) },
            { hash: hashOf('drop'), vector: vector(2) },
          ],
        ),
        live,
      )
      const next = change('a.md', 2, 1, ['keep', 'new'])
      await store.write(batch([next], [{ hash: hashOf('new'), vector: vector(3) }]), live)
      const contents = await store.load({ publicationId: 'docs', space }, live)
      assert.deepStrictEqual(contents.documents, [next.record])
      assert.deepStrictEqual(contents.passages, next.passages)
      assert.deepStrictEqual(sortedKeys(contents.vectors), [hashOf('keep'), hashOf('new')].sort())
    })

    test('keeps a retracted document row (its revision is never reused) without passages', async (store) => {
      const first = change('a.md', 1, 0, ['alpha'])
      await store.write(batch([first], [{ hash: hashOf('alpha'), vector: vector(1) }]), live)
      const retracted = { ...first.record, passageCount: 0, retractedAtMs: 5_000 }
      await store.write(batch([{ expectedRevision: 1, record: retracted, passages: [] }]), live)
      const contents = await store.load({ publicationId: 'docs', space }, live)
      assert.deepStrictEqual(contents.documents, [retracted])
      assert.deepStrictEqual(contents.passages, [])
      assert.equal(contents.vectors.size, 0)
      // Publishing it again expects the retracted revision.
      await rejects(
        () => store.write(batch([change('a.md', 1, 0, ['alpha'])]), live),
        (e) => ConflictError.isInstance(e),
        'a write expecting no row over a retracted one',
      )
      await store.write(batch([change('a.md', 2, 1, ['alpha'])]), live)
      assert.equal((await store.load({ publicationId: 'docs', space }, live)).documents[0]?.revision, 2)
    })

    test('refuses a whole batch with a ConflictError when one expected revision is stale, writing nothing', async (store) => {
      await store.write(batch([change('a.md', 1, 0, ['alpha'])]), live)
      const before = await store.load({ publicationId: 'docs', space }, live)
      const stale = batch(
        [change('b.md', 1, 0, ['beta']), change('a.md', 2, 0, ['alpha two'])],
        [{ hash: hashOf('beta'), vector: vector(4) }],
      )
      const error = await rejects(
        () => store.write(stale, live),
        (e) => ConflictError.isInstance(e),
        'a stale batch',
      )
      const details = (error as ConflictError).details as Record<string, unknown>
      assert.equal(details.documentId, 'a.md')
      assert.equal(details.expectedRevision, 0)
      assert.equal(details.storedRevision, 1)
      assert.deepStrictEqual(await store.load({ publicationId: 'docs', space }, live), before)
      assert.equal(
        (await store.vectors({ publicationId: 'docs', space, hashes: [hashOf('beta')] }, live)).size,
        0,
      )
    })

    test('refuses an aborted call before it writes', async (store) => {
      const controller = new AbortController()
      controller.abort()
      await rejects(
        () => store.write(batch([change('a.md', 1, 0, ['alpha'])]), { signal: controller.signal }),
        (e) => AgentCoreError.isInstance(e) && e.code === 'aborted',
        'an aborted write',
      )
      assert.deepStrictEqual((await store.load({ publicationId: 'docs', space }, live)).documents, [])
    })

    test('refuses malformed calls with typed errors and changes nothing', async (store) => {
      const typed = (e: unknown) => AgentCoreError.isInstance(e)
      const bad: unknown[] = [
        undefined,
        { publicationId: '', space, documents: [], vectors: [] },
        { publicationId: 'docs', space, documents: 'x', vectors: [] },
        { publicationId: 'docs', space, documents: [], vectors: [{ hash: 'h', vector: [1, 2, 3] }] },
        {
          publicationId: 'docs',
          space: undefined,
          documents: [],
          vectors: [{ hash: 'h', vector: vector(1) }],
        },
        batch([change('a.md', 1, 0, ['alpha']), change('a.md', 1, 0, ['alpha'])]),
      ]
      for (const [i, value] of bad.entries())
        await rejects(() => store.write(value as KnowledgeStoreBatch, live), typed, `malformed batch #${i}`)
      await rejects(() => store.write(batch([]), undefined as never), typed, 'a write without options')
      await rejects(() => store.load(null as never, live), typed, 'a load of null')
      await rejects(
        () => store.vectors({ publicationId: 'docs', space, hashes: 'x' } as never, live),
        typed,
        'a vectors call with hashes "x"',
      )
      assert.deepStrictEqual((await store.load({ publicationId: 'docs', space }, live)).documents, [])
    })

    test('copies: changing what was written or loaded does not change the store', async (store) => {
      const a = change('a.md', 1, 0, ['alpha'])
      const v = vector(1)
      await store.write(batch([a], [{ hash: hashOf('alpha'), vector: v }]), live)
      v[0] = 42
      const first = await store.load({ publicationId: 'docs', space }, live)
      ;(first.vectors.get(hashOf('alpha')) as Float32Array)[1] = 42
      ;(first.documents as unknown as { title?: string }[])[0]!.title = 'changed'
      const second = await store.load({ publicationId: 'docs', space }, live)
      assert.deepStrictEqual(vectorValues(second.vectors.get(hashOf('alpha'))), [...vector(1)])
      assert.equal(second.documents[0]?.title, 'Title of a.md')
    })

    test('serves a publication: a second publication over the store loads it without embedding', async (store, harness) => {
      const embedder = countingEmbedder()
      const first = Knowledge.defineKnowledgePublication({ id: 'docs', store, embedder })
      await first.publish({
        materials: [
          {
            id: 'a.md',
            text: '# A\n\nApples are red.\n\n## More\n\nPears are green.\n',
            metadata: { lang: 'en' },
          },
          { id: 'b.md', title: 'B', text: 'Bananas are yellow.' },
        ],
      })
      const embedded = embedder.texts.length
      assert.equal(embedded, 3)
      const reloaded = harness.reopen !== undefined ? await harness.reopen() : store
      const second = Knowledge.defineKnowledgePublication({ id: 'docs', store: reloaded, embedder })
      assert.deepStrictEqual(await second.load(), {
        publicationId: 'docs',
        documents: 2,
        passages: 3,
        embedded: 0,
      })
      assert.deepStrictEqual(await second.list(), await first.list())
      const [hit] = await second.search({ query: 'bananas', limit: 1, mode: 'text' })
      assert.equal(hit?.document.id, 'b.md@1#1')
      assert.equal(hit?.document.title, 'B')
      assert.equal(hit?.document.text, 'Bananas are yellow.')
      const [vectorHit] = await second.search({ query: 'Bananas are yellow.', limit: 1, mode: 'vector' })
      assert.ok((vectorHit?.score ?? 0) > 0, 'a vector search finds the passage')
      // The vector search embedded its query, and nothing else.
      assert.deepStrictEqual(embedder.texts.slice(embedded), ['Bananas are yellow.'])
      // Publishing the same material again through the reloaded store embeds and writes nothing.
      const again = await second.publish({
        materials: [{ id: 'b.md', title: 'B', text: 'Bananas are yellow.' }],
      })
      assert.deepStrictEqual(again.skipped, [{ id: 'b.md', reason: 'unchanged', revision: 1 }])
      assert.equal(again.batches, 0)
      assert.equal(embedder.texts.length, embedded + 1)
      // A new embedding model re-embeds at load, once.
      const wider = countingEmbedder('toy-wide', 5)
      const third = Knowledge.defineKnowledgePublication({ id: 'docs', store: reloaded, embedder: wider })
      assert.equal((await third.load()).embedded, 3)
      const fourth = Knowledge.defineKnowledgePublication({ id: 'docs', store: reloaded, embedder: wider })
      assert.equal((await fourth.load()).embedded, 0)
      assert.equal(wider.texts.length, 3)
    })
  })
}
