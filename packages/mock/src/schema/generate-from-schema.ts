import {
  canonicalJson,
  formatSchemaIssues,
  type JsonSchema,
  refuseField,
  type SchemaIssue,
} from '@agent-core/core'
import { assertSupportedSchema } from './assert-supported-schema.js'
import {
  candidateTypes,
  decide,
  declaredKeys,
  itemCap,
  type Norm,
  normalize,
  RefCycleError,
  schemasForIndex,
  schemasForKey,
  type TypeName,
} from './normalized-schema.js'
import { generateNumber, generateString, Unsatisfiable } from './primitive-generators.js'
import { createRng, type Rng } from './rng.js'
import { MAX_OUTPUT_CHARS } from './schema-budget.js'
import { isSchemaObject, SchemaDocument } from './schema-document.js'

/** Options of {@link generateFromSchema}. */
export interface GenerateOptions {
  /** Seed of the value: the same schema and seed always give the same (deep-equal) value. */
  readonly seed: number
  /**
   * Container nesting (objects/arrays) after which only the smallest valid choices are made: optional
   * properties are omitted, arrays get `minItems` elements, `anyOf`/`oneOf`/`type` prefer terminating
   * options. Default 6; 0 to 32.
   */
  readonly maxDepth?: number
  /** The document `schema` lives in, when `$ref`s inside `schema` point into a larger schema. */
  readonly rootSchema?: JsonSchema
}

/** Attempts with independent forked streams before giving up. */
const ATTEMPTS = 8
/** How far past `maxDepth` required nesting may go before the schema counts as unbounded. */
const DEPTH_SLACK = 24
const DEFAULT_MAX_DEPTH = 6
/** Values generated per attempt before the attempt gives up (guards against combinatorial retries). */
const STEP_BUDGET = 50_000
/** String characters generated per attempt before it gives up (nested minItems × minLength could exhaust memory). */
const CHAR_BUDGET = MAX_OUTPUT_CHARS
/**
 * Wall-clock milliseconds one value may take, all attempts together: a safety net behind the deterministic
 * step budget, so that no schema blocks the event loop for long (a request's schema work is bounded by the
 * linear size checks before this).
 */
const TIME_BUDGET_MS = 100
/** Attempts that may run out of budget before generation stops retrying (a value that big stays that big). */
const BUDGET_ATTEMPTS = 2

/** An attempt that ran out of steps or characters. */
class OverBudget extends Unsatisfiable {}

interface Ctx {
  readonly doc: SchemaDocument
  readonly maxDepth: number
  /** Memo of {@link minimalCost} per interned schema, indexed by budget. */
  readonly costs: WeakMap<object, number[]>
  /** Generation steps taken in the current attempt (bounded by {@link STEP_BUDGET}). */
  steps: number
  /** String characters generated in the current attempt (bounded by {@link CHAR_BUDGET}). */
  chars: number
  /** `performance.now()` past which generation gives up (a safety net behind the step budget). */
  readonly deadline: number
}

function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

function normalizeOrFail(ctx: Ctx, schemas: readonly JsonSchema[]): Norm {
  try {
    return normalize(ctx.doc, schemas)
  } catch (error) {
    if (error instanceof RefCycleError) throw new Unsatisfiable(`$ref cycle ${error.chain.join(' -> ')}`)
    throw error
  }
}

const TYPE_COST_ORDER: readonly TypeName[] = [
  'null',
  'boolean',
  'integer',
  'number',
  'string',
  'array',
  'object',
]

/** A rough size of the smallest value of `schemas`, to prefer terminating options at max depth. */
function minimalCost(ctx: Ctx, schemas: readonly JsonSchema[], budget: number): number {
  if (budget <= 0) return 50
  const key = ctx.doc.intern(schemas)
  if (typeof key === 'boolean') return key ? 1 : Number.POSITIVE_INFINITY
  const memo = ctx.costs.get(key) ?? []
  ctx.costs.set(key, memo)
  memo[budget] ??= computeMinimalCost(ctx, schemas, budget)
  return memo[budget]
}

