/**
 * Checking and copying the materials of a `publish` call: typed errors that name the field as the caller
 * wrote it (`materials[2].metadata.tags[1]`), and copies that a store can keep exactly (plain JSON,
 * well-formed strings: a lone surrogate would turn into U+FFFD in UTF-8 and be silently changed).
 */
import {
  assertNotThenable,
  canonicalJson,
  describeValue,
  type FieldReaderKind,
  InvalidInputError,
  refuseField,
} from '@agent-core/core'
import type { JsonData } from '@agent-core/kits/search'
import type { KnowledgeMaterial, KnowledgeMetadata } from '../knowledge-types.js'
import { createHash } from './node-hash.js'

const MATERIAL_FIELDS = new Set(['id', 'text', 'title', 'metadata'])
const MAX_DEPTH = 64
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** A checked copy of a material (frozen), ready to split and hash. */
export interface CheckedMaterial {
  readonly material: KnowledgeMaterial
  /** Where it was in the caller's array. */
  readonly index: number
}

function invalid(field: string, problem: string, value: unknown, hint: string): InvalidInputError {
  return new InvalidInputError(`publish: ${field} ${problem}. ${hint}`, {
    details: { field, received: describeValue(value) },
  })
}

/**
 * Throws when `value` (a string) holds a lone surrogate, which UTF-8 cannot store: an `InvalidInputError`,
 * or an `InvalidDefinitionError` for `kind` `'definition'` (with `details` added).
 */
