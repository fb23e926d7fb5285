import { canonicalJson, type JsonSchema } from '@agent-core/core'
import { isSchemaObject, type SchemaDocument, type SchemaObject } from './schema-document.js'

/** The JSON types a schema can name. */
export type TypeName = 'null' | 'boolean' | 'object' | 'array' | 'number' | 'integer' | 'string'
export const TYPE_NAMES: readonly TypeName[] = [
  'null',
  'boolean',
  'object',
  'array',
  'number',
  'integer',
  'string',
]

/** The `properties`/`additionalProperties` of one contributing schema (kept apart: allOf semantics). */
export interface ObjectPart {
  readonly properties: Readonly<Record<string, JsonSchema>>
  readonly additional: JsonSchema | undefined
}

/**
 * The item schemas of one contributing schema. `restCoversPrefix` is true for `prefixItems` + `items`:
 * core's draft-07 validator ignores `prefixItems` and applies `items` to every element, so a prefix
 * element must satisfy both.
 */
export interface ArrayPart {
  readonly prefix: readonly JsonSchema[]
  readonly rest: JsonSchema | undefined
  readonly restCoversPrefix: boolean
}

/** An undecided `anyOf`/`oneOf`. */
export interface Choice {
  readonly kind: 'anyOf' | 'oneOf'
  readonly branches: readonly JsonSchema[]
  readonly node: SchemaObject
}

/** A numeric bound. */
export interface Bound {
  readonly value: number
  readonly exclusive: boolean
}

/** Every constraint on one value, gathered from a schema, its `$ref` targets and its `allOf` members. */
export interface Norm {
  /** The schema a value for this norm must satisfy (validated with ajv when checks are needed). */
  origin: JsonSchema
  /** Why no value satisfies it (a `false` schema was reached), if so. */
  never: string | undefined
  types: Set<TypeName> | undefined
  enumValues: unknown[] | undefined
  lower: Bound | undefined
  upper: Bound | undefined
  multipleOf: number[]
  minLength: number
  maxLength: number
  patterns: string[]
  formats: string[]
  objectParts: ObjectPart[]
  required: string[]
  minProperties: number
  maxProperties: number
  arrayParts: ArrayPart[]
  minItems: number
  maxItems: number
  uniqueItems: boolean
  choices: Choice[]
  candidates: unknown[]
  /** Types implied by type-specific keywords (used when `type` is absent). */
  implied: Set<TypeName>
}

/** A `$ref` chain that loops back on itself without passing through a value. */
export class RefCycleError {
  constructor(readonly chain: readonly string[]) {}
}

function emptyNorm(origin: JsonSchema): Norm {
  return {
    origin,
    never: undefined,
    types: undefined,
    enumValues: undefined,
    lower: undefined,
    upper: undefined,
    multipleOf: [],
    minLength: 0,
    maxLength: Number.POSITIVE_INFINITY,
    patterns: [],
    formats: [],
    objectParts: [],
    required: [],
    minProperties: 0,
    maxProperties: Number.POSITIVE_INFINITY,
    arrayParts: [],
    minItems: 0,
    maxItems: Number.POSITIVE_INFINITY,
    uniqueItems: false,
    choices: [],
    candidates: [],
    implied: new Set(),
  }
}

function tighterLower(current: Bound | undefined, next: Bound): Bound {
  if (!current || next.value > current.value || (next.value === current.value && next.exclusive)) return next
  return current
}

