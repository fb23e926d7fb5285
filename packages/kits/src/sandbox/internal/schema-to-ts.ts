/**
 * JSON Schema to TypeScript type text, for the declarations a model reads. It covers what tool schemas use
 * (types, `const`, `enum`, objects with required and optional properties, additional and pattern
 * properties, arrays and tuples in both drafts, `anyOf` / `oneOf` / `allOf`, local `$ref`s to `$defs` or
 * `definitions`, OpenAPI's `nullable`) and renders what it cannot express (`not`, `if`) as `unknown`, never as
 * a wrong type. Descriptions, defaults, formats and bounds become doc comments.
 */
import type { JsonSchema } from '@agent-core/core'

type SchemaObject = { readonly [keyword: string]: unknown }

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const MAX_DEPTH = 40

/** Words that cannot name a declared function. */
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally ' +
    'for function if import in instanceof new null return super switch this throw true try typeof var void ' +
    'while with yield let static implements interface package private protected public await arguments eval ' +
    'undefined NaN Infinity globalThis'
  ).split(' '),
)

/** True when `name` can be declared as a global function of that name. */
export function isDeclarableName(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED.has(name)
}

/** A property key as TypeScript writes it. */
export function propertyKey(key: string): string {
  return IDENTIFIER.test(key) ? key : JSON.stringify(key)
}

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `lookup-order` → `LookupOrder`. */
export function pascalCase(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean)
  const joined = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')
  return /^[A-Za-z_]/.test(joined) ? joined : `T${joined}`
}

/** A doc comment from lines of text (a `*` followed by `/` in the text is broken so it cannot end the comment). */
export function docComment(lines: readonly string[], indent: string): string {
  const text = lines
    .flatMap((line) => line.split(/\r?\n/))
    .map((line) => line.replaceAll('*/', '*\\/').trimEnd())
  while (text.length > 0 && text.at(-1) === '') text.pop()
  if (text.length === 0) return ''
  if (text.length === 1) return `${indent}/** ${text[0]} */\n`
  return `${indent}/**\n${text.map((line) => `${indent} *${line === '' ? '' : ` ${line}`}`).join('\n')}\n${indent} */\n`
}

/** The doc lines of a schema: its description, then what the type cannot say. */
export function schemaDoc(schema: unknown): string[] {
  if (!isObject(schema)) return []
  const lines: string[] = []
  const { title, description } = schema
  if (typeof description === 'string' && description.trim() !== '') lines.push(description.trim())
  else if (typeof title === 'string' && title.trim() !== '') lines.push(title.trim())
  const tags: string[] = []
  const json = (value: unknown): string => {
    const text = JSON.stringify(value)
    return text === undefined ? String(value) : text.length > 120 ? `${text.slice(0, 117)}...` : text
  }
  if (schema.deprecated === true) tags.push('@deprecated')
  if (schema.type === 'integer') tags.push('integer')
  if (typeof schema.format === 'string') tags.push(`format: ${schema.format}`)
  for (const key of [
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'multipleOf',
    'minLength',
    'maxLength',
    'minItems',
    'maxItems',
    'minProperties',
    'maxProperties',
  ]) {
    const value = schema[key]
    if (typeof value === 'number') tags.push(`${key}: ${value}`)
  }
  if (typeof schema.pattern === 'string') tags.push(`pattern: ${schema.pattern}`)
  if (schema.uniqueItems === true) tags.push('unique items')
  if ('default' in schema) tags.push(`default: ${json(schema.default)}`)
  if (Array.isArray(schema.examples) && schema.examples.length > 0)
    tags.push(`example: ${json(schema.examples[0])}`)
  if (tags.length > 0) {
    const constraints = tags.filter((tag) => !tag.startsWith('@'))
    if (constraints.length > 0) lines.push(constraints.join('; '))
    if (tags.includes('@deprecated')) lines.push('@deprecated')
  }
  return lines
}

/** Renders the schemas of one tool; named types for `$ref` targets are collected in `aliases`. */
export class SchemaRenderer {
  /** `type X = ...` declarations for the referenced definitions, in the order they were first met. */
  readonly aliases: string[] = []
  readonly #names = new Map<string, string>()
  readonly #taken: Set<string>
  readonly #root: JsonSchema
  readonly #prefix: string

  /**
   * @param root - the schema `$ref`s are resolved against
   * @param prefix - the prefix of alias names (the tool's name in PascalCase)
   * @param taken - alias names already used by other tools' declarations (shared, so names never clash)
   */
  constructor(root: JsonSchema, prefix: string, taken: Set<string>) {
    this.#root = root
    this.#prefix = prefix
    this.#taken = taken
  }

