import { InvalidInputError } from '@agent-core/core'
import { MAX_GENERATED_SIZE } from './generation-limits.js'
import { parseRegex, type RegexNode, regexMinLength, UnsupportedRegexError } from './regex-generator.js'

/**
 * Bounds on a schema's size, checked in one linear pass before anything compiles or generates from it (ajv
 * compiles code per node, and a few hundred kilobytes of schema would block the event loop for seconds).
 * They sit above OpenAI's own structured-output limits, so any schema the real API takes passes.
 */
export const SCHEMA_LIMITS = {
  /** Objects and arrays in the schema, all levels. */
  nodes: 1_000,
  /** Branches of all `anyOf` / `oneOf` together (each is compiled and tried on its own). */
  branches: 256,
  /** Nesting of objects and arrays. */
  depth: 64,
  /** Values in one `enum`. */
  enumValues: 1_000,
  /** Values in all `enum`s and `const`s together. */
  totalEnumValues: 10_000,
  /** Characters of one `pattern`. */
  patternLength: 1_000,
  /** Quantifiers nested inside quantifiers in one pattern (`(a{2}){3}` nests 2 deep). */
  quantifierNesting: 2,
} as const

function pointer(path: readonly string[]): string {
  return `#${path.map((p) => `/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')}`
}

/**
 * Refuses a schema the generator does not support, at its JSON pointer: what is wrong and how to fix it
 * (shared by {@link assertSchemaWithinBudget} and `assertSupportedSchema`).
 */
export function reject(path: readonly string[], keyword: string, problem: string, fix: string): never {
  const at = pointer(path)
  throw new InvalidInputError(
    `Unsupported JSON Schema at ${at} (keyword "${keyword}"): ${problem}. To fix: ${fix}.`,
    { details: { field: at, path: at, keyword, problem, fix } },
  )
}

/** Single characters (classes) an alternation option stands for, or `undefined` for anything longer. */
function singleRanges(node: RegexNode): readonly (readonly [number, number])[] | undefined {
  return node.kind === 'ranges' ? node.ranges : undefined
}

function overlaps(
  a: readonly (readonly [number, number])[],
  b: readonly (readonly [number, number])[],
): boolean {
  return a.some(([lo, hi]) => b.some(([lo2, hi2]) => lo <= hi2 && lo2 <= hi))
}

/**
 * Rejects the regular-expression shapes that make a backtracking engine (ajv runs `pattern` with
 * `RegExp`) or the generator blow up: quantifiers nested too deep (`((a{1000}){1000}){1000}`), a
 * repetition of a repetition (`(a+)+`, the classic catastrophic backtracking), a repeated alternation of
 * overlapping characters (`(a|a)*`), and a shortest match beyond the generator's size bound.
 */
function checkRegex(tree: RegexNode, source: string, path: readonly string[]): void {
  const visit = (node: RegexNode, nesting: number): void => {
    switch (node.kind) {
      case 'seq':
        for (const item of node.items) visit(item, nesting)
        return
      case 'alt':
        for (const option of node.options) visit(option, nesting)
        return
      case 'repeat': {
        const level = node.max > 1 ? nesting + 1 : nesting
        if (level > SCHEMA_LIMITS.quantifierNesting) {
          reject(
            path,
            'pattern',
            `pattern ${JSON.stringify(source)} nests quantifiers ${level} deep (at most ${SCHEMA_LIMITS.quantifierNesting})`,
            'flatten the repetition, e.g. write a{6} instead of (a{2}){3}',
          )
        }
        const body = node.node
        const unbounded = node.max === Number.POSITIVE_INFINITY
        const inner = body.kind === 'alt' ? body.options : [body]
        const variable = (n: RegexNode) => n.kind === 'repeat' && n.max > 1 && n.min !== n.max
        if (
          variable(node) &&
          inner.some(variable) &&
          (unbounded || inner.some((o) => o.kind === 'repeat' && o.max === Number.POSITIVE_INFINITY))
        ) {
          reject(
            path,
            'pattern',
            `pattern ${JSON.stringify(source)} repeats a repetition (such as (a+)+), which backtracks exponentially`,
            'repeat the inner element once, e.g. a+ instead of (a+)+',
          )
        }
        if (unbounded && body.kind === 'alt') {
          const singles = body.options.map(singleRanges)
          for (let i = 0; i < singles.length; i++) {
            for (let j = i + 1; j < singles.length; j++) {
              const a = singles[i]
              const b = singles[j]
              if (a && b && overlaps(a, b)) {
                reject(
                  path,
                  'pattern',
                  `pattern ${JSON.stringify(source)} repeats alternatives that match the same character (such as (a|a)*), which backtracks exponentially`,
                  'merge the alternatives into one character class',
                )
              }
            }
          }
        }
        visit(body, level)
        return
      }
      default:
        return
    }
  }
  visit(tree, 0)
  const shortest = regexMinLength(tree)
  if (shortest > MAX_GENERATED_SIZE) {
    reject(
      path,
      'pattern',
      `every match of ${JSON.stringify(source.length > 80 ? `${source.slice(0, 79)}…` : source)} has at least ${shortest} characters, more than the ${MAX_GENERATED_SIZE} MockGPT generates`,
      'shorten the repetition counts, or script the value',
    )
  }
}