function computeMinimalCost(ctx: Ctx, schemas: readonly JsonSchema[], budget: number): number {
  let norm: Norm
  try {
    norm = normalize(ctx.doc, schemas)
  } catch {
    return Number.POSITIVE_INFINITY
  }
  if (norm.never) return Number.POSITIVE_INFINITY
  let cost = 0
  const choice = norm.choices[0]
  if (choice) cost += Math.min(...choice.branches.map((b) => minimalCost(ctx, [b], budget - 1)))
  if (norm.enumValues) return cost + 1
  return cost + Math.min(...candidateTypes(norm).map((t) => typeCost(ctx, norm, t, budget)))
}

function typeCost(ctx: Ctx, norm: Norm, type: TypeName, budget: number): number {
  if (type === 'object') {
    return 2 + norm.required.reduce((n, key) => n + minimalCost(ctx, schemasForKey(norm, key), budget - 1), 0)
  }
  if (type === 'array') {
    return norm.minItems === 0
      ? 2
      : 2 + norm.minItems * minimalCost(ctx, schemasForIndex(norm, 0), budget - 1)
  }
  return 1
}

function generate(ctx: Ctx, norm: Norm, rng: Rng, depth: number): unknown {
  if (++ctx.steps > STEP_BUDGET) {
    throw new OverBudget(`gave up after ${STEP_BUDGET} generation steps (deeply nested oneOf/anyOf retries)`)
  }
  if ((ctx.steps & 63) === 0 && performance.now() > ctx.deadline) {
    throw new OverBudget(
      `gave up after ${TIME_BUDGET_MS} ms of generation (too many oneOf/anyOf branches to try)`,
    )
  }
  if (depth > ctx.maxDepth + DEPTH_SLACK) {
    throw new Unsatisfiable(
      `the schema requires nesting deeper than ${ctx.maxDepth + DEPTH_SLACK} levels (a required property or minItems recurses through $ref)`,
    )
  }
  if (norm.never) throw new Unsatisfiable(norm.never)
  const atLimit = depth >= ctx.maxDepth
  const choice = norm.choices[0]
  if (choice) {
    const indices = choice.branches.map((_, i) => i)
    const order = atLimit
      ? indices
          .map((i) => ({ i, cost: minimalCost(ctx, [choice.branches[i]!], 4) }))
          .sort((a, b) => a.cost - b.cost || a.i - b.i)
          .map((e) => e.i)
      : shuffled(indices, rng.fork(`${choice.kind}:order`))
    let last = `every ${choice.kind} branch failed`
    for (const i of order) {
      const branch = choice.branches[i]!
      if (branch === false) continue
      let sub: Norm
      try {
        sub = decide(ctx.doc, norm, branch)
      } catch (error) {
        if (!(error instanceof RefCycleError)) throw error
        last = `$ref cycle ${error.chain.join(' -> ')}`
        continue
      }
      for (let t = 0; t < 3; t++) {
        let value: unknown
        try {
          value = generate(ctx, sub, rng.fork(`${choice.kind}:${i}:${t}`), depth)
        } catch (error) {
          if (!(error instanceof Unsatisfiable) || error instanceof OverBudget) throw error
          last = error.reason
          continue
        }
        if (choice.kind === 'oneOf') {
          const matches = choice.branches.filter((b) => ctx.doc.accepts(b, value)).length
          if (matches !== 1) {
            last = `the value matched ${matches} oneOf branches, not exactly one`
            continue
          }
        }
        return value
      }
    }
    throw new Unsatisfiable(last)
  }
  if (norm.enumValues) {
    const valid = norm.enumValues.filter((v) => ctx.doc.accepts(norm.origin, v))
    if (valid.length === 0) throw new Unsatisfiable('no enum/const value satisfies the other keywords')
    return rng.fork('enum').pick(valid)
  }
  if (norm.candidates.length > 0 && rng.fork('candidate').next() < 0.25) {
    const valid = norm.candidates.filter((v) => ctx.doc.accepts(norm.origin, v))
    if (valid.length > 0) return rng.fork('candidate-pick').pick(valid)
  }
  const types = candidateTypes(norm)
  if (types.length === 0) throw new Unsatisfiable('the type keywords leave no type')
  const order = atLimit
    ? [...types].sort((a, b) => {
        const d = typeCost(ctx, norm, a, 3) - typeCost(ctx, norm, b, 3)
        return d || TYPE_COST_ORDER.indexOf(a) - TYPE_COST_ORDER.indexOf(b)
      })
    : shuffled(types, rng.fork('type'))
  let last = ''
  for (const type of order) {
    try {
      return generateType(ctx, norm, type, rng.fork(`as:${type}`), depth)
    } catch (error) {
      if (!(error instanceof Unsatisfiable) || error instanceof OverBudget) throw error
      last = error.reason
    }
  }
  throw new Unsatisfiable(last)
}