  /** The type of `schema`, its nested objects indented from `indent`. */
  render(schema: unknown, indent = ''): string {
    return this.#type(schema, indent, 0, new Set())
  }

  #type(schema: unknown, indent: string, depth: number, seen: Set<object>): string {
    if (schema === undefined || schema === true) return 'unknown'
    if (schema === false) return 'never'
    if (!isObject(schema) || depth > MAX_DEPTH || seen.has(schema)) return 'unknown'
    const inner = new Set(seen).add(schema)
    const next = (sub: unknown) => this.#type(sub, indent, depth + 1, inner)

    if (typeof schema.$ref === 'string') {
      const alias = this.#alias(schema.$ref, depth, inner)
      return alias ?? 'unknown'
    }
    if ('const' in schema) return nullable(schema, literal(schema.const, indent))
    if (Array.isArray(schema.enum)) {
      return nullable(schema, union(schema.enum.map((value) => literal(value, indent))))
    }
    const parts: string[] = []
    const base = this.#base(schema, indent, depth, inner)
    if (base !== undefined) parts.push(base)
    for (const key of ['anyOf', 'oneOf'] as const) {
      const list = schema[key]
      if (Array.isArray(list) && list.length > 0) parts.push(union(list.map(next)))
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
      parts.push(intersection(schema.allOf.map(next)))
    }
    const type = parts.length === 0 ? 'unknown' : intersection(parts)
    return nullable(schema, type)
  }

  /** The type `type` (or the shape of the keywords) names, or `undefined` when nothing constrains it. */
  #base(schema: SchemaObject, indent: string, depth: number, seen: Set<object>): string | undefined {
    const declared = schema.type
    const types =
      typeof declared === 'string'
        ? [declared]
        : Array.isArray(declared)
          ? declared.filter((t): t is string => typeof t === 'string')
          : undefined
    if (types !== undefined) {
      return union(types.map((type) => this.#named(type, schema, indent, depth, seen)))
    }
    if (
      isObject(schema.properties) ||
      Array.isArray(schema.required) ||
      'additionalProperties' in schema ||
      isObject(schema.patternProperties)
    ) {
      return this.#object(schema, indent, depth, seen)
    }
    if ('items' in schema || Array.isArray(schema.prefixItems))
      return this.#array(schema, indent, depth, seen)
    return undefined
  }

  #named(type: string, schema: SchemaObject, indent: string, depth: number, seen: Set<object>): string {
    switch (type) {
      case 'string':
        return 'string'
      case 'number':
      case 'integer':
        return 'number'
      case 'boolean':
        return 'boolean'
      case 'null':
        return 'null'
      case 'array':
        return this.#array(schema, indent, depth, seen)
      case 'object':
        return this.#object(schema, indent, depth, seen)
      default:
        return 'unknown'
    }
  }

  #array(schema: SchemaObject, indent: string, depth: number, seen: Set<object>): string {
    const next = (sub: unknown) => this.#type(sub, indent, depth + 1, seen)
    const tuple = Array.isArray(schema.prefixItems)
      ? { head: schema.prefixItems, rest: schema.items }
      : Array.isArray(schema.items)
        ? { head: schema.items, rest: schema.additionalItems }
        : undefined
    if (tuple) {
      const head = tuple.head.map(next)
      const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0
      const elements = head.map((type, index) => (index < minItems ? type : `${type}?`))
      if (tuple.rest !== false) elements.push(`...${arrayOf(next(tuple.rest))}`)
      return `[${elements.join(', ')}]`
    }
    return arrayOf('items' in schema ? next(schema.items) : 'unknown')
  }

  #object(schema: SchemaObject, indent: string, depth: number, seen: Set<object>): string {
    const inner = `${indent}  `
    const properties = isObject(schema.properties) ? schema.properties : {}
    const required = new Set(
      Array.isArray(schema.required) ? schema.required.filter((k): k is string => typeof k === 'string') : [],
    )
    const lines: string[] = []
    const keys = [
      ...Object.keys(properties),
      ...[...required].filter((key) => !Object.hasOwn(properties, key)),
    ]
    for (const key of keys) {
      const property = properties[key]
      const type = this.#type(property, inner, depth + 1, seen)
      lines.push(
        `${docComment(schemaDoc(property), inner)}${inner}${propertyKey(key)}${required.has(key) ? '' : '?'}: ${type};`,
      )
    }
    const extra: string[] = []
    if (isObject(schema.patternProperties)) {
      for (const sub of Object.values(schema.patternProperties))
        extra.push(this.#type(sub, inner, depth + 1, seen))
    }
    const additional = schema.additionalProperties
    if (additional !== undefined && additional !== false && additional !== true) {
      extra.push(this.#type(additional, inner, depth + 1, seen))
    }
    const closed = additional === false
    const index =
      extra.length > 0
        ? `Record<string, ${union(extra)}>`
        : lines.length === 0
          ? closed
            ? 'Record<string, never>'
            : 'Record<string, unknown>'
          : undefined
    if (lines.length === 0) return index!
    const body = `{\n${lines.join('\n')}\n${indent}}`
    return index === undefined ? body : `${body} & ${index}`
  }

  /** The alias of a local `$ref`, declared on first use; `undefined` for a reference it cannot resolve. */
  #alias(ref: string, depth: number, seen: Set<object>): string | undefined {
    const known = this.#names.get(ref)
    if (known !== undefined) return known
    const target = resolvePointer(this.#root, ref)
    if (target === undefined) return undefined
    if (ref === '#') return undefined
    const last = ref.split('/').at(-1) ?? 'Type'
    let name = `${this.#prefix}${pascalCase(decodeSegment(last))}`
    for (let n = 2; this.#taken.has(name); n++) name = `${this.#prefix}${pascalCase(decodeSegment(last))}${n}`
    this.#taken.add(name)
    this.#names.set(ref, name)
    const slot = this.aliases.length
    this.aliases.push('')
    const body = this.#type(target, '', depth + 1, seen)
    this.aliases[slot] = `${docComment(schemaDoc(target), '')}type ${name} = ${body};`
    return name
  }
}

function decodeSegment(segment: string): string {
  let text = segment
  try {
    text = decodeURIComponent(segment)
  } catch {}
  return text.replaceAll('~1', '/').replaceAll('~0', '~')
}

/** A local JSON Pointer (`#/$defs/Order`) into `root`; `undefined` when it is not local or leads nowhere. */
function resolvePointer(root: JsonSchema, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined
  if (ref === '#') return root
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split('/')) {
    const segment = decodeSegment(raw)
    if (Array.isArray(node)) node = node[Number(segment)]
    else if (isObject(node) && Object.hasOwn(node, segment)) node = node[segment]
    else return undefined
  }
  return node
}

