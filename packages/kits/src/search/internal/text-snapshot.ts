/**
 * minisearch's plain-object serialization (`toJSON()`, serialization version 2): purging removed
 * documents before it is written, and checking every structural invariant as it is loaded (in the same
 * pass over the postings), so that a corrupt snapshot is refused instead of answering NaN scores,
 * negative sizes or duplicate hits later.
 */
import MiniSearch, { type Options } from 'minisearch'
import { crc32 } from './node-builtins.js'

/** The shape of minisearch 7's `toJSON()`. */
export interface SerializedMiniSearch {
  documentCount: number
  nextId: number
  documentIds: Record<string, string>
  fieldIds: Record<string, number>
  fieldLength: Record<string, (number | null)[]>
  averageFieldLength: (number | null)[]
  storedFields: Record<string, Record<string, unknown>>
  dirtCount?: number
  index: [string, Record<string, Record<string, number>>][]
  serializationVersion: number
}

/** `crc32:` and eight hex digits: the CRC-32 of the text's UTF-8 bytes. */
export function checksumOf(text: string): string {
  return `crc32:${crc32(text).toString(16).padStart(8, '0')}`
}

/** Drops postings of discarded documents from minisearch's plain-object form (what vacuum would do). */
export function purgeRemoved(plain: SerializedMiniSearch): void {
  const live = plain.documentIds
  const index: SerializedMiniSearch['index'] = []
  for (const [term, byField] of plain.index) {
    const kept: Record<string, Record<string, number>> = {}
    let any = false
    for (const [fieldId, postings] of Object.entries(byField)) {
      const keptPostings: Record<string, number> = {}
      let fieldAny = false
      for (const [shortId, frequency] of Object.entries(postings)) {
        if (!Object.hasOwn(live, shortId)) continue
        keptPostings[shortId] = frequency
        fieldAny = true
      }
      if (fieldAny) {
        kept[fieldId] = keptPostings
        any = true
      }
    }
    if (any) index.push([term, kept])
  }
  plain.index = index
  plain.dirtCount = 0
}

/** A corrupt serialized index; the message says which invariant fails. */
export class CorruptIndex extends Error {}