function generateType(ctx: Ctx, norm: Norm, type: TypeName, rng: Rng, depth: number): unknown {
  switch (type) {
    case 'null':
      return null
    case 'boolean':
      return rng.bool()
    case 'integer':
      return generateNumber(norm, true, rng)
    case 'number':
      return generateNumber(norm, false, rng)
    case 'string': {
      const text = generateString(norm, rng)
      ctx.chars += text.length
      if (ctx.chars > CHAR_BUDGET)
        throw new OverBudget(
          `gave up after generating ${CHAR_BUDGET} characters (the value would be too large)`,
        )
      return text
    }
    case 'object':
      return generateObject(ctx, norm, rng, depth)
    case 'array':
      return generateArray(ctx, norm, rng, depth)
  }
}

function generateObject(ctx: Ctx, norm: Norm, rng: Rng, depth: number): Record<string, unknown> {
  const allowed = (key: string): boolean => !schemasForKey(norm, key).includes(false)
  for (const key of norm.required) {
    if (!allowed(key)) throw new Unsatisfiable(`required property "${key}" is not allowed`)
  }
  if (norm.required.length > norm.maxProperties)
    throw new Unsatisfiable('more required properties than maxProperties')
  const declared = declaredKeys(norm)
  const optional = declared.filter((k) => !norm.required.includes(k) && allowed(k))
  const chosen = [...norm.required]
  const p = depth >= ctx.maxDepth ? 0 : Math.max(0.2, 0.75 - depth * 0.1)
  for (const key of optional) {
    if (chosen.length >= norm.maxProperties) break
    if (rng.fork(`include:${key}`).next() < p) chosen.push(key)
  }
  const extraSchemas = norm.objectParts.filter((part) => isSchemaObject(part.additional))
  const extrasAllowed = !schemasForKey(norm, '\u0000').includes(false)
  if (
    extraSchemas.length > 0 &&
    extrasAllowed &&
    depth < ctx.maxDepth &&
    chosen.length < norm.maxProperties &&
    rng.fork('extra').next() < 0.3
  ) {
    let n = 1
    while (declared.includes(`extra_${n}`)) n++
    chosen.push(`extra_${n}`)
  }
  for (const key of optional) {
    if (chosen.length >= norm.minProperties) break
    if (!chosen.includes(key)) chosen.push(key)
  }
  for (let n = 1; chosen.length < norm.minProperties; n++) {
    const key = `extra_${n}`
    if (chosen.includes(key) || declared.includes(key)) continue
    if (!allowed(key)) throw new Unsatisfiable('minProperties cannot be reached with the allowed properties')
    chosen.push(key)
  }
  const rank = (k: string): number => {
    const i = declared.indexOf(k)
    return i >= 0 ? i : declared.length + chosen.indexOf(k)
  }
  chosen.sort((a, b) => rank(a) - rank(b))
  const out: Record<string, unknown> = {}
  let count = chosen.length
  for (const key of chosen) {
    const child = normalizeOrFail(ctx, schemasForKey(norm, key))
    try {
      const value = generate(ctx, child, rng.fork(`prop:${key}`), depth + 1)
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
    } catch (error) {
      const optionalKey = !norm.required.includes(key) && count > norm.minProperties
      if (!(error instanceof Unsatisfiable) || error instanceof OverBudget || !optionalKey) throw error
      count--
    }
  }
  return out
}

