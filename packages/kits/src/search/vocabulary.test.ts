/**
 * The three indexes answer the same change calls with the same shapes: `add`, `addAll`, `upsert`,
 * `upsertAll`, `remove` and `removeAll` take one entry, an array of entries, an id or an array of ids,
 * and answer nothing, `true`/`false` or a count (some through a promise: `await` takes both). Only the
 * entry differs: a document, or `{ document, vector }` for the vector index.
 */
import { DuplicateIdError, InvalidInputError, InvalidStateError } from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import type { Embedder } from './embedder.js'
import { HybridSearch } from './hybrid-search.js'
import { TextSearch } from './text-search.js'
import { VectorSearch } from './vector-search.js'

interface Note {
  id: string
  text: string
}

/** The change calls every index offers, over its own kind of entry. */
interface Changes<Entry> {
  add(entry: Entry): unknown
  addAll(entries: readonly Entry[]): unknown
  upsert(entry: Entry): unknown
  upsertAll(entries: readonly Entry[]): unknown
  remove(id: string): unknown
  removeAll(ids: readonly string[]): unknown
  readonly size: number
  has(id: string): boolean
}

interface Case<Entry> {
  readonly name: string
  readonly make: () => Changes<Entry>
  readonly entry: (id: string, text: string) => Entry
  readonly text: (index: Changes<Entry>, id: string) => string | undefined
}

/** A deterministic two-dimensional embedding of a text (never all zeros). */
const vectorOf = (text: string): number[] => [1, text.length]

const toyEmbedder: Embedder = {
  identity: 'toy-2d',
  dimensions: 2,
  embed: async (texts) => texts.map(vectorOf),
}

const textCase: Case<Note> = {
  name: 'TextSearch',
  make: () => new TextSearch<Note>({ indexRevision: 'r1', fields: ['text'], storedFields: ['text'] }),
  entry: (id, text) => ({ id, text }),
  text: (index, id) => (index as TextSearch<Note>).get(id)?.text,
}

const vectorCase: Case<{ document: Note; vector: number[] }> = {
  name: 'VectorSearch',
  make: () => new VectorSearch<Note>({ identity: 'toy-2d', dimensions: 2 }),
  entry: (id, text) => ({ document: { id, text }, vector: vectorOf(text) }),
  text: (index, id) => (index as VectorSearch<Note>).get(id)?.text,
}

const hybridCase = (embedder: Embedder | undefined): Case<Note> => ({
  name: embedder ? 'HybridSearch (embedded)' : 'HybridSearch (text only)',
  make: () =>
    new HybridSearch<Note>({ indexRevision: 'r1', fields: ['text'], ...(embedder ? { embedder } : {}) }),
  entry: (id, text) => ({ id, text }),
  text: (index, id) => (index as HybridSearch<Note>).get(id)?.text,
})

/** The error of a call, thrown or rejected. */
async function failure(call: () => unknown): Promise<unknown> {
  try {
    await call()
  } catch (error) {
    return error
  }
  throw new Error('expected the call to fail')
}

const cases = [textCase, vectorCase, hybridCase(undefined), hybridCase(toyEmbedder)] as Case<unknown>[]