/**
 * Checks the size of a schema in one iterative pass (no recursion, so depth cannot overflow the stack):
 * nodes, nesting, enum sizes and every `pattern`. Throws InvalidInputError naming the JSON Pointer and the
 * keyword.
 */
export function assertSchemaWithinBudget(schema: unknown): void {
  let nodes = 0
  let enumValues = 0
  let branches = 0
  const stack: { value: unknown; path: string[]; depth: number; key: string | undefined }[] = [
    { value: schema, path: [], depth: 0, key: undefined },
  ]
  // Objects seen once are not walked again (a cyclic graph from code is reported by the schema check).
  const seen = new Set<object>()
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { value, path, depth, key } = item
    if (typeof value !== 'object' || value === null) {
      if (key === 'pattern' && typeof value === 'string') {
        const parent = path.slice(0, -1)
        if (value.length > SCHEMA_LIMITS.patternLength) {
          reject(
            parent,
            'pattern',
            `the pattern has ${value.length} characters (at most ${SCHEMA_LIMITS.patternLength})`,
            'shorten the regular expression',
          )
        }
        let tree: RegexNode
        try {
          tree = parseRegex(value)
        } catch (error) {
          // Unsupported or invalid patterns are explained by the generator's own schema check.
          if (error instanceof UnsupportedRegexError || error instanceof SyntaxError) continue
          throw error
        }
        checkRegex(tree, value, parent)
      }
      continue
    }
    if (seen.has(value)) continue
    seen.add(value)
    if (++nodes > SCHEMA_LIMITS.nodes) {
      reject(
        path,
        'schema',
        `the schema has more than ${SCHEMA_LIMITS.nodes} objects and arrays`,
        'split it, or describe repeated parts once under $defs',
      )
    }
    if (depth > SCHEMA_LIMITS.depth) {
      reject(
        path,
        'schema',
        `the schema nests more than ${SCHEMA_LIMITS.depth} levels deep`,
        'flatten it, or use $ref for recursive shapes',
      )
    }
    if (Array.isArray(value)) {
      if (key === 'anyOf' || key === 'oneOf') {
        branches += value.length
        if (branches > SCHEMA_LIMITS.branches) {
          reject(
            path.slice(0, -1),
            key,
            `the schema's anyOf/oneOf lists hold more than ${SCHEMA_LIMITS.branches} branches together`,
            'merge branches (an enum instead of many const branches, for example)',
          )
        }
      }
      if (key === 'enum') {
        if (value.length > SCHEMA_LIMITS.enumValues) {
          reject(
            path.slice(0, -1),
            'enum',
            `the enum has ${value.length} values (at most ${SCHEMA_LIMITS.enumValues})`,
            'use a pattern or a string with a format instead of listing every value',
          )
        }
        enumValues += value.length
        if (enumValues > SCHEMA_LIMITS.totalEnumValues) {
          reject(
            path.slice(0, -1),
            'enum',
            `the schema's enums hold more than ${SCHEMA_LIMITS.totalEnumValues} values together`,
            'list fewer values',
          )
        }
        continue // enum values are data, not schemas: they are not walked
      }
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], path: [...path, String(i)], depth: depth + 1, key: undefined })
      continue
    }
    const keys = Object.keys(value)
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i] as string
      // `const`, `default` and `examples` are data: counted as one node each, not walked.
      if (k === 'const' || k === 'default' || k === 'examples') {
        if (k === 'const') enumValues++
        continue
      }
      stack.push({
        value: (value as Record<string, unknown>)[k],
        path: [...path, k],
        depth: depth + 1,
        key: k,
      })
    }
  }
}