function fail(problem: string): never {
  throw new CorruptIndex(problem)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

/** The short id a key stands for, or -1 when the key is not a canonical non-negative integer. */
function shortIdOf(key: string, nextId: number): number {
  const n = Number(key)
  return Number.isSafeInteger(n) && n >= 0 && n < nextId && String(n) === key ? n : -1
}

/** What the postings are checked against, found by {@link checkSerializedHeader}. */
export interface IndexFacts {
  readonly nextId: number
  readonly fields: readonly string[]
  /** Per field and short id: 1 when the document has a length of at least 1 in that field. */
  readonly hasLength: Uint8Array
  /** Per field: 1 when its average length is above 0. */
  readonly averagePositive: Uint8Array
}

/**
 * Checks every structural invariant of a parsed serialized index but its postings against the index's
 * configuration: counts, id maps (no id twice), field ids, field lengths, averages and stored fields.
 * The postings are checked by {@link checkedPostings}, one term at a time, as they are loaded.
 *
 * @throws CorruptIndex naming the first invariant that fails
 */
export function checkSerializedHeader(
  plain: unknown,
  fields: readonly string[],
  storedFields: readonly string[],
): IndexFacts {
  if (!isObject(plain)) fail('it is not an object')
  if (plain.serializationVersion !== 2)
    fail(`its serializationVersion is ${String(plain.serializationVersion)}`)
  const { documentCount, nextId, documentIds, fieldIds, fieldLength, averageFieldLength } = plain
  if (!isCount(documentCount)) fail('documentCount is not a count')
  if (!isCount(nextId)) fail('nextId is not a count')
  if (plain.dirtCount !== undefined && plain.dirtCount !== 0) fail('it still holds removed documents')
  if (!isObject(fieldIds)) fail('fieldIds is missing')
  const fieldKeys = Object.keys(fieldIds)
  if (fieldKeys.length !== fields.length || fields.some((field, i) => fieldIds[field] !== i)) {
    fail('its fields do not match this index')
  }
  if (!isObject(documentIds)) fail('documentIds is missing')
  const idKeys = Object.keys(documentIds)
  if (idKeys.length !== documentCount)
    fail(`documentCount is ${documentCount} but it lists ${idKeys.length} documents`)
  const seen = new Set<string>()
  for (const key of idKeys) {
    if (shortIdOf(key, nextId) === -1) fail(`the document key "${key}" is not a short id below nextId`)
    const id = documentIds[key]
    if (typeof id !== 'string' || id === '') fail(`document ${key} has no string id`)
    if (seen.has(id)) fail(`the id "${id}" occurs twice`)
    seen.add(id)
  }
  if (!isObject(fieldLength)) fail('fieldLength is missing')
  const lengthKeys = Object.keys(fieldLength)
  if (lengthKeys.length !== idKeys.length) fail('fieldLength does not list every document once')
  const fieldCount = fields.length
  if (fieldCount * nextId > 2 ** 28) fail(`nextId ${nextId} is implausibly large`)
  const hasLength = new Uint8Array(fieldCount * nextId)
  const present = new Uint8Array(fieldCount)
  for (const key of lengthKeys) {
    if (!Object.hasOwn(documentIds, key)) fail(`fieldLength lists the unknown document ${key}`)
    const shortId = Number(key)
    const lengths = fieldLength[key]
    if (!Array.isArray(lengths) || lengths.length > fieldCount)
      fail(`the field lengths of document ${key} are malformed`)
    for (let i = 0; i < lengths.length; i++) {
      const length: unknown = lengths[i]
      if (length === null || length === undefined) continue
      if (!isCount(length)) fail(`a field length of document ${key} is not a count`)
      present[i] = 1
      if (length >= 1) hasLength[i * nextId + shortId] = 1
    }
  }
  if (!Array.isArray(averageFieldLength) || averageFieldLength.length > fieldCount)
    fail('averageFieldLength is malformed')
  const averagePositive = new Uint8Array(fieldCount)
  for (let i = 0; i < fieldCount; i++) {
    const average: unknown = averageFieldLength[i]
    if (average === null || average === undefined) {
      if (present[i] === 1) fail(`the average length of field "${fields[i]}" is missing`)
      continue
    }
    if (typeof average !== 'number' || !Number.isFinite(average) || average < 0)
      fail(`the average length of field "${fields[i]}" is not a finite number of at least 0`)
    if (average > 0) averagePositive[i] = 1
  }
  const stored = plain.storedFields
  if (!isObject(stored)) fail('storedFields is missing')
  const storedSet = new Set(storedFields)
  for (const key of Object.keys(stored)) {
    if (!Object.hasOwn(documentIds, key)) fail(`storedFields lists the unknown document ${key}`)
    const values = stored[key]
    if (!isObject(values)) fail(`the stored fields of document ${key} are not an object`)
    for (const field of Object.keys(values)) {
      if (!storedSet.has(field)) fail(`document ${key} stores the undeclared field "${field}"`)
    }
  }
  if (!Array.isArray(plain.index)) fail('index is missing')
  return { nextId, fields, hasLength, averagePositive }
}

/**
 * Index entry `t` of a serialized index checked (a term after `previous` in code-unit order, known
 * fields of positive average length, live documents with a length in that field, positive integer
 * frequencies, at least one posting) and turned into the engine's form: field id to short id to
 * frequency, the maps minisearch's own loader builds.
 *
 * @throws CorruptIndex naming the first invariant that fails
 */
export function checkedPostings(
  entry: unknown,
  t: number,
  previous: string | undefined,
  facts: IndexFacts,
): { readonly term: string; readonly postings: Map<number, Map<number, number>> } {
  if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string' || !isObject(entry[1]))
    fail(`index entry ${t} is malformed`)
  const term: string = entry[0]
  // Snapshots list terms in code-unit order: strictly ascending means no term twice.
  if (previous !== undefined && !(previous < term))
    fail(`the terms are not in order (or "${term}" occurs twice)`)
  const { nextId, hasLength, averagePositive } = facts
  const fieldCount = facts.fields.length
  const byField = entry[1]
  const out = new Map<number, Map<number, number>>()
  let postingsSeen = false
  for (const fieldKey in byField) {
    // Field ids are small: a single digit is the common case.
    const fieldId = fieldKey.length === 1 ? fieldKey.charCodeAt(0) - 48 : shortIdOf(fieldKey, fieldCount)
    if (!(fieldId >= 0 && fieldId < fieldCount))
      fail(`the term "${term}" names the unknown field ${fieldKey}`)
    const postings = byField[fieldKey]
    if (typeof postings !== 'object' || postings === null) fail(`the postings of "${term}" are malformed`)
    if (averagePositive[fieldId] !== 1)
      fail(`the term "${term}" is in field ${fieldKey}, whose average length is 0`)
    const row = fieldId * nextId
    const frequencies = new Map<number, number>()
    for (const key in postings) {
      const frequency = (postings as Record<string, unknown>)[key]
      const shortId = +key
      // A length of at least 1 in this field also proves the document exists (and the id is in range).
      if (!(hasLength[row + shortId] === 1 && shortId < nextId))
        fail(`the term "${term}" points at document ${key}, which is unknown or has no length in that field`)
      if (!(typeof frequency === 'number' && frequency >>> 0 === frequency && frequency >= 1))
        fail(`the term "${term}" has a frequency that is not a positive integer`)
      frequencies.set(shortId, frequency)
      postingsSeen = true
    }
    out.set(fieldId, frequencies)
  }
  if (!postingsSeen) fail(`the term "${term}" has no postings`)
  return { term, postings: out }
}

/** The part of a minisearch instance its loader fills term by term (minisearch 7, bundled and pinned). */
interface TermIndex {
  set(term: string, postings: Map<number, Map<number, number>>): unknown
}

/**
 * A parsed serialized index checked and loaded in one pass: the header is checked, minisearch's own
 * loader restores everything but the postings, then each term is checked and handed to the engine as
 * the maps its loader would have built. A corrupt entry stops the load before the caller sees the
 * engine, so nothing half-loaded escapes.
 *
 * @throws CorruptIndex naming the first invariant that fails
 */
export function loadCheckedIndex(
  plain: unknown,
  fields: readonly string[],
  storedFields: readonly string[],
  options: Options<Record<string, unknown>>,
): MiniSearch<Record<string, unknown>> {
  const facts = checkSerializedHeader(plain, fields, storedFields)
  const serialized = plain as unknown as SerializedMiniSearch
  const engine = MiniSearch.loadJS<Record<string, unknown>>({ ...serialized, index: [] } as never, options)
  const terms = (engine as unknown as { _index: TermIndex })._index
  const entries: readonly unknown[] = serialized.index
  let previous: string | undefined
  for (let t = 0; t < entries.length; t++) {
    const { term, postings } = checkedPostings(entries[t], t, previous, facts)
    terms.set(term, postings)
    previous = term
  }
  return engine
}
