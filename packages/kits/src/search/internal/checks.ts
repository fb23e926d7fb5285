import {
  assertBoolean,
  assertNotThenable,
  assertSafeInteger,
  describeValue,
  InvalidInputError,
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
    throw new InvalidInputError(
      `${field} must be a finite number${range}, but got ${describeValue(value)}.`,
      {
        details: { field, received: describeValue(value), ...(min === undefined ? {} : { min }) },
      },
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
    if (seen.has(name)) {
      throw new InvalidInputError(`${field} lists "${name}" twice; list each field once.`, {
        details: { field: `${field}[${i}]`, received: describeValue(name) },
      })
    }
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
    throw new InvalidInputError(
      `${where} must have a non-empty string id in field "${idField}", but it holds ${describeValue(id)}. ` +
        'Set that field, or choose another field with the idField option.',
      { details: { field: `${where}.${idField}`, received: describeValue(id) } },
    )
  }
  return id
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
    throw new InvalidInputError(
      `${where} takes ${field} as an object like ${shape}, but got ${describeValue(value)}.`,
      { details: { field, received: describeValue(value) } },
    )
  }
}
