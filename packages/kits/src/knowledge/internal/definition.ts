/** Checks a publication definition once, when it is defined. */
import {
  assertFunction,
  assertNonEmptyString,
  assertObject,
  assertSafeInteger,
  type CheckOptions,
  InvalidDefinitionError,
  InvalidInputError,
  refuseField,
} from '@agent-core/core'
import type { Embedder } from '@agent-core/kits/search'
import type { KnowledgePublicationDefinition, KnowledgeSearchOptions } from '../knowledge-definition.js'
import type { KnowledgeStore } from '../knowledge-store.js'
import type { KnowledgeMaterial } from '../knowledge-types.js'
import { assertWellFormed } from './material.js'
import type { PassageSettings } from './passages.js'

/** A checked definition with its defaults filled in. */
export interface CheckedDefinition {
  readonly id: string
  readonly store: KnowledgeStore
  readonly embedder: Embedder | undefined
  readonly passages: PassageSettings
  readonly assertMaterial: ((material: KnowledgeMaterial) => void) | undefined
  readonly authorize: KnowledgePublicationDefinition<unknown>['authorize']
  readonly passagesPerBatch: number
  readonly search: KnowledgeSearchOptions
}

const FIELDS = new Set([
  'id',
  'store',
  'embedder',
  'passages',
  'assertMaterial',
  'authorize',
  'passagesPerBatch',
  'search',
])

/** Checks the definition; every refusal is an InvalidDefinitionError naming the field. */
export function checkDefinition(definition: unknown): CheckedDefinition {
  const where = 'defineKnowledgePublication'
  assertObject(definition, 'definition', {
    where,
    arrays: false,
    error: InvalidDefinitionError,
    hint: 'Pass { id, store, embedder?, passages?, authorize? }.',
  })
  const id: unknown = definition.id
  assertNonEmptyString(id, 'id', {
    where,
    error: InvalidDefinitionError,
    hint: "Name the publication, for example id: 'docs'.",
  })
  const options: CheckOptions = { where: `${where} "${id}"`, error: InvalidDefinitionError, details: { id } }
  assertWellFormed(id, 'id', where, 'definition', { id })
  for (const key of Object.keys(definition)) {
    if (!FIELDS.has(key)) {
      refuseField(
        'definition',
        key,
        'is not a field of a publication definition. Use id, store, embedder, passages, assertMaterial, authorize, passagesPerBatch and search',
        definition[key],
        { prefix: `${where} "${id}": `, details: { id } },
      )
    }
  }
  const store = checkStore(definition.store, options)
  const embedder = definition.embedder === undefined ? undefined : checkEmbedder(definition.embedder, options)
  const passages = checkPassages(definition.passages, options)
  if (definition.assertMaterial !== undefined)
    assertFunction(definition.assertMaterial, 'assertMaterial', options)
  if (definition.authorize !== undefined) assertFunction(definition.authorize, 'authorize', options)
  const passagesPerBatch = definition.passagesPerBatch ?? 256
  assertSafeInteger(passagesPerBatch, 'passagesPerBatch', { ...options, min: 1 })
  const search = definition.search ?? {}
  assertObject(search, 'search', { ...options, arrays: false })
  for (const key of Object.keys(search)) {
    if (key !== 'boost' && key !== 'analyzer' && key !== 'fusion') {
      refuseField(
        'definition',
        `search.${key}`,
        'is not a search setting. Use boost, analyzer and fusion',
        (search as Record<string, unknown>)[key],
        { prefix: `${where} "${id}": `, details: { id } },
      )
    }
  }
  return {
    id,
    store,
    embedder,
    passages,
    assertMaterial: definition.assertMaterial as CheckedDefinition['assertMaterial'],
    authorize: definition.authorize as CheckedDefinition['authorize'],
    passagesPerBatch,
    search: search as KnowledgeSearchOptions,
  }
}

function checkStore(value: unknown, options: CheckOptions): KnowledgeStore {
  assertObject(value, 'store', {
    ...options,
    hint: 'Pass createSqliteKnowledgeStore(database) from @agent-core/kits/knowledge/sqlite, createMemoryKnowledgeStore(), or your own store with load, vectors and write.',
  })
  for (const method of ['load', 'vectors', 'write'] as const)
    assertFunction(value[method], `store.${method}`, options)
  return value as unknown as KnowledgeStore
}

function checkEmbedder(value: unknown, options: CheckOptions): Embedder {
  assertObject(value, 'embedder', {
    ...options,
    hint: 'Pass an Embedder { identity, dimensions, embed(texts, { signal }) } such as openAICompatibleEmbedder(...).',
  })
  assertNonEmptyString(value.identity, 'embedder.identity', options)
  assertSafeInteger(value.dimensions, 'embedder.dimensions', { ...options, min: 1, max: 65_536 })
  if (value.maxBatch !== undefined)
    assertSafeInteger(value.maxBatch, 'embedder.maxBatch', { ...options, min: 1 })
  assertFunction(value.embed, 'embedder.embed', options)
  return value as unknown as Embedder
}

function checkPassages(value: unknown, options: CheckOptions): PassageSettings {
  if (value === undefined) return { targetChars: 900, overlapChars: 0 }
  assertObject(value, 'passages', { ...options, arrays: false })
  const targetChars = value.targetChars ?? 900
  assertSafeInteger(targetChars, 'passages.targetChars', {
    ...options,
    min: 1,
    hint: 'Pick it from what your embedding model reads: about 900 for a model that reads 256 tokens.',
  })
  const overlapChars = value.overlapChars ?? 0
  assertSafeInteger(overlapChars, 'passages.overlapChars', { ...options, min: 0, max: targetChars - 1 })
  return { targetChars, overlapChars }
}

/**
 * Rewrites an InvalidInputError of the HybridSearch constructor (`options.fusion.k`) as an
 * InvalidDefinitionError of the publication (`search.fusion.k`).
 */
export function asDefinitionError(error: unknown, id: string): unknown {
  if (!InvalidInputError.isInstance(error)) return error
  const field =
    typeof error.details.field === 'string' ? error.details.field.replace(/^options\./, 'search.') : 'search'
  return new InvalidDefinitionError(
    `defineKnowledgePublication "${id}": the search settings were refused: ${error.message}`,
    { cause: error, details: { ...error.details, id, field } },
  )
}
