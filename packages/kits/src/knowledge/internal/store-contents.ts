/**
 * Checks what a store returns before the publication trusts it: a store is App code (or a file that may
 * have been edited), and a wrong row must become a clear error, not a wrong index.
 */
import { describeValue, InvalidOutputError } from '@agent-core/core'
import type {
  KnowledgeDocumentRecord,
  KnowledgeEmbeddingSpace,
  KnowledgePassageRecord,
  KnowledgeStoreContents,
} from '../knowledge-store.js'
import { passageId } from './passages.js'

const HASH = /^[A-Za-z0-9_-]{43}$/

/** What a load gives the publication, checked. */
export interface CheckedContents {
  /** Every document row by id, published or retracted. */
  readonly records: Map<string, KnowledgeDocumentRecord>
  /** The passages of each published document, in the store's order. */
  readonly passages: Map<string, KnowledgePassageRecord[]>
  readonly vectors: ReadonlyMap<string, Float32Array>
  readonly passageCount: number
}

function bad(hook: string, field: string, problem: string, value: unknown): InvalidOutputError {
  return new InvalidOutputError(
    `The knowledge store's ${hook} returned ${field} ${problem}. Check the store; a SQLite file edited by hand can be deleted and rebuilt by publishing again.`,
    { details: { hook, field, returned: describeValue(value) } },
  )
}

function isCount(value: unknown, min: number): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min
}

function checkRecord(value: unknown, field: string): KnowledgeDocumentRecord {
  const hook = 'store.load'
  if (typeof value !== 'object' || value === null)
    throw bad(hook, field, 'that is not a document record', value)
  const record = value as Record<string, unknown>
  if (typeof record.id !== 'string' || record.id === '')
    throw bad(hook, `${field}.id`, 'that is not a non-empty string', record.id)
  if (!isCount(record.revision, 1))
    throw bad(hook, `${field}.revision`, 'that is not a revision (1 or more)', record.revision)
  if (typeof record.contentHash !== 'string' || !HASH.test(record.contentHash))
    throw bad(hook, `${field}.contentHash`, 'that is not a SHA-256 hash', record.contentHash)
  if (!isCount(record.passageCount, 0))
    throw bad(hook, `${field}.passageCount`, 'that is not a count', record.passageCount)
  if (typeof record.publishedAtMs !== 'number' || !Number.isFinite(record.publishedAtMs))
    throw bad(hook, `${field}.publishedAtMs`, 'that is not a time', record.publishedAtMs)
  if (
    record.retractedAtMs !== undefined &&
    (typeof record.retractedAtMs !== 'number' || !Number.isFinite(record.retractedAtMs))
  )
    throw bad(hook, `${field}.retractedAtMs`, 'that is not a time', record.retractedAtMs)
  if (record.title !== undefined && typeof record.title !== 'string')
    throw bad(hook, `${field}.title`, 'that is not a string', record.title)
  if (
    record.metadata !== undefined &&
    (typeof record.metadata !== 'object' || record.metadata === null || Array.isArray(record.metadata))
  )
    throw bad(hook, `${field}.metadata`, 'that is not an object', record.metadata)
  return value as KnowledgeDocumentRecord
}

