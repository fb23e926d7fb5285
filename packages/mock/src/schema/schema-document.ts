import { canonicalJson, isRecord, type JsonSchema, type JsonSchemaValidator } from '@agent-core/core'
import { compileJsonSchema } from '@agent-core/core/tools'
import { jsonEqual } from './json-equal.js'

/** A JSON Schema object (not a boolean schema). */
export type SchemaObject = { readonly [keyword: string]: unknown }

/** True for a plain object, the only non-boolean shape a schema may have. */
export function isSchemaObject(value: unknown): value is SchemaObject {
  return isRecord(value)
}

/** Keywords whose value is a map from names to schemas. */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'definitions', 'patternProperties', 'dependentSchemas'])
/** Keywords whose value is data, never a schema. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required', 'type'])

const ALWAYS: JsonSchemaValidator = { schema: true, validate: () => ({ ok: true }) }
const NEVER: JsonSchemaValidator = {
  schema: false,
  validate: () => ({
    ok: false,
    issues: [{ path: '/', keyword: 'false schema', message: 'boolean schema is false' }],
  }),
}

const QUICK_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'nullable',
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
])

function hasType(value: unknown, type: unknown): boolean {
  switch (type) {
    case 'null':
      return value === null
    case 'boolean':
      return typeof value === 'boolean'
    case 'string':
      return typeof value === 'string'
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value)
    case 'array':
      return Array.isArray(value)
    case 'object':
      return isSchemaObject(value)
    default:
      return false
  }
}

const quickChecks = new WeakMap<object, ((value: unknown) => boolean) | null>()

/** A plain-JS check equivalent to ajv for nodes made only of type/enum/const/nullable and annotations. */
function quickCheck(node: SchemaObject): ((value: unknown) => boolean) | undefined {
  let hit = quickChecks.get(node)
  if (hit === undefined) {
    hit = null
    if (Object.keys(node).every((k) => QUICK_KEYWORDS.has(k) || k.startsWith('x-'))) {
      const types =
        node.type === undefined ? undefined : Array.isArray(node.type) ? [...node.type] : [node.type]
      if (types && node.nullable === true) types.push('null')
      const values = Array.isArray(node.enum) ? new Set(node.enum.map(canonicalJson)) : undefined
      const hasConst = Object.hasOwn(node, 'const')
      hit = (value) =>
        (!types || types.some((t) => hasType(value, t))) &&
        (!values || values.has(canonicalJson(value))) &&
        (!hasConst || jsonEqual(node.const, value))
    }
    quickChecks.set(node, hit)
  }
  return hit ?? undefined
}

interface TrieNode {
  value?: SchemaObject
  next: WeakMap<object, TrieNode>
}

/**
 * One root schema with its `$ref` resolution, interned `allOf` wrappers (stable identities, so ajv compiles
 * each once) and validators for any of its sub-schemas.
 */
export class SchemaDocument {
  private readonly validators = new WeakMap<object, JsonSchemaValidator>()
  private readonly trie: TrieNode = { next: new WeakMap() }
  private whole: JsonSchemaValidator | undefined

  private constructor(readonly root: JsonSchema) {}

  private static readonly documents = new WeakMap<object, SchemaDocument>()

  /** The document of `root` (one per root object). */
  static of(root: JsonSchema): SchemaDocument {
    if (typeof root !== 'object') return new SchemaDocument(root)
    let doc = SchemaDocument.documents.get(root)
    if (!doc) {
      doc = new SchemaDocument(root)
      SchemaDocument.documents.set(root, doc)
    }
    return doc
  }

  /** Resolves a same-document reference (`#` or `#/json/pointer`); `undefined` when it does not resolve. */
  resolveRef(ref: string): JsonSchema | undefined {
    if (ref === '#') return this.root
    if (!ref.startsWith('#/')) return undefined
    let node: unknown = this.root
    for (const raw of ref.slice(2).split('/')) {
      let segment: string
      try {
        segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
      } catch {
        return undefined
      }
      if (Array.isArray(node)) node = /^\d+$/.test(segment) ? node[Number(segment)] : undefined
      else if (isSchemaObject(node) && Object.hasOwn(node, segment)) node = node[segment]
      else return undefined
    }
    return typeof node === 'boolean' || isSchemaObject(node) ? node : undefined
  }

