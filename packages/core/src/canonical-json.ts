import { describeValue } from './errors/agent-core-error.js'
import { refuseField } from './field-reader.js'

/**
 * JSON text of a value with every object's keys sorted by UTF-16 code units and no whitespace: two values
 * that are equal as JSON print the same, whatever their key order, so the text can be compared, hashed or
 * signed. Numbers print as JavaScript prints them (for plain JSON this is the JSON Canonicalization Scheme,
 * RFC 8785). What JSON drops is dropped as `JSON.stringify` drops it: an object property holding
 * `undefined` (or a function or symbol) is left out; in an array, or as the whole value, it prints `null`.
 * `NaN` and the infinities print `null`. The value is read as plain data: `toJSON` is not called, and a
 * class instance prints its own enumerable properties.
 * @throws `InvalidInputError` for a `bigint` anywhere in the value, or for a value nested so deep (or
 *   cyclic) that it cannot be printed
 * @example
 * ```ts
 * import { canonicalJson } from '@agent-core/core'
 * canonicalJson({ b: [1, { d: true, c: null }], a: 'x' }) // '{"a":"x","b":[1,{"c":null,"d":true}]}'
 * canonicalJson({ b: 1, a: 2 }) === canonicalJson({ a: 2, b: 1 }) // true
 * ```
 */
export function canonicalJson(value: unknown): string {
  try {
    return write(value) ?? 'null'
  } catch (error) {
    if (error instanceof RangeError) {
      refuseField(
        'input',
        'value',
        `cannot be printed: ${describeValue(value)} is nested too deep or refers back to one of its parents (a cycle). Pass plain JSON data without cycles`,
        value,
        { prefix: 'canonicalJson: ', cause: error },
      )
    }
    throw error
  }
}

/** The canonical text of `value`, or `undefined` for what JSON drops (as `JSON.stringify` answers). */
function write(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'bigint') {
      refuseField(
        'input',
        'value',
        `holds the bigint ${value}n, which JSON cannot carry. Convert it to a string or a number first`,
        value,
        { prefix: 'canonicalJson: ' },
      )
    }
    return JSON.stringify(value)
  }
  if (Array.isArray(value)) {
    let out = '['
    for (let index = 0; index < value.length; index++) {
      if (index > 0) out += ','
      out += write(value[index]) ?? 'null'
    }
    return `${out}]`
  }
  const record = value as Readonly<Record<string, unknown>>
  const keys = Object.keys(record).sort()
  let out = '{'
  let first = true
  for (const key of keys) {
    const text = write(record[key])
    if (text === undefined) continue
    out += `${first ? '' : ','}${JSON.stringify(key)}:${text}`
    first = false
  }
  return `${out}}`
}
