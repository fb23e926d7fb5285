/**
 * The rules every KnowledgeStore keeps, run on the memory store and the SQLite store alike (private to
 * the tests: `testing/` is not a subpath). `open` gives a fresh store; `reopen`, when the store is
 * persistent, opens the same data again as a restarted process would.
 */
import { createHash } from 'node:crypto'
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
import { afterEach, describe, expect, it } from 'vitest'

/** What a conformance run needs of a store. */
export interface KnowledgeStoreHarness {
  readonly store: KnowledgeStore
  /** The same data through a new handle (a restart); the old handle is closed first. */
  readonly reopen?: () => KnowledgeStore
  /** Releases the store (and its files). */
  readonly close: () => void
}

const live = { signal: new AbortController().signal }
export const space: KnowledgeEmbeddingSpace = Object.freeze({ identity: 'toy', dimensions: 3 })
const otherSpace: KnowledgeEmbeddingSpace = Object.freeze({ identity: 'toy', dimensions: 4 })

export const hashOf = (text: string): string => createHash('sha256').update(text).digest('base64url')

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

/** Registers the conformance tests of a store. */
export function describeKnowledgeStoreConformance(name: string, open: () => KnowledgeStoreHarness): void {
  describe(`${name}: KnowledgeStore conformance`, () => {
    let harness: KnowledgeStoreHarness | undefined
    const fresh = () => {
      harness = open()
      return harness.store
    }
    afterEach(() => {
      harness?.close()
      harness = undefined
    })

    it('loads an empty publication', async () => {
      const store = fresh()
      const contents = await store.load({ publicationId: 'docs', space }, live)
      expect(contents.documents).toEqual([])
      expect(contents.passages).toEqual([])
      expect(contents.vectors.size).toBe(0)
    })

    it('gives back exactly what it was given: records, passages in order, vectors of the space', async () => {
      const store = fresh()
      const b = change('b.md', 1, 0, ['beta one', 'beta two'])
      const a = change('a.md', 1, 0, ['alpha'])
      const vectors = [
        { hash: hashOf('beta one'), vector: vector(1) },
        { hash: hashOf('beta two'), vector: vector(2) },
        { hash: hashOf('alpha'), vector: vector(3) },
      ]
      await store.write(batch([b, a], vectors), live)
      const contents = await store.load({ publicationId: 'docs', space }, live)
      expect(contents.documents).toEqual([a.record, b.record])
      expect(contents.passages).toEqual([...a.passages, ...b.passages])
      expect([...contents.vectors.keys()].sort()).toEqual(vectors.map((v) => v.hash).sort())
      for (const { hash, vector: v } of vectors)
        expect([...(contents.vectors.get(hash) ?? [])]).toEqual([...v])
      // Another space sees none of them; no space sees none either.
      expect((await store.load({ publicationId: 'docs', space: otherSpace }, live)).vectors.size).toBe(0)
      expect((await store.load({ publicationId: 'docs', space: undefined }, live)).vectors.size).toBe(0)
    })

    it('keeps publications apart', async () => {
      const store = fresh()
      await store.write(
        batch([change('a.md', 1, 0, ['alpha'])], [{ hash: hashOf('alpha'), vector: vector(1) }]),
        live,
      )
      const other = await store.load({ publicationId: 'other', space }, live)
      expect(other.documents).toEqual([])
      expect(other.vectors.size).toBe(0)
      const found = await store.vectors({ publicationId: 'other', space, hashes: [hashOf('alpha')] }, live)
      expect(found.size).toBe(0)
    })

    it('reads the vectors of given hashes, leaving out missing ones and other spaces', async () => {
      const store = fresh()
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
      expect([...found.keys()]).toEqual([hashOf('alpha')])
      expect([...(found.get(hashOf('alpha')) ?? [])]).toEqual([...vector(1)])
      const wide = await store.vectors(
        { publicationId: 'docs', space: otherSpace, hashes: [hashOf('alpha')] },
        live,
      )
      expect([...(wide.get(hashOf('alpha')) ?? [])]).toEqual([...vector(7, 4)])
    })

    it('keeps the first vector written for a hash', async () => {
      const store = fresh()
      await store.write(
        batch([change('a.md', 1, 0, ['alpha'])], [{ hash: hashOf('alpha'), vector: vector(1) }]),
        live,
      )
      await store.write(batch([], [{ hash: hashOf('alpha'), vector: vector(9) }]), live)
      const found = await store.vectors({ publicationId: 'docs', space, hashes: [hashOf('alpha')] }, live)
      expect([...(found.get(hashOf('alpha')) ?? [])]).toEqual([...vector(1)])
    })

    it('replaces all passages of a document on a new revision and sweeps unreferenced vectors', async () => {
      const store = fresh()
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
      expect(contents.documents).toEqual([next.record])
      expect(contents.passages).toEqual(next.passages)
      expect([...contents.vectors.keys()].sort()).toEqual([hashOf('keep'), hashOf('new')].sort())
    })

    it('keeps a retracted document row (its revision is never reused) without passages', async () => {
      const store = fresh()
      const first = change('a.md', 1, 0, ['alpha'])
      await store.write(batch([first], [{ hash: hashOf('alpha'), vector: vector(1) }]), live)
      const retracted = { ...first.record, passageCount: 0, retractedAtMs: 5_000 }
      await store.write(batch([{ expectedRevision: 1, record: retracted, passages: [] }]), live)
      const contents = await store.load({ publicationId: 'docs', space }, live)
      expect(contents.documents).toEqual([retracted])
      expect(contents.passages).toEqual([])
      expect(contents.vectors.size).toBe(0)
      // Publishing it again expects the retracted revision.
      await expect(store.write(batch([change('a.md', 1, 0, ['alpha'])]), live)).rejects.toThrow(ConflictError)
      await store.write(batch([change('a.md', 2, 1, ['alpha'])]), live)
      expect((await store.load({ publicationId: 'docs', space }, live)).documents[0]?.revision).toBe(2)
    })

    it('refuses a whole batch with a ConflictError when one expected revision is stale, writing nothing', async () => {
      const store = fresh()
      await store.write(batch([change('a.md', 1, 0, ['alpha'])]), live)
      const before = await store.load({ publicationId: 'docs', space }, live)
      const stale = batch(
        [change('b.md', 1, 0, ['beta']), change('a.md', 2, 0, ['alpha two'])],
        [{ hash: hashOf('beta'), vector: vector(4) }],
      )
      const error = await store.write(stale, live).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(ConflictError.isInstance(error)).toBe(true)
      expect((error as ConflictError).details).toMatchObject({
        documentId: 'a.md',
        expectedRevision: 0,
        storedRevision: 1,
      })
      expect(await store.load({ publicationId: 'docs', space }, live)).toEqual(before)
      expect(
        (await store.vectors({ publicationId: 'docs', space, hashes: [hashOf('beta')] }, live)).size,
      ).toBe(0)
    })

    it('refuses an aborted call before it writes', async () => {
      const store = fresh()
      const controller = new AbortController()
      controller.abort()
      await expect(
        store.write(batch([change('a.md', 1, 0, ['alpha'])]), { signal: controller.signal }),
      ).rejects.toSatisfy((e: unknown) => AgentCoreError.isInstance(e) && e.code === 'aborted')
      expect((await store.load({ publicationId: 'docs', space }, live)).documents).toEqual([])
    })

    it('refuses malformed calls with typed errors and changes nothing', async () => {
      const store = fresh()
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
      for (const value of bad) {
        await expect(store.write(value as KnowledgeStoreBatch, live)).rejects.toSatisfy((e: unknown) =>
          AgentCoreError.isInstance(e),
        )
      }
      await expect(store.write(batch([]), undefined as never)).rejects.toSatisfy((e: unknown) =>
        AgentCoreError.isInstance(e),
      )
      await expect(store.load(null as never, live)).rejects.toSatisfy((e: unknown) =>
        AgentCoreError.isInstance(e),
      )
      await expect(
        store.vectors({ publicationId: 'docs', space, hashes: 'x' } as never, live),
      ).rejects.toSatisfy((e: unknown) => AgentCoreError.isInstance(e))
      expect((await store.load({ publicationId: 'docs', space }, live)).documents).toEqual([])
    })

    it('copies: changing what was written or loaded does not change the store', async () => {
      const store = fresh()
      const a = change('a.md', 1, 0, ['alpha'])
      const v = vector(1)
      await store.write(batch([a], [{ hash: hashOf('alpha'), vector: v }]), live)
      v[0] = 42
      const first = await store.load({ publicationId: 'docs', space }, live)
      ;(first.vectors.get(hashOf('alpha')) as Float32Array)[1] = 42
      ;(first.documents as unknown as { title?: string }[])[0]!.title = 'changed'
      const second = await store.load({ publicationId: 'docs', space }, live)
      expect([...(second.vectors.get(hashOf('alpha')) ?? [])]).toEqual([...vector(1)])
      expect(second.documents[0]?.title).toBe('Title of a.md')
    })

    it('serves a publication: a second publication over the store loads it without embedding', async () => {
      const store = fresh()
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
      expect(embedded).toBe(3)
      let reloaded = store
      if (harness?.reopen !== undefined) reloaded = harness.reopen()
      const second = Knowledge.defineKnowledgePublication({ id: 'docs', store: reloaded, embedder })
      expect(await second.load()).toEqual({ publicationId: 'docs', documents: 2, passages: 3, embedded: 0 })
      expect(await second.list()).toEqual(await first.list())
      const [hit] = await second.search({ query: 'bananas', limit: 1, mode: 'text' })
      expect(hit?.document).toMatchObject({ id: 'b.md@1#1', title: 'B', text: 'Bananas are yellow.' })
      const [vectorHit] = await second.search({ query: 'Bananas are yellow.', limit: 1, mode: 'vector' })
      expect(vectorHit?.score).toBeGreaterThan(0)
      // The vector search embedded its query, and nothing else.
      expect(embedder.texts.slice(embedded)).toEqual(['Bananas are yellow.'])
      // Publishing the same material again through the reloaded store embeds and writes nothing.
      const again = await second.publish({
        materials: [{ id: 'b.md', title: 'B', text: 'Bananas are yellow.' }],
      })
      expect(again.skipped).toEqual([{ id: 'b.md', reason: 'unchanged', revision: 1 }])
      expect(again.batches).toBe(0)
      expect(embedder.texts.length).toBe(embedded + 1)
      // A new embedding model re-embeds at load, once.
      const wider = countingEmbedder('toy-wide', 5)
      const third = Knowledge.defineKnowledgePublication({ id: 'docs', store: reloaded, embedder: wider })
      expect((await third.load()).embedded).toBe(3)
      const fourth = Knowledge.defineKnowledgePublication({ id: 'docs', store: reloaded, embedder: wider })
      expect((await fourth.load()).embedded).toBe(0)
      expect(wider.texts.length).toBe(3)
    })
  })
}
