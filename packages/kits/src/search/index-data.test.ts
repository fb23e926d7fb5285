/**
 * The contract's ruling on index metadata: whatever structuredClone can copy is accepted in memory and
 * copied in and out; a snapshot, which is JSON, refuses data JSON cannot carry and names the field.
 */
import { InvalidStateError } from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { TextSearch, VectorSearch } from './index.js'

interface Note {
  id: string
  text: string
  meta?: unknown
}

function errorOf(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

const rich = () => ({
  updated: new Date('2025-01-31T00:00:00Z'),
  tags: new Set(['a', 'b']),
  owners: new Map([['alice', { role: 'editor' }]]),
  big: 10n,
  ratio: Number.NaN,
  bytes: new Uint8Array([1, 2, 3]),
})

describe('structuredClone-able index data', () => {
  it('TextSearch stores it, returns faithful copies, and refuses to snapshot it with the field named', () => {
    const search = new TextSearch<Note>({ indexRevision: 'r1', fields: ['text'], storedFields: ['meta'] })
    const meta = rich()
    search.addAll([
      { id: 'a', text: 'hello world', meta },
      { id: 'b', text: 'plain', meta: { page: 1 } },
    ])
    meta.tags.add('changed later')
    const [hit] = search.search({ query: 'hello', limit: 1 })
    const stored = hit!.document.meta as ReturnType<typeof rich>
    expect(stored.updated).toBeInstanceOf(Date)
    expect(stored.updated.toISOString()).toBe('2025-01-31T00:00:00.000Z')
    expect([...stored.tags]).toEqual(['a', 'b'])
    expect(stored.owners.get('alice')).toEqual({ role: 'editor' })
    expect(stored.big).toBe(10n)
    expect(Number.isNaN(stored.ratio)).toBe(true)
    expect(stored.bytes).toEqual(new Uint8Array([1, 2, 3]))
    // The hit is a copy: changing it changes nothing in the index.
    stored.tags.clear()
    expect([...(search.get('a')!.meta as ReturnType<typeof rich>).tags]).toEqual(['a', 'b'])

    const error = errorOf(() => search.snapshot())
    expect(InvalidStateError.isInstance(error)).toBe(true)
    expect((error as InvalidStateError).details.field).toBe('document.meta.updated')
    expect((error as Error).message).toMatch(/"a"/)
    // Once the document is gone, the index snapshots again.
    return search.remove('a').then(() => {
      expect(search.snapshot().serializedIndex).toContain('page')
    })
  })

  it('VectorSearch stores it, copies it for callbacks and hits, and refuses both snapshot forms', () => {
    const vectors = new VectorSearch<{ id: string; meta: unknown }>({ identity: 't', dimensions: 2 })
    vectors.upsert({ document: { id: 'a', meta: rich() }, vector: [1, 0] })
    vectors.upsert({ document: { id: 'b', meta: 'plain' }, vector: [0, 1] })
    const seen: unknown[] = []
    const hits = vectors.search({
      vector: [1, 0],
      limit: 2,
      filter: (document) => {
        seen.push(document.meta)
        return true
      },
    })
    expect((seen[0] as ReturnType<typeof rich>).updated).toBeInstanceOf(Date)
    expect((hits[0]!.document.meta as ReturnType<typeof rich>).owners).toBeInstanceOf(Map)
    expect(seen[0]).not.toBe(hits[0]!.document.meta)
    const error = errorOf(() => vectors.snapshot())
    expect((error as InvalidStateError).details.field).toBe('document.meta.updated')
    expect(() => [...vectors.snapshotChunks()]).toThrow(InvalidStateError)
    // Replacing the document with JSON data makes the index snapshot again.
    vectors.upsert({ document: { id: 'a', meta: { updated: '2025-01-31' } }, vector: [1, 0] })
    expect(vectors.snapshot().documents).toHaveLength(2)
  })
})
