import {
  canonicalJson,
  describeValue,
  formatSchemaIssues,
  InvalidDefinitionError,
  type JsonSchema,
} from '@agent-core/core'
import { FORMAT_LENGTHS } from './formats.js'
import { MAX_GENERATED_SIZE } from './generation-limits.js'
import {
  candidateTypes,
  type Norm,
  normalize,
  RefCycleError,
  TYPE_NAMES,
  type TypeName,
} from './normalized-schema.js'
import { parseRegex, UnsupportedRegexError } from './regex-generator.js'
import { assertMinimalSizeWithinBudget, assertSchemaWithinBudget, reject } from './schema-budget.js'
import { typeProblem } from './schema-contradictions.js'
import { isSchemaObject, SchemaDocument, type SchemaObject } from './schema-document.js'

/** Options of {@link assertSupportedSchema}. */
export interface AssertSupportedSchemaOptions {
  /** The document `schema` lives in, when its `$ref`s point into a larger schema. */
  readonly rootSchema?: JsonSchema
}

/** Keywords read as annotations only. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
  'contentEncoding',
  'contentMediaType',
])

/** Recognised keywords the generator cannot honour, with what to write instead. */
const UNSUPPORTED: ReadonlyMap<string, string> = new Map([
  ['not', 'describe the allowed values positively instead (enum, anyOf, bounds)'],
  ['if', 'write the cases as anyOf branches instead of if/then/else'],
  ['then', 'write the cases as anyOf branches instead of if/then/else'],
  ['else', 'write the cases as anyOf branches instead of if/then/else'],
  ['patternProperties', 'list the names in properties, or give additionalProperties a schema'],
  ['propertyNames', 'list the allowed names in properties and set additionalProperties: false'],
  ['dependencies', 'make the properties required, or split the cases into anyOf branches'],
  ['dependentRequired', 'make the properties required, or split the cases into anyOf branches'],
  ['dependentSchemas', 'split the cases into anyOf branches'],
  ['contains', 'pin the element with prefixItems/items instead'],
  ['minContains', 'pin the elements with prefixItems/items instead'],
  ['maxContains', 'pin the elements with prefixItems/items instead'],
  ['unevaluatedProperties', 'use additionalProperties instead'],
  ['unevaluatedItems', 'use items instead'],
  ['$anchor', 'reference the schema with "$ref": "#/$defs/<name>" instead'],
  ['$dynamicRef', 'use "$ref": "#/$defs/<name>" instead'],
  ['$dynamicAnchor', 'use "$ref": "#/$defs/<name>" instead'],
  ['$recursiveRef', 'use "$ref": "#/$defs/<name>" instead'],
  ['$recursiveAnchor', 'use "$ref": "#/$defs/<name>" instead'],
  ['$vocabulary', 'remove it'],
  ['contentSchema', 'remove it'],
])

const COUNT_KEYWORDS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties']

export { MAX_GENERATED_SIZE }

const LOWER_BOUND_KEYWORDS = ['minLength', 'minItems', 'minProperties']
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']
const SCHEMA_ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems']

/** Where a keyword is written: its schema node, its name, the node's path, and whether that is the root. */
interface KeywordSite {
  readonly node: SchemaObject
  readonly keyword: string
  readonly path: readonly string[]
  readonly isRoot: boolean
}

/** `$schema` / `$id`: a string, on the root schema only. */
function checkRootOnly(value: unknown, { path, keyword, isRoot }: KeywordSite): void {
  if (!isRoot)
    reject(
      path,
      keyword,
      `"${keyword}" is only supported on the root schema`,
      `remove the nested "${keyword}"`,
    )
  if (typeof value !== 'string')
    reject(path, keyword, `must be a string, but got ${describeValue(value)}`, 'write a URI string')
}

/** `$defs` / `definitions`: an object of named schemas (each is checked where it is referenced). */
function checkDefinitions(value: unknown, { path, keyword }: KeywordSite): void {
  if (!isSchemaObject(value)) {
    reject(
      path,
      keyword,
      `must be an object of named schemas, but got ${describeValue(value)}`,
      `write "${keyword}": { "name": {...} }`,
    )
  }
}

