import { assertNonEmptyString, assertSafeInteger, describeValue, refuseField } from '@agent-core/core'
import type { Embedder } from '../embedder.js'
import type { HybridFusionOptions } from '../hybrid-search-types.js'
import { assertFiniteNumber, assertRequest } from './checks.js'

/** Checks the embedder port of a HybridSearch. */
export function checkEmbedder(embedder: unknown): Embedder {
  const candidate = embedder as Partial<Embedder> | null
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.embed !== 'function') {
    refuseField(
      'input',
      'options.embedder',
      `must be an object with identity, dimensions and embed(texts, { signal }), but got ${describeValue(embedder)}`,
      embedder,
      { prefix: 'HybridSearch ' },
    )
  }
  assertNonEmptyString(candidate.identity, 'options.embedder.identity')
  assertSafeInteger(candidate.dimensions, 'options.embedder.dimensions', { min: 1, max: 65_536 })
  if (candidate.maxBatch !== undefined)
    assertSafeInteger(candidate.maxBatch, 'options.embedder.maxBatch', { min: 1 })
  return candidate as Embedder
}

/** Checks fusion options and fills the defaults. */
export function readFusion(value: unknown): Required<HybridFusionOptions> {
  // Each default is written once, below: no fusion options reads like an empty object.
  if (value !== undefined)
    assertRequest(value, 'new HybridSearch', '{ k: 60, textWeight: 1 }', 'options.fusion')
  const options = (value ?? {}) as HybridFusionOptions
  const k = options.k ?? 60
  assertFiniteNumber(k, 'options.fusion.k', { min: 0 })
  const textWeight = options.textWeight ?? 1
  assertFiniteNumber(textWeight, 'options.fusion.textWeight', { min: 0, exclusiveMin: true })
  const vectorWeight = options.vectorWeight ?? 1
  assertFiniteNumber(vectorWeight, 'options.fusion.vectorWeight', { min: 0, exclusiveMin: true })
  const lookups = readChoice(options.lookups, 'lookups', ['text-first', 'fuse'] as const)
  const lookupRanking = readChoice(options.lookupRanking, 'lookupRanking', ['flat', 'boosted'] as const)
  const candidates = options.candidates ?? 50
  assertSafeInteger(candidates, 'options.fusion.candidates', { min: 1 })
  const documentSupport = options.documentSupport ?? 0
  assertFiniteNumber(documentSupport, 'options.fusion.documentSupport', { min: 0 })
  const verbatim = options.verbatim ?? 0.5
  assertFiniteNumber(verbatim, 'options.fusion.verbatim', { min: 0 })
  return { k, textWeight, vectorWeight, lookups, lookupRanking, candidates, documentSupport, verbatim }
}

/** A fusion option that names one of `allowed` (the first is the default), or its refusal. */
function readChoice<const Allowed extends readonly [string, ...string[]]>(
  value: unknown,
  field: string,
  allowed: Allowed,
): Allowed[number] {
  if (value === undefined) return allowed[0]
  if (typeof value === 'string' && allowed.includes(value)) return value
  return refuseField(
    'input',
    `options.fusion.${field}`,
    `must be ${allowed.map((choice) => `"${choice}"`).join(' or ')}, but got ${describeValue(value)}`,
    value,
    { prefix: 'HybridSearch ' },
  )
}
