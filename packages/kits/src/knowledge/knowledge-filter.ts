import { describeValue, InvalidInputError } from '@agent-core/core'
import type { KnowledgePassage } from './knowledge-types.js'

/**
 * A metadata value a {@link KnowledgeFilter} compares with: a JSON scalar.
 * @example
 * ```ts
 * import type { KnowledgeFilterValue } from '@agent-core/kits/knowledge'
 * const values: KnowledgeFilterValue[] = ['en', 3, true, null]
 * ```
 */
export type KnowledgeFilterValue = string | number | boolean | null

/**
 * Which passages a search keeps, declared as data so that a database can evaluate it (a JS callback
 * cannot run inside PostgreSQL). Every given part must hold (AND); an empty filter keeps everything.
 *
 * - `documentIds`: the passage's document is one of these.
 * - `documentIdPrefix`: the document id starts with this text (`'guides/'`).
 * - `metadata`: per key, the document's metadata value at that key equals the given scalar or one of
 *   the given scalars; when the stored value is an array (`tags: ['a', 'b']`), one of its elements must
 *   equal one of them. A missing key never matches. Numbers compare by value.
 *
 * The in-memory index takes it through {@link knowledgeFilterPredicate}; `PostgresKnowledgeIndex`
 * translates it to SQL (`= ANY`, `starts_with`, `jsonb` comparisons): the same passages either way.
 * @example
 * ```ts
 * import type { KnowledgeFilter } from '@agent-core/kits/knowledge'
 * const filter: KnowledgeFilter = { documentIdPrefix: 'guides/', metadata: { lang: 'en', tags: ['setup', 'install'] } }
 * ```
 */
export interface KnowledgeFilter {
  readonly documentIds?: readonly string[] | undefined
  readonly documentIdPrefix?: string | undefined
  readonly metadata?:
    | Readonly<Record<string, KnowledgeFilterValue | readonly KnowledgeFilterValue[]>>
    | undefined
}

/** A checked filter: every part present is normalized (metadata values as lists). */
export interface CheckedKnowledgeFilter {
  readonly documentIds: readonly string[] | undefined
  readonly documentIdPrefix: string | undefined
  readonly metadata: readonly { readonly key: string; readonly values: readonly KnowledgeFilterValue[] }[]
}

function bad(field: string, problem: string, value: unknown): InvalidInputError {
  return new InvalidInputError(`Knowledge filter: ${field} ${problem}, but got ${describeValue(value)}.`, {
    details: { field, received: describeValue(value) },
  })
}

function isScalar(value: unknown): value is KnowledgeFilterValue {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  )
}

/** Checks a {@link KnowledgeFilter} (`field` names it in messages). */
export function checkKnowledgeFilter(filter: unknown, field = 'filter'): CheckedKnowledgeFilter {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw bad(field, "must be an object such as { documentIdPrefix: 'guides/' }", filter)
  }
  const known = new Set(['documentIds', 'documentIdPrefix', 'metadata'])
  for (const key of Object.keys(filter)) {
    if (!known.has(key)) {
      throw bad(`${field}.${key}`, 'is not a filter part (documentIds, documentIdPrefix, metadata)', key)
    }
  }
  const { documentIds, documentIdPrefix, metadata } = filter as KnowledgeFilter
  if (documentIds !== undefined) {
    if (!Array.isArray(documentIds) || !documentIds.every((id) => typeof id === 'string' && id !== '')) {
      throw bad(`${field}.documentIds`, 'must be an array of non-empty strings', documentIds)
    }
  }
  if (documentIdPrefix !== undefined && typeof documentIdPrefix !== 'string') {
    throw bad(`${field}.documentIdPrefix`, 'must be a string', documentIdPrefix)
  }
  const parts: { key: string; values: readonly KnowledgeFilterValue[] }[] = []
  if (metadata !== undefined) {
    if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
      throw bad(`${field}.metadata`, "must be an object such as { lang: 'en' }", metadata)
    }
    for (const [key, value] of Object.entries(metadata)) {
      const values = Array.isArray(value) ? (value as unknown[]) : [value]
      if (!values.every(isScalar)) {
        throw bad(
          `${field}.metadata.${key}`,
          'must be a string, finite number, boolean or null, or an array of them',
          value,
        )
      }
      parts.push({ key, values: values as KnowledgeFilterValue[] })
    }
  }
  return {
    documentIds: documentIds === undefined ? undefined : [...documentIds],
    documentIdPrefix,
    metadata: parts,
  }
}

function matches(stored: unknown, values: readonly KnowledgeFilterValue[]): boolean {
  if (Array.isArray(stored))
    return stored.some((element) => !Array.isArray(element) && matches(element, values))
  return stored !== undefined && values.some((value) => value === stored)
}

/**
 * A {@link KnowledgeFilter} as the callback `KnowledgePublication.search` (the in-memory index) takes.
 * @throws InvalidInputError for a malformed filter
 * @example
 * ```ts
 * import { createMemoryKnowledgeStore, Knowledge, knowledgeFilterPredicate } from '@agent-core/kits/knowledge'
 * const docs = Knowledge.defineKnowledgePublication({ id: 'docs', store: createMemoryKnowledgeStore() })
 * await docs.publish({ materials: [
 *   { id: 'en.md', text: 'Leave needs two weeks notice.', metadata: { lang: 'en' } },
 *   { id: 'de.md', text: 'Leave: zwei Wochen.', metadata: { lang: 'de' } },
 * ] })
 * const hits = await docs.search({ query: 'leave', limit: 5, filter: knowledgeFilterPredicate({ metadata: { lang: 'en' } }) })
 * console.log(hits.map((hit) => hit.document.documentId)) // ['en.md']
 * ```
 */
export function knowledgeFilterPredicate(filter: KnowledgeFilter): (passage: KnowledgePassage) => boolean {
  const checked = checkKnowledgeFilter(filter)
  const ids = checked.documentIds === undefined ? undefined : new Set(checked.documentIds)
  return (passage) => {
    if (ids !== undefined && !ids.has(passage.documentId)) return false
    if (checked.documentIdPrefix !== undefined && !passage.documentId.startsWith(checked.documentIdPrefix))
      return false
    for (const { key, values } of checked.metadata) {
      const metadata = passage.metadata
      if (metadata === undefined || !Object.hasOwn(metadata, key)) return false
      if (!matches(metadata[key], values)) return false
    }
    return true
  }
}