/** `type`: a JSON type name or a non-empty array of distinct ones. */
function checkType(value: unknown, { path, keyword }: KeywordSite): void {
  const list = Array.isArray(value) ? value : [value]
  if (list.length === 0 || list.some((t) => typeof t !== 'string' || !TYPE_NAMES.includes(t as TypeName))) {
    reject(
      path,
      keyword,
      `must be one of ${TYPE_NAMES.join(', ')} or a non-empty array of them, but got ${JSON.stringify(value)}`,
      'use a valid JSON type name',
    )
  }
  if (new Set(list).size !== list.length) reject(path, keyword, 'lists a type twice', 'list each type once')
}

/** `nullable` (OpenAPI): a boolean, beside `type`. */
function checkNullable(value: unknown, { node, path, keyword }: KeywordSite): void {
  if (typeof value !== 'boolean')
    reject(path, keyword, `must be a boolean, but got ${describeValue(value)}`, 'write nullable: true')
  if (node.type === undefined)
    reject(
      path,
      keyword,
      '"nullable" needs "type" beside it (ajv rejects it otherwise)',
      'write type: ["<type>", "null"] instead',
    )
}

/** `enum`: a non-empty array of distinct values. */
function checkEnum(value: unknown, { path, keyword }: KeywordSite): void {
  if (!Array.isArray(value) || value.length === 0) {
    reject(
      path,
      keyword,
      `must be a non-empty array, but got ${describeValue(value)}`,
      'list at least one allowed value',
    )
  }
  if (new Set(value.map(canonicalJson)).size !== value.length) {
    reject(path, keyword, 'lists a value twice (ajv rejects duplicate enum items)', 'list each value once')
  }
}

/** `required`: an array of distinct property names. */
function checkRequired(value: unknown, { path, keyword }: KeywordSite): void {
  if (!Array.isArray(value) || value.some((k) => typeof k !== 'string')) {
    reject(
      path,
      keyword,
      `must be an array of property names, but got ${describeValue(value)}`,
      'write required: ["name"]',
    )
  }
  if (new Set(value).size !== value.length)
    reject(path, keyword, 'lists a property twice', 'list each property once')
}

/** `uniqueItems`: a boolean. */
function checkUniqueItems(value: unknown, { path, keyword }: KeywordSite): void {
  if (typeof value !== 'boolean')
    reject(path, keyword, `must be a boolean, but got ${describeValue(value)}`, 'write uniqueItems: true')
}

/** `pattern`: a string that is a `u`-flag regular expression the string generator supports. */
function checkPattern(value: unknown, { path, keyword }: KeywordSite): void {
  if (typeof value !== 'string')
    reject(
      path,
      keyword,
      `must be a string, but got ${describeValue(value)}`,
      'write the regular expression as a string',
    )
  try {
    parseRegex(value)
  } catch (error) {
    if (error instanceof UnsupportedRegexError) {
      reject(
        path,
        keyword,
        `pattern ${JSON.stringify(value)} uses ${error.reason}, which the string generator does not support`,
        error.hint,
      )
    }
    reject(
      path,
      keyword,
      `pattern ${JSON.stringify(value)} is not a valid regular expression with the "u" flag (${(error as Error).message})`,
      'fix the regular expression',
    )
  }
}

/** `format`: one of the formats the generator knows. */
function checkFormat(value: unknown, { path, keyword }: KeywordSite): void {
  if (typeof value !== 'string' || !(value in FORMAT_LENGTHS)) {
    reject(
      path,
      keyword,
      `format ${JSON.stringify(value)} is not supported`,
      `use one of ${Object.keys(FORMAT_LENGTHS).join(', ')}, or a pattern`,
    )
  }
}

/** `multipleOf`: a positive finite number. */
function checkMultipleOf(value: unknown, { path, keyword }: KeywordSite): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    reject(
      path,
      keyword,
      `must be a positive number, but got ${describeValue(value)}`,
      'write a number greater than 0',
    )
  }
}

/** `minLength`, `maxItems`, ...: a non-negative integer; a lower bound no more than MockGPT generates. */
function checkCount(value: unknown, { path, keyword }: KeywordSite): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    reject(
      path,
      keyword,
      `must be a non-negative integer, but got ${describeValue(value)}`,
      `write ${keyword}: 0 or more`,
    )
  }
  if (LOWER_BOUND_KEYWORDS.includes(keyword) && value > MAX_GENERATED_SIZE) {
    reject(
      path,
      keyword,
      `${value} is more than the ${MAX_GENERATED_SIZE} MockGPT generates`,
      `lower ${keyword} to ${MAX_GENERATED_SIZE} or less, or script the value`,
    )
  }
}