/** The most characters of JSON one generated value may have. */
export const MAX_OUTPUT_CHARS = 1_000_000

type Resolve = (ref: string) => unknown

/**
 * A lower bound on the JSON length of the smallest value `schema` admits: required properties, `minItems`,
 * `minLength` and pattern lengths multiplied through the nesting, `anyOf`/`oneOf` taking the cheapest
 * branch. Linear in the schema (memoised per node; a `$ref` cycle counts as its cheapest exit).
 */
function minimalSize(schema: unknown, resolve: Resolve): number {
  const memo = new Map<object, number>()
  const active = new Set<object>()
  const size = (node: unknown): number => {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return 1
    const known = memo.get(node)
    if (known !== undefined) return known
    if (active.has(node)) return 1
    active.add(node)
    const s = node as Record<string, unknown>
    let total = 1
    if (s.enum !== undefined || s.const !== undefined) total = 1
    else {
      const parts: number[] = []
      if (typeof s.$ref === 'string') parts.push(size(resolve(s.$ref)))
      if (Array.isArray(s.allOf)) for (const m of s.allOf) parts.push(size(m))
      for (const kind of ['anyOf', 'oneOf'] as const) {
        const branches = s[kind]
        if (Array.isArray(branches) && branches.length) parts.push(Math.min(...branches.map(size)))
      }
      const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type]
      const own: number[] = []
      const wants = (t: string) => types.length === 0 || types.includes(t)
      const stringLike = typeof s.minLength === 'number' || typeof s.pattern === 'string'
      if (types.includes('string') || (types.length === 0 && stringLike)) {
        let n = typeof s.minLength === 'number' ? s.minLength : 0
        if (typeof s.pattern === 'string') {
          try {
            n = Math.max(n, regexMinLength(parseRegex(s.pattern)))
          } catch {
            // invalid patterns are reported by the schema check
          }
        }
        own.push(n + 2)
      }
      if (wants('array') && (typeof s.minItems === 'number' || types.includes('array'))) {
        const min = typeof s.minItems === 'number' ? s.minItems : 0
        const items = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : []
        let n = 2
        for (let i = 0; i < min; i++) {
          const item = i < items.length ? items[i] : Array.isArray(s.items) ? s.additionalItems : s.items
          n += size(item) + 1
          if (i >= items.length && i > 0) {
            n += (min - i - 1) * (size(item) + 1)
            break
          }
        }
        own.push(n)
      }
      if (wants('object') && (Array.isArray(s.required) || types.includes('object'))) {
        const properties = (typeof s.properties === 'object' && s.properties) || {}
        let n = 2
        for (const key of Array.isArray(s.required) ? s.required : []) {
          const sub = Object.hasOwn(properties, key as string)
            ? (properties as Record<string, unknown>)[key as string]
            : s.additionalProperties
          n += String(key).length + 4 + size(sub)
        }
        own.push(n)
      }
      if (own.length) parts.push(types.length > 1 ? Math.min(...own) : Math.max(...own))
      total = parts.length ? Math.max(...parts) : 1
    }
    active.delete(node)
    memo.set(node, total)
    return total
  }
  return size(schema)
}

/**
 * Refuses a schema whose smallest value is larger than {@link MAX_OUTPUT_CHARS}, before generating a
 * single character of it (nested `minItems` times `minLength`, thousands of long required properties).
 */
export function assertMinimalSizeWithinBudget(schema: unknown, resolve: Resolve): void {
  const n = minimalSize(schema, resolve)
  if (n > MAX_OUTPUT_CHARS) {
    reject(
      [],
      'schema',
      `its smallest valid value has about ${n} characters of JSON, more than the ${MAX_OUTPUT_CHARS} MockGPT generates (the value would be too large)`,
      'lower minItems / minLength / the number of required properties, or script the value',
    )
  }
}
