import type { JsonSchema } from '@agent-core/core'
import { FORMAT_LENGTHS } from './formats.js'
import {
  declaredKeys,
  itemCap,
  type Norm,
  normalize,
  schemasForIndex,
  schemasForKey,
  type TypeName,
} from './normalized-schema.js'
import { parseRegex, regexAnchored, regexMaxLength, regexMinLength } from './regex-generator.js'
import type { SchemaDocument } from './schema-document.js'

/** A detected contradiction: the keyword to blame, what is wrong, and what to do. */
export type Contradiction = [keyword: string, problem: string, fix: string]
/** Why no value of `type` satisfies `norm`, as [keyword, problem, fix]; `undefined` when one may. */
export function typeProblem(doc: SchemaDocument, norm: Norm, type: TypeName): Contradiction | undefined {
  if (type === 'number' || type === 'integer') return numberProblem(norm, type === 'integer')
  if (type === 'string') return stringProblem(norm)
  if (type === 'object') return objectProblem(norm)
  if (type === 'array') return arrayProblem(doc, norm)
  return undefined
}

function numberProblem(norm: Norm, integer: boolean): Contradiction | undefined {
  const { lower, upper } = norm
  if (lower && upper) {
    const bad =
      lower.value > upper.value || (lower.value === upper.value && (lower.exclusive || upper.exclusive))
    if (bad) {
      const lk = lower.exclusive ? 'exclusiveMinimum' : 'minimum'
      const uk = upper.exclusive ? 'exclusiveMaximum' : 'maximum'
      return [
        lk,
        `${lk} ${lower.value} and ${uk} ${upper.value} leave no number between them`,
        `make ${lk} smaller than ${uk}`,
      ]
    }
  }
  const lo = lower
    ? lower.exclusive
      ? Math.floor(lower.value) + 1
      : Math.ceil(lower.value)
    : Number.NEGATIVE_INFINITY
  const hi = upper
    ? upper.exclusive
      ? Math.ceil(upper.value) - 1
      : Math.floor(upper.value)
    : Number.POSITIVE_INFINITY
  if (integer && lo > hi) {
    return [
      'type',
      `no integer lies between ${lower!.value} and ${upper!.value}`,
      'widen the bounds or use type "number"',
    ]
  }
  if (norm.multipleOf.length === 1 && lower && upper) {
    const m = norm.multipleOf[0]!
    const from = integer ? lo : lower.value
    const to = integer ? hi : upper.value
    let k = Math.ceil(from / m)
    if (!integer && lower.exclusive && k * m <= from) k++
    let kk = Math.floor(to / m)
    if (!integer && upper.exclusive && kk * m >= to) kk--
    if (k > kk)
      return [
        'multipleOf',
        `no multiple of ${m} lies between ${lower.value} and ${upper.value}`,
        'widen the bounds or change multipleOf',
      ]
  }
  return undefined
}

function stringProblem(norm: Norm): Contradiction | undefined {
  const { minLength, maxLength } = norm
  if (minLength > maxLength) {
    return [
      'minLength',
      `minLength ${minLength} is greater than maxLength ${maxLength}`,
      'make minLength <= maxLength',
    ]
  }
  if (norm.formats.length > 1) {
    return [
      'format',
      `formats ${norm.formats.join(' and ')} are combined through $ref/allOf`,
      'keep one format',
    ]
  }
  const format = norm.formats[0]
  if (format !== undefined) {
    const [lo, hi] = FORMAT_LENGTHS[format]!
    if (lo > maxLength || hi < minLength) {
      return [
        'format',
        `"${format}" strings have ${lo === hi ? lo : `${lo} to ${hi}`} characters, outside minLength ${minLength} / maxLength ${maxLength}`,
        'drop or widen the length bounds',
      ]
    }
  }
  for (const pattern of norm.patterns) {
    const tree = parseRegex(pattern)
    const fullMatch = regexAnchored(tree, '^') && regexAnchored(tree, '$')
    if (fullMatch && regexMinLength(tree) > maxLength) {
      return [
        'pattern',
        `every match of ${JSON.stringify(pattern)} is longer than maxLength ${maxLength}`,
        'raise maxLength or shorten the pattern',
      ]
    }
    if (fullMatch && regexMaxLength(tree) < minLength) {
      return [
        'pattern',
        `every match of ${JSON.stringify(pattern)} is shorter than minLength ${minLength}`,
        'lower minLength or let the pattern repeat',
      ]
    }
  }
  return undefined
}