function generateArray(ctx: Ctx, norm: Norm, rng: Rng, depth: number): unknown[] {
  const cap = itemCap(norm)
  if (norm.minItems > cap)
    throw new Unsatisfiable(`minItems ${norm.minItems} exceeds the ${cap} items allowed`)
  const atLimit = depth >= ctx.maxDepth
  const extra = atLimit ? 0 : Math.max(1, 4 - depth)
  const lower = atLimit ? norm.minItems : Math.min(cap, Math.max(norm.minItems, 1))
  const upper = Math.min(cap, Math.max(lower, norm.minItems + extra))
  const length = rng.fork('length').int(lower, upper)
  const out: unknown[] = []
  const seen = new Set<string>()
  for (let i = 0; i < length; i++) {
    const child = normalizeOrFail(ctx, schemasForIndex(norm, i))
    let last = 'could not generate the item'
    let done = false
    for (let t = 0; t < (norm.uniqueItems ? 24 : 3) && !done; t++) {
      let value: unknown
      try {
        value = generate(ctx, child, rng.fork(`item:${i}:${t}`), depth + 1)
      } catch (error) {
        if (!(error instanceof Unsatisfiable) || error instanceof OverBudget) throw error
        last = error.reason
        continue
      }
      if (norm.uniqueItems) {
        const key = canonicalJson(value)
        if (seen.has(key)) {
          last = 'could not find enough distinct items for uniqueItems'
          continue
        }
        seen.add(key)
      }
      out.push(value)
      done = true
    }
    if (!done) {
      if (i >= norm.minItems) break
      throw new Unsatisfiable(last)
    }
  }
  return out
}

/**
 * Generates a JSON value that satisfies `schema`, deterministically from `options.seed`: the same schema
 * and seed give a deep-equal value, different seeds give varied values. The schema is first checked with
 * {@link assertSupportedSchema}; every result is validated with core's `compileJsonSchema` (ajv) and, on
 * failure, regenerated from independent forked streams a bounded number of times.
 * @throws InvalidInputError when the schema is unsupported or contradictory, when the options are invalid,
 *   or when no attempt produced a valid value (`details.issues` holds ajv's issues of the last attempt)
 * @example
 * ```ts
 * const value = generateFromSchema(
 *   { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } },
 *   { seed: 7 },
 * )
 * ```
 */
export function generateFromSchema(schema: JsonSchema, options: GenerateOptions): unknown {
  if (!isSchemaObject(options)) {
    refuseField('input', 'options', 'must be an object such as { seed: 1 }', options, {
      prefix: 'generateFromSchema: ',
    })
  }
  const rng = createRng(options.seed)
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH
  if (typeof maxDepth !== 'number' || !Number.isSafeInteger(maxDepth) || maxDepth < 0 || maxDepth > 32) {
    refuseField(
      'input',
      'maxDepth',
      `must be an integer from 0 to 32, but got ${String(maxDepth)}; omit it for 6`,
      maxDepth,
    )
  }
  const root = options.rootSchema ?? schema
  assertSupportedSchema(schema, { rootSchema: root })
  const ctx: Ctx = {
    doc: SchemaDocument.of(root),
    maxDepth,
    costs: new WeakMap(),
    steps: 0,
    chars: 0,
    deadline: performance.now() + TIME_BUDGET_MS,
  }
  const validator = ctx.doc.validator(schema)
  let issues: readonly SchemaIssue[] = []
  const reasons: string[] = []
  let overBudget = 0
  let attempts = 0
  for (let attempt = 0; attempt < ATTEMPTS && overBudget < BUDGET_ATTEMPTS; attempt++) {
    let value: unknown
    ctx.steps = 0
    ctx.chars = 0
    attempts++
    try {
      value = generate(ctx, normalizeOrFail(ctx, [schema]), rng.fork(`attempt:${attempt}`), 0)
    } catch (error) {
      if (!(error instanceof Unsatisfiable)) throw error
      if (error instanceof OverBudget) overBudget++
      if (!reasons.includes(error.reason)) reasons.push(error.reason)
      continue
    }
    const result = validator.validate(value)
    if (result.ok) return value
    issues = result.issues
  }
  const why = [...reasons, ...(issues.length > 0 ? [`ajv: ${formatSchemaIssues(issues)}`] : [])].join('; ')
  refuseField(
    'input',
    'schema',
    `after ${attempts} attempts (seed ${options.seed}): ${why}. ` +
      'Relax the conflicting constraints (for example combine patterns into one, widen length or numeric bounds, or make recursive properties optional)',
    schema,
    {
      prefix: 'Could not generate a value satisfying the ',
      details: { seed: options.seed, attempts, reasons, issues },
    },
  )
}
