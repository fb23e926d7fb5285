/**
 * Snapshots that catch corruption: the TextSearch checksum and structural validation, and the binary
 * snapshot stream of VectorSearch (chunked records, all-or-nothing restore; version 1 has a CRC-32 over
 * everything, version 2 a CRC-32 over all but the vectors and the word hash of the vectors).
 */
import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { InvalidInputError, InvalidStateError } from '@agent-core/core'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { seededRandom } from '../testing/seeded-random.js'
import { englishAnalyzer, TextSearch, type TextSearchSnapshot, VectorSearch } from './index.js'
import { RECORD, RecordWriter } from './internal/snapshot-stream.js'

interface Doc {
  id: string
  title: string
  body: string
}

function notes(): TextSearch<Doc> {
  return new TextSearch<Doc>({
    indexRevision: 'r1',
    fields: ['title', 'body'],
    storedFields: ['title'],
    analyzer: englishAnalyzer,
  })
}

function filled(): TextSearch<Doc> {
  const search = notes()
  search.addAll([
    { id: 'n1', title: 'Groceries', body: 'milk, eggs and bread' },
    { id: 'n2', title: 'Garden', body: 'water the tomatoes and the roses' },
    { id: 'n3', title: 'Soup', body: 'tomatoes, garlic, bread' },
  ])
  return search
}

// biome-ignore lint/suspicious/noExplicitAny: the tests corrupt minisearch's serialization at will
type Loose = any

/** The snapshot with its serialized index rewritten, and without a checksum (an older snapshot). */
function edited(
  snapshot: TextSearchSnapshot,
  edit: (plain: Record<string, Loose>) => void,
): TextSearchSnapshot {
  const plain = JSON.parse(snapshot.serializedIndex)
  edit(plain)
  const { checksum: _, ...rest } = snapshot
  return { ...rest, serializedIndex: JSON.stringify(plain) }
}

function restoreError(search: TextSearch<Doc>, snapshot: TextSearchSnapshot): unknown {
  try {
    search.restore(snapshot)
  } catch (error) {
    return error
  }
  return undefined
}

