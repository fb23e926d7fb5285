import { assertSafeInteger, describeValue, refuseField } from '@agent-core/core'
import type { SearchOptions } from 'minisearch'
import { assertFiniteNumber } from './checks.js'

const KEYS = [
  'prefix',
  'fuzzy',
  'maxFuzzy',
  'boost',
  'combineWith',
  'fields',
  'weights',
  'bm25',
  'termBoost',
] as const
const COMBINE = new Set(['OR', 'AND', 'AND_NOT', 'or', 'and', 'and_not'])
const DEFAULT_WEIGHTS = { fuzzy: 0.45, prefix: 0.375 }
/**
 * The largest edit distance a query may ask for (`fuzzy` of 1 or more, `maxFuzzy`): minisearch allocates
 * a matrix of (term length + distance) cells for each fuzzy term, so a huge distance is a RangeError or a
 * stall, and no two words that far apart are a typo of each other.
 */
const MAX_EDIT_DISTANCE = 32
const DEFAULT_BM25 = { k: 1.2, b: 0.7, d: 0.5 }

/** True when `source` sets any query option. */
export function hasQueryOptions(source: Readonly<Record<string, unknown>>): boolean {
  for (const key of KEYS) if (source[key] !== undefined) return true
  return false
}

function assertPlainObject(value: unknown, field: string): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    refuseField('input', field, `must be an object, but got ${describeValue(value)}`, value)
  }
}

function assertIndexedField(name: unknown, fields: ReadonlySet<string>, field: string): void {
  if (typeof name !== 'string' || !fields.has(name)) {
    refuseField(
      'input',
      field,
      `names ${describeValue(name)}, which is not an indexed field. Indexed fields: ${[...fields].join(', ')}`,
      name,
      { details: { fields: [...fields] } },
    )
  }
}

/**
 * Checks the query options in `source` and writes them, in minisearch's shape, over `base`.
 * @param where - the path of `source` as the caller wrote it (`request`, `options.searchOptions`)
 */
export function readQueryOptions(
  source: Readonly<Record<string, unknown>>,
  fields: ReadonlySet<string>,
  base: SearchOptions,
  where: string,
): SearchOptions {
  const out: SearchOptions = { ...base }
  const { prefix, fuzzy, maxFuzzy, boost, combineWith, fields: only, weights, bm25, termBoost } = source
  if (prefix !== undefined) {
    if (typeof prefix !== 'boolean') {
      refuseField('input', `${where}.prefix`, `must be a boolean, but got ${describeValue(prefix)}`, prefix)
    }
    out.prefix = prefix
  }
  if (fuzzy !== undefined) {
    if (typeof fuzzy !== 'boolean') {
      assertFiniteNumber(fuzzy, `${where}.fuzzy`, { min: 0 })
      if (fuzzy > MAX_EDIT_DISTANCE) {
        refuseField(
          'input',
          `${where}.fuzzy`,
          `must be a fraction of the term length below 1 or an edit distance of at most ${MAX_EDIT_DISTANCE}, but got ${describeValue(fuzzy)}`,
          fuzzy,
          { details: { max: MAX_EDIT_DISTANCE } },
        )
      }
    }
    out.fuzzy = fuzzy
  }
  if (maxFuzzy !== undefined) {
    assertSafeInteger(maxFuzzy, `${where}.maxFuzzy`, { min: 0, max: MAX_EDIT_DISTANCE })
    out.maxFuzzy = maxFuzzy
  }
  if (boost !== undefined) {
    assertPlainObject(boost, `${where}.boost`)
    const checked: Record<string, number> = {}
    for (const [field, factor] of Object.entries(boost)) {
      assertIndexedField(field, fields, `${where}.boost`)
      assertFiniteNumber(factor, `${where}.boost.${field}`, { min: 0, exclusiveMin: true })
      checked[field] = factor
    }
    out.boost = checked
  }
  if (combineWith !== undefined) {
    if (typeof combineWith !== 'string' || !COMBINE.has(combineWith)) {
      refuseField(
        'input',
        `${where}.combineWith`,
        `must be "OR", "AND" or "AND_NOT", but got ${describeValue(combineWith)}`,
        combineWith,
      )
    }
    out.combineWith = combineWith as SearchOptions['combineWith']
  }
  if (only !== undefined) {
    if (!Array.isArray(only) || only.length === 0) {
      refuseField(
        'input',
        `${where}.fields`,
        `must be a non-empty array of indexed fields, but got ${describeValue(only)}`,
        only,
      )
    }
    for (const field of only) assertIndexedField(field, fields, `${where}.fields`)
    out.fields = [...(only as string[])]
  }
  if (weights !== undefined) {
    assertPlainObject(weights, `${where}.weights`)
    const merged = { ...DEFAULT_WEIGHTS, ...base.weights }
    for (const key of ['fuzzy', 'prefix'] as const) {
      if (weights[key] === undefined) continue
      assertFiniteNumber(weights[key], `${where}.weights.${key}`, { min: 0 })
      merged[key] = weights[key]
    }
    out.weights = merged
  }
  if (bm25 !== undefined) {
    assertPlainObject(bm25, `${where}.bm25`)
    const merged = { ...DEFAULT_BM25, ...base.bm25 }
    for (const key of ['k', 'b', 'd'] as const) {
      if (bm25[key] === undefined) continue
      assertFiniteNumber(bm25[key], `${where}.bm25.${key}`, { min: 0 })
      merged[key] = bm25[key]
    }
    out.bm25 = merged
  }
  if (termBoost !== undefined) {
    assertPlainObject(termBoost, `${where}.termBoost`)
    const factors = new Map<string, number>()
    for (const [term, factor] of Object.entries(termBoost)) {
      assertFiniteNumber(factor, `${where}.termBoost[${JSON.stringify(term)}]`, {
        min: 0,
        exclusiveMin: true,
      })
      factors.set(term, factor)
    }
    out.boostTerm = (term) => factors.get(term) ?? 1
  }
  return out
}