/** `minimum`, `exclusiveMaximum`, ...: a finite number (not draft-04's boolean form). */
function checkNumberBound(value: unknown, { path, keyword }: KeywordSite): void {
  if (typeof value === 'boolean') {
    reject(
      path,
      keyword,
      `the draft-04 boolean form "${keyword}": ${value} is not supported`,
      `write the bound itself, e.g. "${keyword}": <number> (and drop the matching minimum/maximum)`,
    )
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    reject(path, keyword, `must be a finite number, but got ${describeValue(value)}`, 'write a number')
  }
}

/** The keywords whose value is checked on its own (no schema inside it to walk), by keyword. */
const SHAPE_CHECKS: ReadonlyMap<string, (value: unknown, site: KeywordSite) => void> = new Map([
  ['$schema', checkRootOnly],
  ['$id', checkRootOnly],
  ['$defs', checkDefinitions],
  ['definitions', checkDefinitions],
  ['type', checkType],
  ['nullable', checkNullable],
  ['enum', checkEnum],
  ['const', () => {}], // any JSON value
  ['required', checkRequired],
  ['uniqueItems', checkUniqueItems],
  ['pattern', checkPattern],
  ['format', checkFormat],
  ['multipleOf', checkMultipleOf],
  ...COUNT_KEYWORDS.map((keyword) => [keyword, checkCount] as const),
  ...NUMBER_KEYWORDS.map((keyword) => [keyword, checkNumberBound] as const),
])

/** Walks every reachable schema node (following `$ref`) and checks its keywords' shapes. */
class Checker {
  private readonly doc: SchemaDocument
  private readonly visited = new Set<object>()
  private readonly nodes: { node: SchemaObject; path: readonly string[] }[] = []

  constructor(
    private readonly schema: JsonSchema,
    root: JsonSchema,
  ) {
    this.doc = SchemaDocument.of(root)
  }

  run(): void {
    if (this.schema === false) {
      reject(
        [],
        'false',
        'the schema is `false`, which no value satisfies',
        'use `true`, `{}` or a real schema',
      )
    }
    this.walk(this.schema, [], [])
    // Innermost first, so a contradiction is reported where it is written, not where it is referenced.
    try {
      for (const { node, path } of [...this.nodes].reverse()) this.semantic(node, path)
      // ajv compiles the whole schema last: it overflows its stack on $ref cycles, which semantic() reports.
      this.doc.validator(this.schema)
      this.doc.documentValidator()
    } catch (error) {
      if (!InvalidDefinitionError.isInstance(error)) throw error
      reject(
        [],
        'schema',
        `ajv rejects the schema: ${error.message}`,
        'make it a valid draft-07 / 2020-12 JSON Schema',
      )
    }
  }

  private walk(schema: unknown, path: readonly string[], stack: readonly object[]): void {
    if (typeof schema === 'boolean') return
    if (!isSchemaObject(schema)) {
      reject(
        path,
        'schema',
        `a schema must be an object or a boolean, but got ${describeValue(schema)}`,
        'write {} for "anything"',
      )
    }
    if (stack.includes(schema)) {
      reject(
        path,
        'schema',
        'the schema object graph is cyclic',
        'express recursion with "$ref": "#/$defs/<name>"',
      )
    }
    if (this.visited.has(schema)) return
    this.visited.add(schema)
    this.nodes.push({ node: schema, path })
    const inner = [...stack, schema]
    for (const [keyword, value] of Object.entries(schema)) this.keyword(schema, keyword, value, path, inner)
  }