describe('TextSearch snapshot validation', () => {
  it('writes a CRC-32 checksum and refuses a snapshot whose index does not match it', () => {
    const snapshot = filled().snapshot()
    expect(snapshot.checksum).toMatch(/^crc32:[0-9a-f]{8}$/)
    const flipped = snapshot.serializedIndex.replace('"milk"', '"mile"')
    const target = filled()
    const before = target.search({ query: 'milk', limit: 5 })
    const error = restoreError(target, { ...snapshot, serializedIndex: flipped })
    expect(InvalidStateError.isInstance(error)).toBe(true)
    expect((error as InvalidStateError).details.field).toBe('snapshot.serializedIndex')
    expect(target.search({ query: 'milk', limit: 5 })).toEqual(before)
    expect(InvalidStateError.isInstance(restoreError(target, { ...snapshot, checksum: 'md5:1' }))).toBe(true)
  })

  it('accepts a version-2 snapshot without a checksum after validating it', () => {
    const { checksum: _, ...older } = filled().snapshot()
    const copy = notes()
    copy.restore(older)
    expect(copy.search({ query: 'tomato', limit: 5 }).map((hit) => hit.id)).toEqual(['n3', 'n2'])
  })

  it('refuses every structural corruption the issue found, and keeps the index as it was', () => {
    const snapshot = filled().snapshot()
    const cases: [string, (plain: Record<string, Loose>) => void][] = [
      ['negative size', (p) => (p.documentCount = -1)],
      ['size and ids disagree', (p) => (p.documentCount = 2)],
      ['the same id twice', (p) => (p.documentIds['1'] = p.documentIds['0'])],
      ['NaN average length', (p) => (p.averageFieldLength[1] = null)],
      ['negative average length', (p) => (p.averageFieldLength[0] = -3)],
      [
        'zero frequency',
        (p) =>
          ((Object.values(p.index[0][1])[0] as Record<string, number>)[
            Object.keys(Object.values(p.index[0][1])[0] as object)[0]!
          ] = 0),
      ],
      ['posting to an unknown document', (p) => (p.index[0][1] = { 0: { 99: 1 } })],
      ['unknown field id', (p) => (p.index[0][1] = { 7: { 0: 1 } })],
      ['a term twice', (p) => p.index.push(p.index[0])],
      ['an empty id', (p) => (p.documentIds['0'] = '')],
      ['a short id past nextId', (p) => (p.nextId = 1)],
      ['missing field lengths', (p) => delete p.fieldLength['0']],
      ['field length missing where a term is', (p) => (p.fieldLength['0'] = [null, null])],
      ['an undeclared stored field', (p) => (p.storedFields['0'] = { body: 'x' })],
      ['removed documents left in', (p) => (p.dirtCount = 1)],
      ['other fields', (p) => (p.fieldIds = { title: 0 })],
      ['not version 2', (p) => (p.serializationVersion = 3)],
    ]
    const target = filled()
    const before = target.search({ query: 'bread garden', limit: 5 })
    for (const [name, edit] of cases) {
      const error = restoreError(target, edited(snapshot, edit))
      expect(InvalidStateError.isInstance(error), name).toBe(true)
      expect((error as Error).message).toMatch(/corrupt/)
    }
    expect(target.size).toBe(3)
    expect(target.search({ query: 'bread garden', limit: 5 })).toEqual(before)
  })

  it('never restores into an index that fails later: any edit is refused or searches cleanly (property)', () => {
    const snapshot = filled().snapshot()
    const plain = JSON.parse(snapshot.serializedIndex)
    // Every number in the serialized index, by path.
    const paths: (string | number)[][] = []
    const walk = (value: unknown, path: (string | number)[]) => {
      if (typeof value === 'number') paths.push(path)
      else if (typeof value === 'object' && value !== null)
        for (const [key, item] of Object.entries(value))
          walk(item, [...path, Array.isArray(value) ? Number(key) : key])
    }
    walk(plain, [])
    fc.assert(
      fc.property(
        fc.constantFrom(...paths),
        fc.constantFrom(-1, 0, 0.5, 1, 2, 99, 1e9, Number.NaN, null, '1'),
        (path, value) => {
          const broken = edited(snapshot, (p) => {
            let at: Loose = p
            for (const key of path.slice(0, -1)) at = at[key]
            at[path.at(-1)!] = value
          })
          const copy = notes()
          try {
            copy.restore(broken)
          } catch (error) {
            expect(InvalidStateError.isInstance(error)).toBe(true)
            return
          }
          for (const query of ['milk', 'tomatoes bread', 'garden roses', 'soup']) {
            for (const hit of copy.search({ query, limit: 10 })) expect(Number.isFinite(hit.score)).toBe(true)
          }
          expect(copy.size).toBeGreaterThanOrEqual(0)
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('TextSearch restore loads what it checks', () => {
  it('gives the index it saved: the same snapshot and the same hits for any documents and query (property)', async () => {
    const word = fc.constantFrom(
      'milk',
      'bread',
      'tomato',
      'tomatoes',
      'garden',
      'rose',
      'sap.m.Table',
      'soup',
      'x',
    )
    const text = fc.array(word, { minLength: 0, maxLength: 8 }).map((words) => words.join(' '))
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), title: text, body: text }),
          {
            selector: (doc) => doc.id,
            maxLength: 12,
          },
        ),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.array(word, { minLength: 1, maxLength: 3 }),
        async (docs, removals, query) => {
          const original = notes()
          original.addAll(docs)
          for (const at of removals) if (docs.length > 0) await original.remove(docs[at % docs.length]!.id)
          const snapshot = original.snapshot()
          const copy = notes()
          copy.restore(snapshot)
          expect(copy.snapshot()).toEqual(snapshot)
          const request = { query: query.join(' '), limit: 20 }
          expect(copy.search(request)).toEqual(original.search(request))
          expect(copy.size).toBe(original.size)
        },
      ),
      { numRuns: 200 },
    )
  })
})

const dir = mkdtempSync(join(tmpdir(), 'agent-core-snapshots-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** 1,100 documents of about 5 KB and 1,100 vectors of 1024 dimensions: several records of each kind. */
function large(): VectorSearch<{ id: string; text: string; n: number }> {
  const vectors = new VectorSearch<{ id: string; text: string; n: number }>({
    identity: 'test-1024',
    dimensions: 1024,
  })
  const random = seededRandom(7)
  const next = () => random() * 2 - 1
  const entries = Array.from({ length: 1100 }, (_, i) => ({
    document: { id: `doc-${i}`, text: `passage ${i} `.repeat(400), n: i },
    vector: Float32Array.from({ length: 1024 }, next),
  }))
  vectors.upsertMany(entries)
  return vectors
}

function small(): VectorSearch {
  const vectors = new VectorSearch({ identity: 't', dimensions: 2 })
  vectors.upsertAll([
    { document: { id: 'a' }, vector: [1, 0] },
    { document: { id: 'b' }, vector: [0, 1] },
  ])
  return vectors
}

/** The stream a VectorSearch wrote before version 2 (the version 1 container: one CRC-32 of everything). */
function versionOneChunks<D extends object>(index: VectorSearch<D>, version = 1): Uint8Array[] {
  const snapshot = index.snapshot()
  const writer = new RecordWriter()
  const bytes = Buffer.from(snapshot.vectors, 'base64')
  const floats = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length))
  return [
    writer.start(),
    writer.json(RECORD.HEADER, {
      format: 'agent-core/vector-search',
      version,
      engine: snapshot.engine,
      configurationFingerprint: snapshot.configurationFingerprint,
      identity: snapshot.identity,
      dimensions: snapshot.dimensions,
      count: snapshot.documents.length,
    }),
    ...writer.lines(snapshot.documents),
    ...writer.floats(floats, floats.length),
    writer.end(),
  ]
}

/**
 * A version 1 stream written by the code before version 2 (VectorSearch of identity "golden", 4
 * dimensions: a {tags: ["x"]} [1, 2, 3, 4], b [0, 0, 1, 0], c {tags: []} [-1, 0.5, 0, 2]).
 */
const VERSION_1_GOLDEN =
  'YWdlbnQtY29yZS1zbmFwc2hvdAoBwAAAAHsiZm9ybWF0IjoiYWdlbnQtY29yZS92ZWN0b3Itc2VhcmNoIiwidmVyc2lvbiI6MSwiZW5naW5lIjoiYWdlbnQtY29yZS9mbGF0LWNvc2luZS1mMzIiLCJjb25maWd1cmF0aW9uRmluZ2VycHJpbnQiOiJ2ZWN0b3Itc2VhcmNoOmRiNTY5YzhlNjQyOTZjOTAiLCJpZGVudGl0eSI6ImdvbGRlbiIsImRpbWVuc2lvbnMiOjQsImNvdW50IjozfQI5AAAAW3siaWQiOiJhIiwidGFncyI6WyJ4Il19LHsiaWQiOiJiIn0seyJpZCI6ImMiLCJ0YWdzIjpbXX1dAzAAAAC69Do+uvS6Pow3DD+69Do/AAAAAAAAAAAAAIA/AAAAAIN0376DdF8+AAAAAIN0Xz//BAAAACvic60='

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0))
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.length
  }
  return out
}