describe('search kit: one change vocabulary', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s answers the shared calls', async (_name, c) => {
    const index = c.make()
    const e = c.entry
    expect(await index.add(e('a', 'alpha'))).toBeUndefined()
    expect(await index.addAll([e('b', 'beta'), e('c', 'gamma')])).toBeUndefined()
    expect(index.size).toBe(3)
    expect(DuplicateIdError.isInstance(await failure(() => index.add(e('a', 'again'))))).toBe(true)
    expect(DuplicateIdError.isInstance(await failure(() => index.addAll([e('x', 'x'), e('x', 'y')])))).toBe(
      true,
    )
    expect(index.size).toBe(3)

    expect(await index.upsert(e('a', 'alpha, revised'))).toBeUndefined()
    expect(await index.upsertAll([e('d', 'delta'), e('a', 'alpha, final')])).toBeUndefined()
    expect(index.size).toBe(4)
    expect(c.text(index, 'a')).toBe('alpha, final')
    expect(
      DuplicateIdError.isInstance(await failure(() => index.upsertAll([e('y', 'one'), e('y', 'two')]))),
    ).toBe(true)
    expect(index.has('y')).toBe(false)

    expect(await index.remove('a')).toBe(true)
    expect(await index.remove('a')).toBe(false)
    expect(await index.removeAll(['b', 'nope', 'b'])).toBe(1)
    expect(await index.removeAll([])).toBe(0)
    expect(index.size).toBe(2)
    expect([index.has('c'), index.has('d')]).toEqual([true, true])
  })

  it.each(cases.map((c) => [c.name, c] as const))('%s refuses the same bad calls alike', async (_name, c) => {
    const index = c.make()
    await index.addAll([c.entry('a', 'alpha')])
    const field = async (call: () => unknown) => {
      const error = await failure(call)
      expect(InvalidInputError.isInstance(error), String(error)).toBe(true)
      return (error as InvalidInputError).details.field
    }
    expect(await field(() => index.remove(5 as never))).toBe('id')
    expect(await field(() => index.removeAll('a' as never))).toBe('ids')
    expect(await field(() => index.removeAll(['a', 7] as never))).toBe('ids[1]')
    expect(await field(() => index.addAll('a' as never))).toMatch(/^(documents|entries)$/)
    expect(await field(() => index.upsertAll('a' as never))).toMatch(/^(documents|entries)$/)
    expect(await field(() => index.add(null as never))).toMatch(/^(document|entry)$/)
    expect(await field(() => index.upsert(null as never))).toMatch(/^(document|entry)$/)
    expect(await field(() => index.upsertAll([c.entry('b', 'b'), null] as never))).toMatch(
      /^(documents|entries)\[1\]$/,
    )
    expect(index.size).toBe(1)
    expect(await index.removeAll(['a'])).toBe(1)
  })

  it('keeps the old names working, with their old answers', async () => {
    const text = new TextSearch<Note>({ indexRevision: 'r1', fields: ['text'], storedFields: ['text'] })
    text.addAll([{ id: 'a', text: 'one' }])
    await text.replace({ id: 'a', text: 'two' })
    expect(text.get('a')?.text).toBe('two')
    expect(await text.removeMany(['a', 'a', 'nope'])).toBe(1)

    const vectors = new VectorSearch<Note>({ identity: 'toy-2d', dimensions: 2 })
    // upsertMany lets a repeated id win last; upsertAll refuses it.
    vectors.upsertMany([
      { document: { id: 'a', text: 'one' }, vector: [1, 0] },
      { document: { id: 'a', text: 'two' }, vector: [0, 1] },
    ])
    expect(vectors.get('a')?.text).toBe('two')

    const hybrid = new HybridSearch<Note>({ indexRevision: 'r1', fields: ['text'], embedder: toyEmbedder })
    await hybrid.upsert([
      { id: 'a', text: 'one' },
      { id: 'b', text: 'two' },
    ])
    expect(await hybrid.remove(['a', 'nope'])).toBe(1)
    expect(hybrid.ids()).toEqual(['b'])
  })

  it('refuses changes from inside a search callback on every index', async () => {
    const text = textCase.make() as TextSearch<Note>
    text.add({ id: 'a', text: 'alpha' })
    const vectors = vectorCase.make() as VectorSearch<Note>
    vectors.add({ document: { id: 'a', text: 'alpha' }, vector: [1, 0] })
    const searchText = (filter: () => boolean) => text.search({ query: 'alpha', limit: 1, filter })
    const searchVectors = (filter: () => boolean) => vectors.search({ vector: [1, 0], limit: 1, filter })
    for (const [search, change] of [
      [searchText, () => text.upsert({ id: 'b', text: 'b' })],
      [searchText, () => text.upsertAll([{ id: 'b', text: 'b' }])],
      [searchText, () => text.removeAll(['a'])],
      [searchVectors, () => vectors.addAll([{ document: { id: 'b', text: 'b' }, vector: [0, 1] }])],
      [searchVectors, () => vectors.upsertAll([{ document: { id: 'b', text: 'b' }, vector: [0, 1] }])],
      [searchVectors, () => vectors.removeAll(['a'])],
    ] as const) {
      let refusal: unknown
      search(() => {
        try {
          const answer: unknown = change()
          if (answer instanceof Promise) refusal = answer.catch((error: unknown) => error)
        } catch (error) {
          refusal = error
        }
        return true
      })
      expect(InvalidStateError.isInstance(await refusal)).toBe(true)
    }
    expect([text.size, vectors.size]).toEqual([1, 1])
  })
})