function objectProblem(norm: Norm): Contradiction | undefined {
  for (const key of norm.required) {
    if (!schemasForKey(norm, key).includes(false)) continue
    const declared = norm.objectParts.some(
      (p) => Object.hasOwn(p.properties, key) && p.properties[key] === false,
    )
    return declared
      ? [
          'required',
          `required property "${key}" has the schema false`,
          `give "${key}" a schema or remove it from required`,
        ]
      : [
          'required',
          `required property "${key}" is forbidden by additionalProperties: false and has no "properties" entry`,
          `add "${key}" to properties or remove it from required`,
        ]
  }
  if (norm.minProperties > norm.maxProperties) {
    return [
      'minProperties',
      `minProperties ${norm.minProperties} is greater than maxProperties ${norm.maxProperties}`,
      'make minProperties <= maxProperties',
    ]
  }
  if (norm.required.length > norm.maxProperties) {
    return [
      'maxProperties',
      `${norm.required.length} properties are required but maxProperties is ${norm.maxProperties}`,
      'raise maxProperties or require fewer properties',
    ]
  }
  if (schemasForKey(norm, '\u0000').includes(false)) {
    const allowed = new Set(
      [...declaredKeys(norm), ...norm.required].filter((k) => !schemasForKey(norm, k).includes(false)),
    )
    if (allowed.size < norm.minProperties) {
      return [
        'minProperties',
        `minProperties ${norm.minProperties} needs more properties than the ${allowed.size} allowed (additionalProperties: false)`,
        'lower minProperties or declare more properties',
      ]
    }
  }
  return undefined
}

function arrayProblem(doc: SchemaDocument, norm: Norm): Contradiction | undefined {
  if (norm.minItems > norm.maxItems) {
    return [
      'minItems',
      `minItems ${norm.minItems} is greater than maxItems ${norm.maxItems}`,
      'make minItems <= maxItems',
    ]
  }
  const cap = itemCap(norm)
  if (norm.minItems > cap) {
    const prefixRest = norm.arrayParts.some((p) => p.restCoversPrefix && p.rest === false)
    return prefixRest
      ? [
          'prefixItems',
          `minItems ${norm.minItems} needs elements, but core's draft-07 validator ignores prefixItems and reads items: false as "no elements at all"`,
          'write the tuple as items: [...] with additionalItems: false',
        ]
      : [
          'minItems',
          `minItems ${norm.minItems} needs more elements than the ${cap} the item schemas allow`,
          'lower minItems or allow more items',
        ]
  }
  if (norm.uniqueItems && norm.minItems > 1 && norm.arrayParts.every((p) => p.prefix.length === 0)) {
    const distinct = distinctValues(doc, schemasForIndex(norm, 0))
    if (distinct < norm.minItems) {
      return [
        'uniqueItems',
        `uniqueItems needs ${norm.minItems} distinct items but the item schema allows only ${distinct} distinct values`,
        'lower minItems, drop uniqueItems or allow more values',
      ]
    }
  }
  return undefined
}

/** An upper bound of how many distinct values `schemas` admit (Infinity when unbounded). */
function distinctValues(doc: SchemaDocument, schemas: readonly JsonSchema[]): number {
  let norm: Norm
  try {
    norm = normalize(doc, schemas)
  } catch {
    return Number.POSITIVE_INFINITY
  }
  if (norm.choices.length > 0) return Number.POSITIVE_INFINITY
  if (norm.enumValues) return norm.enumValues.length
  if (!norm.types) return Number.POSITIVE_INFINITY
  let total = 0
  for (const t of norm.types) {
    if (t === 'null') total += 1
    else if (t === 'boolean') total += 2
    else if (
      t === 'integer' &&
      !norm.types.has('number') &&
      norm.lower &&
      norm.upper &&
      norm.multipleOf.length === 0
    ) {
      total += Math.max(0, Math.floor(norm.upper.value) - Math.ceil(norm.lower.value) + 1)
    } else return Number.POSITIVE_INFINITY
  }
  return total
}