  /** `{ allOf: schemas }` with a stable identity for the same member objects (`true` members dropped). */
  intern(schemas: readonly JsonSchema[]): JsonSchema {
    if (schemas.includes(false)) return false
    const members = schemas.filter((s): s is SchemaObject => s !== true)
    if (members.length === 0) return true
    if (members.length === 1) return members[0]!
    let node = this.trie
    for (const m of members) {
      let next = node.next.get(m)
      if (!next) {
        next = { next: new WeakMap() }
        node.next.set(m, next)
      }
      node = next
    }
    node.value ??= { allOf: members }
    return node.value
  }

  /**
   * A validator (core's ajv) for `node`, a sub-schema of this document: its reachable `$ref` targets are
   * copied into `$defs` of a self-contained wrapper, and `$schema`/`$id` are dropped.
   */
  validator(node: JsonSchema): JsonSchemaValidator {
    if (node === true) return ALWAYS
    if (node === false) return NEVER
    let hit = this.validators.get(node)
    if (!hit) {
      hit = compileJsonSchema(this.selfContained(node), 'the generated-value check')
      this.validators.set(node, hit)
    }
    return hit
  }

  /**
   * A validator of the whole root document (every definition, referenced or not) with `$schema`/`$id`
   * dropped, so ajv checks parts the generator never visits.
   */
  documentValidator(): JsonSchemaValidator {
    if (typeof this.root === 'boolean') return this.validator(this.root)
    // Without definitions, every part of the document is reachable from the root: reuse its validator.
    if (this.root.$defs === undefined && this.root.definitions === undefined) return this.validator(this.root)
    this.whole ??= compileJsonSchema(
      Object.fromEntries(Object.entries(this.root).filter(([k]) => k !== '$schema' && k !== '$id')),
      'the schema document',
    )
    return this.whole
  }

  /**
   * True when `value` satisfies `node`. Nodes made only of `type`/`enum`/`const`/`nullable` and
   * annotations (the common `{ type: 'string', enum: [...] }`) are checked without compiling a validator.
   */
  accepts(node: JsonSchema, value: unknown): boolean {
    const quick = typeof node === 'object' ? quickCheck(node) : undefined
    return quick ? quick(value) : this.validator(node).validate(value).ok
  }

  private selfContained(node: SchemaObject): SchemaObject {
    const names = new Map<string, string>()
    const defs: Record<string, unknown> = {}
    const pending: [string, string][] = []
    const nameFor = (ref: string): string => {
      let name = names.get(ref)
      if (!name) {
        name = `mock_ref_${names.size}`
        names.set(ref, name)
        pending.push([name, ref])
      }
      return name
    }
    const cloneSchema = (s: unknown): unknown => {
      if (Array.isArray(s)) return s.map(cloneSchema)
      if (!isSchemaObject(s)) return s
      const out: Record<string, unknown> = {}
      for (const [k, v] of Object.entries(s)) {
        if (k === '$schema' || k === '$id') continue
        if (k === '$ref' && typeof v === 'string' && v.startsWith('#')) out[k] = `#/$defs/${nameFor(v)}`
        else if (DATA_KEYWORDS.has(k)) out[k] = v
        else if (SCHEMA_MAPS.has(k) && isSchemaObject(v)) {
          out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, cloneSchema(sub)]))
        } else out[k] = cloneSchema(v)
      }
      return out
    }
    const body = cloneSchema(node)
    while (pending.length > 0) {
      const [name, ref] = pending.shift()!
      const target = this.resolveRef(ref)
      defs[name] = target === undefined ? {} : cloneSchema(target)
    }
    return names.size === 0 ? (body as SchemaObject) : { $defs: defs, allOf: [body] }
  }
}
