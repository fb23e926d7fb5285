/**
 * The argument checks of a database-backed store (\`where\` names the store in messages): what the SQL
 * statements bind is refused before a transaction starts. The PostgreSQL store uses them.
 */
import {
  assertNonEmptyString,
  assertObject,
  assertSafeInteger,
  describeValue,
  refuseField,
  throwIfAborted,
} from '@agent-core/core'
import type { KnowledgeEmbeddingSpace, KnowledgeStoreBatch } from '../knowledge-store.js'

export function checkCallOptions(options: unknown, point: string, where: string): AbortSignal {
  assertObject(options, 'options', { where, arrays: false, hint: 'Pass { signal }.' })
  const { signal } = options
  if (!(signal instanceof AbortSignal)) {
    refuseField(
      'input',
      'options.signal',
      `must be an AbortSignal, but got ${describeValue(signal)}`,
      signal,
      { prefix: `${where}: ` },
    )
  }
  throwIfAborted(signal, point)
  return signal
}

export function checkSpace(space: unknown, field: string, where: string): KnowledgeEmbeddingSpace {
  assertObject(space, field, { where, arrays: false })
  assertNonEmptyString(space.identity, `${field}.identity`, { where })
  assertSafeInteger(space.dimensions, `${field}.dimensions`, { where, min: 1 })
  return space as unknown as KnowledgeEmbeddingSpace
}

export function checkArray(value: unknown, field: string, where: string): readonly unknown[] {
  if (!Array.isArray(value)) {
    refuseField('input', field, `must be an array, but got ${describeValue(value)}`, value, {
      prefix: `${where}: `,
    })
  }
  return value
}

function checkTime(value: unknown, field: string, where: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    refuseField(
      'input',
      field,
      `must be a finite number of epoch milliseconds, but got ${describeValue(value)}`,
      value,
      { prefix: `${where}: ` },
    )
  }
}

/** Checks the parts of a batch the SQL statements bind, so that a wrong call is refused before the transaction. */
export function checkBatch(batch: unknown, where: string): KnowledgeStoreBatch {
  assertObject(batch, 'batch', {
    where: where,
    arrays: false,
    hint: 'Pass { publicationId, space, documents, vectors }.',
  })
  assertNonEmptyString(batch.publicationId, 'batch.publicationId', { where })
  const space = batch.space === undefined ? undefined : checkSpace(batch.space, 'batch.space', where)
  const documents = checkArray(batch.documents, 'batch.documents', where)
  const seen = new Set<string>()
  documents.forEach((change, i) => {
    const field = `batch.documents[${i}]`
    assertObject(change, field, { where, arrays: false })
    assertSafeInteger(change.expectedRevision, `${field}.expectedRevision`, { where, min: 0 })
    const record = change.record
    assertObject(record, `${field}.record`, { where, arrays: false })
    assertNonEmptyString(record.id, `${field}.record.id`, { where })
    if (seen.has(record.id)) {
      refuseField(
        'input',
        `${field}.record.id`,
        `repeats "${record.id}", a document this batch already changes. Change each document once per batch`,
        record.id,
        { prefix: `${where}: ` },
      )
    }
    seen.add(record.id)
    assertSafeInteger(record.revision, `${field}.record.revision`, { where, min: 1 })
    assertNonEmptyString(record.contentHash, `${field}.record.contentHash`, { where })
    assertSafeInteger(record.passageCount, `${field}.record.passageCount`, { where, min: 0 })
    checkTime(record.publishedAtMs, `${field}.record.publishedAtMs`, where)
    if (record.retractedAtMs !== undefined)
      checkTime(record.retractedAtMs, `${field}.record.retractedAtMs`, where)
    if (record.title !== undefined && typeof record.title !== 'string') {
      refuseField(
        'input',
        `${field}.record.title`,
        `must be a string or left out, but got ${describeValue(record.title)}`,
        record.title,
        { prefix: `${where}: ` },
      )
    }
    const passages = checkArray(change.passages, `${field}.passages`, where)
    passages.forEach((passage, j) => {
      const at = `${field}.passages[${j}]`
      assertObject(passage, at, { where, arrays: false })
      assertNonEmptyString(passage.id, `${at}.id`, { where })
      if (passage.documentId !== record.id) {
        refuseField(
          'input',
          `${at}.documentId`,
          `must be "${String(record.id)}", the document it is written with, but got ${describeValue(passage.documentId)}`,
          passage.documentId,
          { prefix: `${where}: ` },
        )
      }
      for (const key of ['revision', 'number', 'start', 'end', 'startLine', 'endLine'] as const)
        assertSafeInteger(passage[key], `${at}.${key}`, { where, min: 0 })
      if (typeof passage.text !== 'string') {
        refuseField(
          'input',
          `${at}.text`,
          `must be a string, but got ${describeValue(passage.text)}`,
          passage.text,
          { prefix: `${where}: ` },
        )
      }
      checkArray(passage.headingPath, `${at}.headingPath`, where)
      assertNonEmptyString(passage.hash, `${at}.hash`, { where })
    })
  })
  const vectors = checkArray(batch.vectors, 'batch.vectors', where)
  vectors.forEach((entry, i) => {
    assertObject(entry, `batch.vectors[${i}]`, { where, arrays: false })
    assertNonEmptyString(entry.hash, `batch.vectors[${i}].hash`, { where })
    if (
      space === undefined ||
      !(entry.vector instanceof Float32Array) ||
      entry.vector.length !== space.dimensions
    ) {
      refuseField(
        'input',
        `batch.vectors[${i}].vector`,
        `must be a Float32Array of batch.space.dimensions numbers, but got ${describeValue(entry.vector)}`,
        entry.vector,
        { prefix: `${where}: ` },
      )
    }
  })
  return batch as unknown as KnowledgeStoreBatch
}