  /**
   * One keyword of a node: annotations pass, unsupported keywords are refused with what to write instead,
   * then the keyword's shape is checked ({@link SHAPE_CHECKS}) or, for one that holds schemas, those
   * schemas are walked.
   */
  private keyword(
    node: SchemaObject,
    keyword: string,
    value: unknown,
    path: readonly string[],
    stack: readonly object[],
  ): void {
    if (ANNOTATIONS.has(keyword) || keyword.startsWith('x-')) return
    const instead = UNSUPPORTED.get(keyword)
    if (instead !== undefined)
      reject(path, keyword, `"${keyword}" is not supported by the generator`, instead)
    const site: KeywordSite = { node, keyword, path, isRoot: path.length === 0 && node === this.schema }
    const check = SHAPE_CHECKS.get(keyword)
    if (check !== undefined) {
      check(value, site)
      return
    }
    switch (keyword) {
      case '$ref':
        this.followRef(value, site)
        return
      case 'properties':
        this.walkProperties(value, site, stack)
        return
      case 'additionalProperties':
      case 'additionalItems':
        this.walkAdditional(value, site, stack)
        return
      case 'items':
        this.walkItems(value, site, stack)
        return
    }
    if (SCHEMA_ARRAYS.includes(keyword)) {
      this.walkSchemaArray(value, site, stack)
      return
    }
    reject(
      path,
      keyword,
      `unknown keyword "${keyword}"`,
      'remove it, or prefix it with "x-" if it is only an annotation',
    )
  }

  /** `$ref`: a same-document JSON Pointer that resolves; its target is walked from a fresh cycle stack. */
  private followRef(value: unknown, { path, keyword }: KeywordSite): void {
    if (typeof value !== 'string')
      reject(path, keyword, `must be a string, but got ${describeValue(value)}`, 'write "#/$defs/<name>"')
    if (!value.startsWith('#')) {
      reject(
        path,
        keyword,
        `only same-document references are supported, not ${JSON.stringify(value)}`,
        'inline the schema under $defs and reference "#/$defs/<name>"',
      )
    }
    if (value !== '#' && !value.startsWith('#/')) {
      reject(
        path,
        keyword,
        `anchor references such as ${JSON.stringify(value)} are not supported`,
        'reference a JSON Pointer such as "#/$defs/<name>"',
      )
    }
    const target = this.doc.resolveRef(value)
    if (target === undefined) {
      reject(
        path,
        keyword,
        `${JSON.stringify(value)} does not resolve to a schema in the document`,
        'add the definition under $defs (or fix the pointer)',
      )
    }
    const refPath =
      value === '#'
        ? []
        : value
            .slice(2)
            .split('/')
            .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    this.walk(target, refPath, []) // a reference is not an object-graph edge: start a fresh cycle stack
  }

  /** `properties`: an object of schemas, each walked. */
  private walkProperties(value: unknown, { path, keyword }: KeywordSite, stack: readonly object[]): void {
    if (!isSchemaObject(value))
      reject(
        path,
        keyword,
        `must be an object of schemas, but got ${describeValue(value)}`,
        'write properties: { "name": {...} }',
      )
    for (const [name, sub] of Object.entries(value)) this.walk(sub, [...path, keyword, name], stack)
  }

  /** `additionalProperties` / `additionalItems`: a boolean or a schema (the latter beside array-form `items`). */
  private walkAdditional(
    value: unknown,
    { node, path, keyword }: KeywordSite,
    stack: readonly object[],
  ): void {
    if (keyword === 'additionalItems' && !Array.isArray(node.items)) {
      reject(
        path,
        keyword,
        '"additionalItems" only has an effect beside an array-form "items"',
        'use items: [...] with additionalItems, or prefixItems with items',
      )
    }
    if (typeof value !== 'boolean' && !isSchemaObject(value)) {
      reject(
        path,
        keyword,
        `must be a boolean or a schema, but got ${describeValue(value)}`,
        `write ${keyword}: false or a schema`,
      )
    }
    this.walk(value, [...path, keyword], stack)
  }

  /** `items`: a schema, or the draft-07 array form (not beside `prefixItems`), each member walked. */
  private walkItems(value: unknown, { node, path, keyword }: KeywordSite, stack: readonly object[]): void {
    if (Array.isArray(value)) {
      if (node.prefixItems !== undefined)
        reject(
          path,
          keyword,
          'array-form "items" cannot be combined with "prefixItems"',
          'use prefixItems for the tuple and items for the rest',
        )
      for (const [i, sub] of value.entries()) this.walk(sub, [...path, keyword, String(i)], stack)
      return
    }
    if (typeof value !== 'boolean' && !isSchemaObject(value)) {
      reject(path, keyword, `must be a schema, but got ${describeValue(value)}`, 'write items: { ... }')
    }
    this.walk(value, [...path, keyword], stack)
  }