export function assertWellFormed(
  value: string,
  field: string,
  where: string,
  kind: FieldReaderKind = 'input',
  details?: Readonly<Record<string, unknown>>,
): void {
  const match = LONE_SURROGATE.exec(value)
  if (match !== null) {
    refuseField(
      kind,
      field,
      `holds an unpaired surrogate (U+${match[0].charCodeAt(0).toString(16).toUpperCase()}) at offset ${match.index}, which a store cannot keep exactly. Decode the source as UTF-8 (or replace the character) before publishing`,
      value,
      { prefix: `${where}: `, details },
    )
  }
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // `__proto__` is an ordinary key in JSON; assigning it would change the prototype instead.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** A frozen copy of plain JSON data; anything a JSON store would change or drop is refused. */
export function copyJson(value: unknown, field: string, where: string, depth = 0): JsonData {
  /** `<where>: <field> <problem>. <hint>.` (the one rule of every refusal below). */
  const refuse = (problem: string, hint: string): never =>
    refuseField('input', field, `${problem}. ${hint}`, value, { prefix: `${where}: ` })
  if (value === null || typeof value === 'boolean') return value
  if (typeof value === 'string') {
    assertWellFormed(value, field, where)
    return value
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      refuse(`is ${describeValue(value)}, which JSON cannot hold`, 'Use a finite number or a string')
    if (Object.is(value, -0)) refuse('is -0, which JSON stores as 0', 'Use 0')
    return value
  }
  if (typeof value !== 'object')
    refuse(
      `is ${describeValue(value)}`,
      'Metadata holds JSON data only: strings, numbers, booleans, null, arrays and plain objects',
    )
  if (depth >= MAX_DEPTH)
    refuse(`nests deeper than ${MAX_DEPTH} levels (or is circular)`, 'Flatten the metadata')
  const object = value as object
  if (Array.isArray(object)) {
    const out: JsonData[] = []
    for (let i = 0; i < object.length; i++) {
      if (!(i in object)) refuse(`has a hole at index ${i}`, 'Use a dense array (fill holes with null)')
      out.push(copyJson(object[i], `${field}[${i}]`, where, depth + 1))
    }
    return Object.freeze(out)
  }
  if (!isPlainObject(object))
    refuse(
      `is ${describeValue(object)}, not a plain object`,
      'Metadata holds JSON data only: convert dates to ISO strings and class instances to plain objects',
    )
  if (Object.getOwnPropertySymbols(object).length > 0)
    refuse('has symbol keys, which JSON drops', 'Use string keys')
  const out: Record<string, JsonData> = {}
  for (const key of Object.keys(object)) {
    assertWellFormed(key, `${field} key`, where)
    setOwn(out, key, copyJson((object as Record<string, unknown>)[key], `${field}.${key}`, where, depth + 1))
  }
  return Object.freeze(out)
}

/**
 * Checks the materials of a publish call and returns frozen copies. Checks run in order: the list, each
 * material's shape and fields, duplicate ids, then the App's `assertMaterial`.
 */
export function checkMaterials(
  materials: unknown,
  assertMaterial: ((material: KnowledgeMaterial) => void) | undefined,
): CheckedMaterial[] {
  if (!Array.isArray(materials)) {
    throw invalid(
      'request.materials',
      `must be an array of materials, but got ${describeValue(materials)}`,
      materials,
      'Pass { materials: [{ id, text }] }.',
    )
  }
  const out: CheckedMaterial[] = []
  const seen = new Map<string, number>()
  for (let index = 0; index < materials.length; index++) {
    const field = `request.materials[${index}]`
    if (!(index in materials))
      throw invalid(field, 'is a hole in a sparse array', undefined, 'Pass a dense array of materials.')
    const value: unknown = materials[index]
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw invalid(
        field,
        `must be a material { id, text, title?, metadata? }, but got ${describeValue(value)}`,
        value,
        'Pass an object per document.',
      )
    }
    for (const key of Object.keys(value)) {
      if (!MATERIAL_FIELDS.has(key)) {
        throw invalid(
          `${field}.${key}`,
          'is not a field of a material',
          (value as Record<string, unknown>)[key],
          'A material has id, text, title and metadata; put anything else in metadata.',
        )
      }
    }
    const { id, text, title, metadata } = value as Record<string, unknown>
    if (typeof id !== 'string' || id.length === 0)
      throw invalid(
        `${field}.id`,
        `must be a non-empty string, but got ${describeValue(id)}`,
        id,
        "Use the document's own id, such as its file path.",
      )
    assertWellFormed(id, `${field}.id`, 'publish')
    if (typeof text !== 'string')
      throw invalid(
        `${field}.text`,
        `must be a string, but got ${describeValue(text)}`,
        text,
        'Pass the decoded text of the document.',
      )
    assertWellFormed(text, `${field}.text`, 'publish')
    if (title !== undefined) {
      if (typeof title !== 'string')
        throw invalid(
          `${field}.title`,
          `must be a string or left out, but got ${describeValue(title)}`,
          title,
          'Pass a string.',
        )
      assertWellFormed(title, `${field}.title`, 'publish')
    }
    let metadataCopy: KnowledgeMetadata | undefined
    if (metadata !== undefined) {
      if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
        throw invalid(
          `${field}.metadata`,
          `must be a plain object or left out, but got ${describeValue(metadata)}`,
          metadata,
          'Pass { key: value } with JSON values.',
        )
      metadataCopy = copyJson(metadata, `${field}.metadata`, 'publish') as KnowledgeMetadata
    }
    const earlier = seen.get(id)
    if (earlier !== undefined) {
      throw invalid(
        `${field}.id`,
        `repeats the id "${id}" of request.materials[${earlier}]`,
        id,
        'Publish each document once per call.',
      )
    }
    seen.set(id, index)
    const material: KnowledgeMaterial = Object.freeze({
      id,
      text,
      ...(title !== undefined ? { title } : {}),
      ...(metadataCopy !== undefined ? { metadata: metadataCopy } : {}),
    })
    out.push({ material, index })
  }
  if (assertMaterial !== undefined) {
    for (const { material } of out) {
      const returned: unknown = assertNotThenable(assertMaterial(material), 'assertMaterial')
      if (returned !== undefined) {
        refuseField(
          'output',
          'assertMaterial',
          `returned ${describeValue(returned)} for "${material.id}", but it must return nothing: throw to refuse a material`,
          returned,
          { details: { hook: 'assertMaterial', returned: describeValue(returned) } },
        )
      }
    }
  }
  return out
}

/**
 * The content hash of a material under the passage settings: SHA-256 (base64url) of its title, metadata
 * (keys sorted) and text, and of `settingsKey`, so that new passage settings make every document change.
 */
export function contentHash(material: KnowledgeMaterial, settingsKey: string): string {
  // The metadata's keys sorted (core's canonicalJson), so that key order does not change the hash.
  const payload = `[${JSON.stringify('agent-core/knowledge@1')},${JSON.stringify(settingsKey)},${JSON.stringify(material.title ?? null)},${canonicalJson(material.metadata ?? null)},${JSON.stringify(material.text)}]`
  return createHash('sha256').update(payload).digest('base64url')
}