describe('VectorSearch binary snapshots', () => {
  const source = large()
  const chunks = [...source.snapshotChunks()]

  it('streams in chunks of at most 4 MiB and restores exactly, from memory and from a file', async () => {
    expect(chunks.length).toBeGreaterThan(4)
    expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeLessThanOrEqual(4 * 1024 * 1024 + 5)
    const fromMemory = new VectorSearch<{ id: string; text: string; n: number }>({
      identity: 'test-1024',
      dimensions: 1024,
    })
    await fromMemory.restoreFrom([concat(chunks)])
    expect(fromMemory.snapshot()).toEqual(source.snapshot())

    const path = join(dir, 'vectors.snapshot')
    await pipeline(Readable.from(source.snapshotChunks()), createWriteStream(path))
    const fromFile = new VectorSearch<{ id: string; text: string; n: number }>({
      identity: 'test-1024',
      dimensions: 1024,
    })
    await fromFile.restoreFrom(createReadStream(path, { highWaterMark: 1000 }))
    const query = Float32Array.from({ length: 1024 }, (_, i) => Math.sin(i))
    expect(fromFile.search({ vector: query, limit: 5 })).toEqual(source.search({ vector: query, limit: 5 }))
    expect(fromFile.get('doc-1099')?.n).toBe(1099)
  })

  it('refuses a flipped byte anywhere, a truncated stream and trailing bytes, keeping the index', async () => {
    const bytes = concat(chunks)
    const target = new VectorSearch<{ id: string }>({ identity: 'test-1024', dimensions: 1024 })
    target.upsert({ document: { id: 'kept' }, vector: Float32Array.from({ length: 1024 }, () => 1) })
    const positions = [0, 25, 40, 200, Math.floor(bytes.length / 2), bytes.length - 20, bytes.length - 1]
    for (const at of positions) {
      const copy = bytes.slice()
      copy[at] = copy[at]! ^ 0x10
      await expect(target.restoreFrom([copy])).rejects.toThrow(InvalidStateError)
    }
    await expect(target.restoreFrom([bytes.subarray(0, bytes.length - 100)])).rejects.toThrow(
      InvalidStateError,
    )
    await expect(target.restoreFrom([bytes, new Uint8Array([0])])).rejects.toThrow(InvalidStateError)
    await expect(target.restoreFrom([])).rejects.toThrow(InvalidStateError)
    await expect(target.restoreFrom(['text' as never])).rejects.toThrow(InvalidStateError)
    await expect(target.restoreFrom(42 as never)).rejects.toThrow(InvalidInputError)
    expect(target.ids()).toEqual(['kept'])
  })

  it('refuses a stream of another model, and one written for another configuration', async () => {
    const other = new VectorSearch({ identity: 'other-model', dimensions: 1024 })
    await expect(other.restoreFrom(chunks)).rejects.toThrow(/other-model/)
    const idField = new VectorSearch({ identity: 'test-1024', dimensions: 1024, idField: 'key' })
    await expect(idField.restoreFrom(chunks)).rejects.toThrow(/fingerprint/)
  })

  it('notices a change to the index while it streams or restores', async () => {
    const vectors = new VectorSearch({ identity: 't', dimensions: 2 })
    vectors.upsertMany(Array.from({ length: 3 }, (_, i) => ({ document: { id: `v${i}` }, vector: [1, i] })))
    const stream = vectors.snapshotChunks()
    stream.next()
    stream.next()
    vectors.remove('v0')
    expect(() => [...stream]).toThrow(InvalidStateError)

    const bytes = concat([...vectors.snapshotChunks()])
    async function* slow() {
      yield bytes.subarray(0, 10)
      await new Promise((resolve) => setTimeout(resolve, 5))
      yield bytes.subarray(10)
    }
    const restoring = vectors.restoreFrom(slow())
    vectors.upsert({ document: { id: 'meanwhile' }, vector: [0, 1] })
    await expect(restoring).rejects.toThrow(/changed while/)
    expect(vectors.has('meanwhile')).toBe(true)
  })

  it('writes version 2: a header that says so and an END record with the CRC-32 and the word hash', () => {
    const bytes = concat(chunks)
    const headerLength = new DataView(bytes.buffer, 21, 4).getUint32(0, true)
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(25, 25 + headerLength)))
    expect(header).toMatchObject({ format: 'agent-core/vector-search', version: 2, count: 1100 })
    expect([...bytes.subarray(bytes.length - 13, bytes.length - 8)]).toEqual([RECORD.END, 8, 0, 0, 0])
  })

  it('refuses a version 2 stream with a flipped bit in any vector, in the checksums or in the header', async () => {
    const bytes = concat(chunks)
    const target = new VectorSearch<{ id: string }>({ identity: 'test-1024', dimensions: 1024 })
    target.upsert({ document: { id: 'kept' }, vector: Float32Array.from({ length: 1024 }, () => 1) })
    // The vectors are the last 1100 * 1024 * 4 bytes before the END record, in records of 4 MiB.
    const vectorsFrom = bytes.length - 13 - 1100 * 1024 * 4 - 5 * 2
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: vectorsFrom, max: bytes.length - 14 }),
          fc.integer({ min: bytes.length - 8, max: bytes.length - 1 }),
          fc.integer({ min: 20, max: 200 }),
        ),
        fc.integer({ min: 0, max: 7 }),
        async (at, bit) => {
          const copy = bytes.slice()
          copy[at]! ^= 1 << bit
          await expect(target.restoreFrom([copy])).rejects.toThrow(InvalidStateError)
        },
      ),
      { numRuns: 60 },
    )
    // A float changed to another finite value (a vector no longer of unit length) is caught by the hash.
    const copy = bytes.slice()
    new DataView(copy.buffer).setFloat32(vectorsFrom + 4096, 0.5, true)
    await expect(target.restoreFrom([copy])).rejects.toThrow(/checksum does not match/)
    expect(target.ids()).toEqual(['kept'])
  })

  it('refuses a version 2 stream whose END record has the length of version 1, and the other way round', async () => {
    const target = new VectorSearch({ identity: 't', dimensions: 2 })
    const v2 = concat([...small().snapshotChunks()])
    const short = concat([
      v2.subarray(0, v2.length - 13),
      new Uint8Array([RECORD.END, 4, 0, 0, 0]),
      v2.subarray(v2.length - 8, v2.length - 4),
    ])
    await expect(target.restoreFrom([short])).rejects.toThrow(/end record is malformed/)
    const v1 = concat(versionOneChunks(small()))
    const long = concat([
      v1.subarray(0, v1.length - 9),
      new Uint8Array([RECORD.END, 8, 0, 0, 0]),
      v1.subarray(v1.length - 4),
      new Uint8Array(4),
    ])
    await expect(target.restoreFrom([long])).rejects.toThrow(/end record is malformed/)
    expect(target.size).toBe(0)
  })

  it('refuses a stream of a version it does not know, naming the versions it reads', async () => {
    const target = new VectorSearch({ identity: 't', dimensions: 2 })
    await expect(target.restoreFrom(versionOneChunks(small(), 3))).rejects.toThrow(
      /not a version 1 or 2 .*version the number 3\)/,
    )
    expect(target.size).toBe(0)
  })

  it('restores version 1 streams: bytes written before version 2, and a large one from the version 1 writer', async () => {
    const golden = new VectorSearch<{ id: string; tags?: string[] }>({ identity: 'golden', dimensions: 4 })
    await golden.restoreFrom([Buffer.from(VERSION_1_GOLDEN, 'base64')])
    expect(golden.ids()).toEqual(['a', 'b', 'c'])
    expect(golden.get('a')).toEqual({ id: 'a', tags: ['x'] })
    expect(golden.search({ vector: [1, 1, 1, 1], limit: 3 }).map((hit) => [hit.id, hit.score])).toEqual([
      ['a', 0.912870928645134],
      ['b', 0.5],
      ['c', 0.32732684165239334],
    ])
    const corrupt = Buffer.from(VERSION_1_GOLDEN, 'base64')
    corrupt[corrupt.length - 20]! ^= 1
    await expect(golden.restoreFrom([corrupt])).rejects.toThrow(/checksum does not match/)

    const v1 = concat(versionOneChunks(source))
    const fromV1 = new VectorSearch<{ id: string; text: string; n: number }>({
      identity: 'test-1024',
      dimensions: 1024,
    })
    await fromV1.restoreFrom([v1])
    expect(fromV1.snapshot()).toEqual(source.snapshot())
    for (const at of [40, 200, Math.floor(v1.length / 2), v1.length - 20, v1.length - 1]) {
      const copy = v1.slice()
      copy[at] = copy[at]! ^ 0x10
      await expect(fromV1.restoreFrom([copy])).rejects.toThrow(InvalidStateError)
    }
    expect(fromV1.size).toBe(1100)
  })

  it('restores the JSON form of an older snapshot file unchanged', () => {
    const path = join(dir, 'vectors.json')
    const small = new VectorSearch({ identity: 't', dimensions: 3 })
    small.upsertMany([
      { document: { id: 'a', tags: ['x'] }, vector: [1, 2, 3] },
      { document: { id: 'b' }, vector: [0, 0, 1] },
    ])
    writeFileSync(path, JSON.stringify(small.snapshot()))
    const copy = new VectorSearch({ identity: 't', dimensions: 3 })
    copy.restore(JSON.parse(readFileSync(path, 'utf8')))
    expect(copy.snapshot()).toEqual(small.snapshot())
  })
})