function tighterUpper(current: Bound | undefined, next: Bound): Bound {
  if (!current || next.value < current.value || (next.value === current.value && next.exclusive)) return next
  return current
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

function absorb(doc: SchemaDocument, norm: Norm, schema: JsonSchema, refChain: readonly string[]): void {
  if (schema === true) return
  if (schema === false) {
    norm.never ??= 'it reaches the schema `false`'
    return
  }
  const s = schema
  if (typeof s.$ref === 'string') {
    if (refChain.includes(s.$ref)) throw new RefCycleError([...refChain, s.$ref])
    const target = doc.resolveRef(s.$ref)
    if (target !== undefined) absorb(doc, norm, target, [...refChain, s.$ref])
  }
  if (Array.isArray(s.allOf)) for (const member of s.allOf) absorb(doc, norm, member as JsonSchema, refChain)
  for (const kind of ['anyOf', 'oneOf'] as const) {
    const branches = s[kind]
    if (Array.isArray(branches)) norm.choices.push({ kind, branches: branches as JsonSchema[], node: s })
  }
  if (s.type !== undefined) {
    const named = new Set((Array.isArray(s.type) ? s.type : [s.type]) as TypeName[])
    if (s.nullable === true) named.add('null')
    if (named.has('number')) named.add('integer')
    norm.types = norm.types ? new Set([...norm.types].filter((t) => named.has(t))) : named
  }
  const values = s.const !== undefined ? [s.const] : Array.isArray(s.enum) ? s.enum : undefined
  if (values) {
    if (norm.enumValues) {
      // Linear: a set of canonical texts instead of comparing every pair.
      const allowed = new Set(values.map(canonicalJson))
      norm.enumValues = norm.enumValues.filter((v) => allowed.has(canonicalJson(v)))
    } else {
      norm.enumValues = [...values]
    }
  }
  if (num(s.minimum)) norm.lower = tighterLower(norm.lower, { value: s.minimum, exclusive: false })
  if (num(s.exclusiveMinimum))
    norm.lower = tighterLower(norm.lower, { value: s.exclusiveMinimum, exclusive: true })
  if (num(s.maximum)) norm.upper = tighterUpper(norm.upper, { value: s.maximum, exclusive: false })
  if (num(s.exclusiveMaximum))
    norm.upper = tighterUpper(norm.upper, { value: s.exclusiveMaximum, exclusive: true })
  if (num(s.multipleOf)) norm.multipleOf.push(s.multipleOf)
  if (
    num(s.minimum) ||
    num(s.maximum) ||
    num(s.exclusiveMinimum) ||
    num(s.exclusiveMaximum) ||
    num(s.multipleOf)
  ) {
    norm.implied.add('number')
  }
  if (num(s.minLength)) norm.minLength = Math.max(norm.minLength, s.minLength)
  if (num(s.maxLength)) norm.maxLength = Math.min(norm.maxLength, s.maxLength)
  if (typeof s.pattern === 'string' && !norm.patterns.includes(s.pattern)) norm.patterns.push(s.pattern)
  if (typeof s.format === 'string' && !norm.formats.includes(s.format)) norm.formats.push(s.format)
  if (
    s.minLength !== undefined ||
    s.maxLength !== undefined ||
    s.pattern !== undefined ||
    s.format !== undefined
  ) {
    norm.implied.add('string')
  }
  if (isSchemaObject(s.properties) || s.additionalProperties !== undefined) {
    norm.objectParts.push({
      properties: (isSchemaObject(s.properties) ? s.properties : {}) as Record<string, JsonSchema>,
      additional: s.additionalProperties as JsonSchema | undefined,
    })
  }
  if (Array.isArray(s.required)) {
    for (const key of s.required as string[]) if (!norm.required.includes(key)) norm.required.push(key)
  }
  if (num(s.minProperties)) norm.minProperties = Math.max(norm.minProperties, s.minProperties)
  if (num(s.maxProperties)) norm.maxProperties = Math.min(norm.maxProperties, s.maxProperties)
  if (
    s.properties !== undefined ||
    s.additionalProperties !== undefined ||
    s.required !== undefined ||
    s.minProperties !== undefined ||
    s.maxProperties !== undefined
  ) {
    norm.implied.add('object')
  }
  if (Array.isArray(s.items)) {
    norm.arrayParts.push({
      prefix: s.items as JsonSchema[],
      rest: s.additionalItems as JsonSchema | undefined,
      restCoversPrefix: false,
    })
  } else if (Array.isArray(s.prefixItems)) {
    norm.arrayParts.push({
      prefix: s.prefixItems as JsonSchema[],
      rest: s.items as JsonSchema | undefined,
      restCoversPrefix: true,
    })
  } else if (s.items !== undefined) {
    norm.arrayParts.push({ prefix: [], rest: s.items as JsonSchema, restCoversPrefix: false })
  }
  if (num(s.minItems)) norm.minItems = Math.max(norm.minItems, s.minItems)
  if (num(s.maxItems)) norm.maxItems = Math.min(norm.maxItems, s.maxItems)
  if (s.uniqueItems === true) norm.uniqueItems = true
  if (
    s.items !== undefined ||
    s.prefixItems !== undefined ||
    s.minItems !== undefined ||
    s.maxItems !== undefined ||
    s.uniqueItems !== undefined
  ) {
    norm.implied.add('array')
  }
  if (Array.isArray(s.examples)) norm.candidates.push(...s.examples)
  if (s.default !== undefined) norm.candidates.push(s.default)
}

/**
 * Gathers every constraint of `schemas` (read as `allOf`), following `$ref` and `allOf`; `anyOf`/`oneOf`
 * stay as undecided {@link Choice}s.
 * @throws RefCycleError when a `$ref` chain loops without passing through a value
 */
export function normalize(doc: SchemaDocument, schemas: readonly JsonSchema[]): Norm {
  const norm = emptyNorm(doc.intern(schemas))
  for (const s of schemas) absorb(doc, norm, s, [])
  return norm
}

/** `norm` with its first choice decided for `branch`. */
export function decide(doc: SchemaDocument, norm: Norm, branch: JsonSchema): Norm {
  const next: Norm = {
    ...norm,
    origin: doc.intern([norm.origin, branch]),
    types: norm.types && new Set(norm.types),
    enumValues: norm.enumValues && [...norm.enumValues],
    multipleOf: [...norm.multipleOf],
    patterns: [...norm.patterns],
    formats: [...norm.formats],
    objectParts: [...norm.objectParts],
    required: [...norm.required],
    arrayParts: [...norm.arrayParts],
    choices: norm.choices.slice(1),
    candidates: [...norm.candidates],
    implied: new Set(norm.implied),
  }
  absorb(doc, next, branch, [])
  return next
}

/** The schemas that apply to property `key` of an object under `norm` (allOf semantics per part). */
export function schemasForKey(norm: Norm, key: string): JsonSchema[] {
  const out: JsonSchema[] = []
  for (const part of norm.objectParts) {
    if (Object.hasOwn(part.properties, key)) out.push(part.properties[key]!)
    else if (part.additional !== undefined) out.push(part.additional)
  }
  return out
}

/** The schemas that apply to element `index` of an array under `norm`. */
export function schemasForIndex(norm: Norm, index: number): JsonSchema[] {
  const out: JsonSchema[] = []
  for (const part of norm.arrayParts) {
    if (index < part.prefix.length) {
      out.push(part.prefix[index]!)
      if (part.restCoversPrefix && part.rest !== undefined) out.push(part.rest)
    } else if (part.rest !== undefined) out.push(part.rest)
  }
  return out
}

/** Property names declared in any `properties`, in first-seen order. */
export function declaredKeys(norm: Norm): string[] {
  const keys: string[] = []
  for (const part of norm.objectParts)
    for (const k of Object.keys(part.properties)) if (!keys.includes(k)) keys.push(k)
  return keys
}

/** The longest array length the item schemas allow (`false` at an index caps it), capped by `maxItems`. */
export function itemCap(norm: Norm): number {
  const longestPrefix = Math.max(0, ...norm.arrayParts.map((p) => p.prefix.length))
  for (let i = 0; i <= longestPrefix; i++) {
    if (i >= norm.maxItems) return norm.maxItems
    if (schemasForIndex(norm, i).includes(false)) return i
  }
  return norm.maxItems
}

/** The types a value for `norm` may take: `type` when given, else the implied ones, else the simple ones. */
export function candidateTypes(norm: Norm): TypeName[] {
  if (norm.types) {
    const list = TYPE_NAMES.filter((t) => norm.types!.has(t))
    // `number` admits integers: keep `integer` only when it is the sole numeric choice.
    return list.includes('number') ? list.filter((t) => t !== 'integer') : list
  }
  if (norm.implied.size > 0) return TYPE_NAMES.filter((t) => norm.implied.has(t))
  return ['string', 'integer', 'number', 'boolean']
}
