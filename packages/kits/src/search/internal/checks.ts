import {
  assertBoolean,
  assertNotThenable,
  assertSafeInteger,
  describeValue,
  InvalidOutputError,
  refuseField,
} from '@agent-core/core'

/** Checks a request's `limit`: a safe integer of at least 0 (0 asks for no hits). */
export function assertLimit(value: unknown, field = 'request.limit'): asserts value is number {
  assertSafeInteger(value, field, { min: 0 })
}

/** Checks an optional callback option; `field` is its path as the caller wrote it (`request.filter`). */
export function assertOptionalFunction(value: unknown, field: string): void {
  if (value !== undefined && typeof value !== 'function') {
    refuseField('input', field, `must be a function or left out, but got ${describeValue(value)}`, value)
  }
}

/** Checks a finite number (NaN and ±Infinity rejected), optionally within bounds. */
export function assertFiniteNumber(
  value: unknown,
  field: string,
  bounds: { readonly min?: number; readonly exclusiveMin?: boolean } = {},
): asserts value is number {
  const { min, exclusiveMin = false } = bounds
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    (min !== undefined && (exclusiveMin ? value <= min : value < min))
  ) {
    const range = min === undefined ? '' : exclusiveMin ? ` greater than ${min}` : ` of at least ${min}`
    refuseField(
      'input',
      field,
      `must be a finite number${range}, but got ${describeValue(value)}`,
      value,
      min === undefined ? undefined : { details: { min } },
    )
  }
}

/** Checks a list of distinct non-empty field names. */
export function assertFieldList(
  value: unknown,
  field: string,
  options: { readonly nonEmpty: boolean },
): string[] {
  if (!Array.isArray(value)) {
    refuseField('input', field, `must be an array of field names, but got ${describeValue(value)}`, value)
  }
  if (options.nonEmpty && value.length === 0) {
    refuseField('input', field, `must name at least one field to index`, value)
  }
  const seen = new Set<string>()
  for (let i = 0; i < value.length; i++) {
    const name: unknown = value[i]
    if (typeof name !== 'string' || name.length === 0) {
      refuseField(
        'input',
        `${field}[${i}]`,
        `must be a non-empty field name, but got ${describeValue(name)}`,
        name,
      )
    }
    if (seen.has(name))
      refuseField('input', `${field}[${i}]`, `repeats "${name}"; list each field once`, name)
    seen.add(name)
  }
  return [...seen]
}

/**
 * Reads a document's id from `idField`: it must be a non-empty string.
 * @param where - the document's path as the caller wrote it, e.g. `documents[3]`
 */
export function readDocumentId(document: unknown, idField: string, where: string): string {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    refuseField('input', where, `must be a plain object, but got ${describeValue(document)}`, document)
  }
  const id: unknown = (document as Record<string, unknown>)[idField]
  if (typeof id !== 'string' || id.length === 0) {
    refuseField(
      'input',
      `${where}.${idField}`,
      `must be a non-empty string (the id field "${idField}"), but got ${describeValue(id)}. Set that field, or choose another field with the idField option`,
      id,
    )
  }
  return id
}

/**
 * Checks a list of ids (`removeAll`): an array of strings. `prefix` names the call
 * (`'TextSearch removeAll: '`); `single` names the one id of a `remove(id)` `id`.
 */
export function assertIdList(
  ids: unknown,
  prefix: string,
  field = 'ids',
  single = false,
): asserts ids is readonly string[] {
  if (!Array.isArray(ids))
    refuseField('input', field, `must be an array of ids, but got ${describeValue(ids)}`, ids, { prefix })
  for (let i = 0; i < ids.length; i++) {
    const id: unknown = ids[i]
    if (typeof id !== 'string')
      refuseField(
        'input',
        single ? 'id' : `${field}[${i}]`,
        `must be a string, but got ${describeValue(id)}`,
        id,
        {
          prefix,
        },
      )
  }
}

/** Calls an App filter and checks that it answered a boolean synchronously (core's `assertBoolean`). */
export function keepByFilter<A, B>(filter: (a: A, b: B) => unknown, a: A, b: B, hook: string): boolean {
  return assertBoolean(filter(a, b), hook)
}

/** Calls an App groupBy and checks that it answered a string synchronously. */
export function groupKey<A, B>(groupBy: (a: A, b: B) => unknown, a: A, b: B, hook: string): string {
  const answer: unknown = assertNotThenable(groupBy(a, b), hook)
  if (typeof answer !== 'string') {
    throw new InvalidOutputError(
      `${hook} must return a string group key synchronously, but returned ${describeValue(answer)}.`,
      { details: { hook, received: describeValue(answer) } },
    )
  }
  return answer
}

/**
 * Checks that a request is a plain object, with a message that says what a valid one looks like.
 * @param field - the argument's name as the caller wrote it: `request`, `options`, `entries[2]`
 */
export function assertRequest(
  value: unknown,
  where: string,
  shape: string,
  field = 'request',
): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    refuseField('input', field, `must be an object like ${shape}, but got ${describeValue(value)}`, value, {
      prefix: `${where}: `,
    })
  }
}