function nullable(schema: SchemaObject, type: string): string {
  return schema.nullable === true ? union([type, 'null']) : type
}

/** A literal type for a JSON value. */
function literal(value: unknown, indent: string): string {
  if (value === null) return 'null'
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'number'
  if (typeof value === 'boolean') return String(value)
  if (Array.isArray(value)) return `[${value.map((item) => literal(item, indent)).join(', ')}]`
  if (isObject(value)) {
    const keys = Object.keys(value)
    if (keys.length === 0) return 'Record<string, never>'
    return `{ ${keys.map((key) => `${propertyKey(key)}: ${literal(value[key], indent)}`).join('; ')} }`
  }
  return 'unknown'
}

function needsParens(type: string): boolean {
  let depth = 0
  for (let i = 0; i < type.length; i++) {
    const char = type[i]
    if (char === '"') {
      for (i++; i < type.length && type[i] !== '"'; i++) if (type[i] === '\\') i++
      continue
    }
    if (char === '{' || char === '(' || char === '[' || char === '<') depth++
    else if (char === '}' || char === ')' || char === ']' || char === '>') depth--
    else if (depth === 0 && (char === '|' || char === '&' || (char === '=' && type[i + 1] === '>')))
      return true
  }
  return false
}

function arrayOf(type: string): string {
  return needsParens(type) ? `Array<${type}>` : `${type}[]`
}

function union(types: readonly string[]): string {
  const unique = [...new Set(types.filter((type) => type !== 'never'))]
  if (unique.includes('unknown')) return 'unknown'
  if (unique.length === 0) return 'never'
  if (unique.length === 1) return unique[0]!
  return unique.map((type) => (type.includes('&') && needsParens(type) ? `(${type})` : type)).join(' | ')
}

function intersection(types: readonly string[]): string {
  const unique = [...new Set(types.filter((type) => type !== 'unknown'))]
  if (unique.includes('never')) return 'never'
  if (unique.length === 0) return 'unknown'
  if (unique.length === 1) return unique[0]!
  return unique.map((type) => (needsParens(type) ? `(${type})` : type)).join(' & ')
}