  /** `allOf` / `anyOf` / `oneOf` / `prefixItems`: a non-empty array of schemas, each walked. */
  private walkSchemaArray(value: unknown, { path, keyword }: KeywordSite, stack: readonly object[]): void {
    if (!Array.isArray(value) || value.length === 0) {
      reject(
        path,
        keyword,
        `must be a non-empty array of schemas, but got ${describeValue(value)}`,
        `list at least one schema in ${keyword}`,
      )
    }
    for (const [i, sub] of value.entries()) this.walk(sub, [...path, keyword, String(i)], stack)
  }

  /** Contradictions visible once `$ref` and `allOf` are merged. */
  private semantic(node: SchemaObject, path: readonly string[]): void {
    let norm: Norm
    try {
      norm = normalize(this.doc, [node])
    } catch (error) {
      if (error instanceof RefCycleError) {
        reject(
          path,
          '$ref',
          `the reference chain ${error.chain.join(' -> ')} loops without ever describing a value`,
          'point the chain at a schema that has its own keywords',
        )
      }
      throw error
    }
    if (norm.never && path.length === 0) {
      reject(
        path,
        'allOf',
        'the schema reaches `false` through $ref/allOf, so no value satisfies it',
        'remove the false member',
      )
    }
    if (norm.enumValues) {
      if (norm.enumValues.length === 0) {
        reject(
          path,
          node.const !== undefined ? 'const' : 'enum',
          'the enum/const values of the merged $ref/allOf members have no value in common',
          'make the enums overlap',
        )
      }
      if (!norm.enumValues.some((v) => this.doc.accepts(node, v))) {
        const first = this.doc.validator(node).validate(norm.enumValues[0])
        const issues = first.ok
          ? ''
          : ` (${formatSchemaIssues(first.issues)} for ${JSON.stringify(norm.enumValues[0])})`
        reject(
          path,
          node.const !== undefined ? 'const' : 'enum',
          `no enum/const value satisfies the other keywords such as "type"${issues}`,
          'add a value that matches, or fix the other keywords',
        )
      }
      return
    }
    const types = candidateTypes(norm)
    if (types.length === 0) {
      reject(
        path,
        'type',
        'the "type" keywords merged from $ref/allOf share no type',
        'make the types overlap',
      )
    }
    const problems = types.map((t) => typeProblem(this.doc, norm, t))
    const firstProblem = problems.find((p) => p !== undefined)
    if (problems.every((p) => p !== undefined) && firstProblem) reject(path, ...firstProblem)
  }
}

/**
 * Checks that {@link generateFromSchema} can generate values for `schema`, and throws a precise reason
 * when it cannot: unsupported keywords (`not`, `if`, `patternProperties`, ...), unresolvable or non-local
 * `$ref`, unsupported formats or regex features, malformed keyword values, and contradictions it can
 * detect (minimum above maximum, minLength above maxLength, a required property forbidden by
 * `additionalProperties: false`, an enum with no value matching the type, ...).
 * @param options - `rootSchema`: the document `schema` lives in, when its `$ref`s point into it
 * @throws InvalidInputError whose message names the JSON Pointer, the keyword and what to do; the same
 *   facts are in `details` (`path`, `keyword`, `problem`, `fix`)
 * @example
 * ```ts
 * assertSupportedSchema({ type: 'string', minLength: 1 }) // passes
 * assertSupportedSchema({ type: 'integer', minimum: 5, maximum: 1 }) // throws InvalidInputError
 * ```
 */
export function assertSupportedSchema(schema: JsonSchema, options: AssertSupportedSchemaOptions = {}): void {
  const root = options.rootSchema ?? schema
  if (typeof root !== 'boolean' && !isSchemaObject(root)) {
    reject(
      [],
      'schema',
      `the root schema must be an object or a boolean, but got ${describeValue(root)}`,
      'pass a JSON Schema object',
    )
  }
  assertSchemaWithinBudget(root)
  if (schema !== root) assertSchemaWithinBudget(schema)
  new Checker(schema, root).run()
  const doc = SchemaDocument.of(root)
  assertMinimalSizeWithinBudget(schema, (ref) => doc.resolveRef(ref))
}