function checkPassage(
  value: unknown,
  field: string,
  records: Map<string, KnowledgeDocumentRecord>,
): KnowledgePassageRecord {
  const hook = 'store.load'
  if (typeof value !== 'object' || value === null)
    throw bad(hook, field, 'that is not a passage record', value)
  const p = value as Record<string, unknown>
  const document = typeof p.documentId === 'string' ? records.get(p.documentId) : undefined
  if (document === undefined || document.retractedAtMs !== undefined)
    throw bad(hook, `${field}.documentId`, 'that names no published document', p.documentId)
  if (p.revision !== document.revision)
    throw bad(
      hook,
      `${field}.revision`,
      `that is not the document's revision ${document.revision}`,
      p.revision,
    )
  if (!isCount(p.number, 1)) throw bad(hook, `${field}.number`, 'that is not a passage number', p.number)
  if (p.id !== passageId(document.id, document.revision, p.number as number))
    throw bad(
      hook,
      `${field}.id`,
      `that is not "${passageId(document.id, document.revision, p.number as number)}"`,
      p.id,
    )
  if (!Array.isArray(p.headingPath) || !p.headingPath.every((heading) => typeof heading === 'string'))
    throw bad(hook, `${field}.headingPath`, 'that is not an array of strings', p.headingPath)
  if (typeof p.text !== 'string' || p.text.trim() === '')
    throw bad(hook, `${field}.text`, 'that is not a non-blank string', p.text)
  for (const key of ['start', 'end', 'startLine', 'endLine'] as const) {
    if (!isCount(p[key], key === 'start' || key === 'end' ? 0 : 1))
      throw bad(hook, `${field}.${key}`, 'that is not an offset', p[key])
  }
  if ((p.end as number) < (p.start as number) || (p.endLine as number) < (p.startLine as number))
    throw bad(hook, `${field}.end`, 'that is before its start', p.end)
  if (typeof p.hash !== 'string' || !HASH.test(p.hash))
    throw bad(hook, `${field}.hash`, 'that is not a SHA-256 hash', p.hash)
  return value as KnowledgePassageRecord
}

/** Checks one vector a store returned: a Float32Array of the space's dimensions, finite, not all zero. */
export function checkStoredVector(
  value: unknown,
  space: KnowledgeEmbeddingSpace,
  field: string,
  hook: string,
): Float32Array {
  if (!(value instanceof Float32Array) || value.length !== space.dimensions)
    throw bad(hook, field, `that is not a Float32Array of ${space.dimensions} numbers`, value)
  let nonZero = false
  for (let i = 0; i < value.length; i++) {
    const x = value[i] as number
    if (!(x - x === 0)) throw bad(hook, field, `with ${x} at dimension ${i}`, value)
    if (x !== 0) nonZero = true
  }
  if (!nonZero) throw bad(hook, field, 'that is all zeros', value)
  return value
}

/** Checks a whole load answer. */
export function checkContents(
  contents: unknown,
  space: KnowledgeEmbeddingSpace | undefined,
): CheckedContents {
  const hook = 'store.load'
  if (typeof contents !== 'object' || contents === null)
    throw bad(hook, 'contents', 'that are not an object', contents)
  const { documents, passages, vectors } = contents as Partial<KnowledgeStoreContents>
  if (!Array.isArray(documents)) throw bad(hook, 'documents', 'that are not an array', documents)
  if (!Array.isArray(passages)) throw bad(hook, 'passages', 'that are not an array', passages)
  if (!(vectors instanceof Map)) throw bad(hook, 'vectors', 'that are not a Map', vectors)
  const records = new Map<string, KnowledgeDocumentRecord>()
  for (let i = 0; i < documents.length; i++) {
    const record = checkRecord(documents[i], `documents[${i}]`)
    if (records.has(record.id)) throw bad(hook, `documents[${i}].id`, `"${record.id}" twice`, record.id)
    records.set(record.id, record)
  }
  const byDocument = new Map<string, KnowledgePassageRecord[]>()
  const ids = new Set<string>()
  for (let i = 0; i < passages.length; i++) {
    const passage = checkPassage(passages[i], `passages[${i}]`, records)
    if (ids.has(passage.id)) throw bad(hook, `passages[${i}].id`, `"${passage.id}" twice`, passage.id)
    ids.add(passage.id)
    let list = byDocument.get(passage.documentId)
    if (list === undefined) byDocument.set(passage.documentId, (list = []))
    list.push(passage)
  }
  for (const [id, record] of records) {
    const count = record.retractedAtMs === undefined ? (byDocument.get(id)?.length ?? 0) : 0
    if (record.retractedAtMs === undefined && count !== record.passageCount)
      throw bad(
        hook,
        `documents "${id}".passageCount`,
        `${record.passageCount}, but it has ${count} passages`,
        record.passageCount,
      )
  }
  if (space !== undefined) {
    for (const [hash, vector] of vectors) {
      if (typeof hash !== 'string' || !HASH.test(hash))
        throw bad(hook, 'vectors key', 'that is not a SHA-256 hash', hash)
      checkStoredVector(vector, space, `vectors "${hash}"`, hook)
    }
  }
  return { records, passages: byDocument, vectors, passageCount: ids.size }
}
