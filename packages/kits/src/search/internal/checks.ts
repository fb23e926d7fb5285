import {
  assertBoolean,
  assertNotThenable,
  assertSafeInteger,
  describeValue,
  InvalidInputError,
  InvalidOutputError,
} from '@agent-core/core'

/** Checks a request's `limit`: a safe integer of at least 0 (0 asks for no hits). */
export function assertLimit(value: unknown, where: string): asserts value is number {
  assertSafeInteger(value, `${where} limit`, { min: 0 })
}

/** Checks an optional callback option. */
export function assertOptionalFunction(value: unknown, name: string): void {
  if (value !== undefined && typeof value !== 'function') {
    throw new InvalidInputError(`${name} must be a function or left out, but got ${describeValue(value)}.`, {
      details: { name, received: describeValue(value) },
    })
  }
}

/** Checks a finite number (NaN and ±Infinity rejected), optionally within bounds. */
export function assertFiniteNumber(
  value: unknown,
  name: string,
  bounds: { readonly min?: number; readonly exclusiveMin?: boolean } = {},
): asserts value is number {
  const { min, exclusiveMin = false } = bounds
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    (min !== undefined && (exclusiveMin ? value <= min : value < min))
  ) {
    const range = min === undefined ? '' : exclusiveMin ? ` greater than ${min}` : ` of at least ${min}`
    throw new InvalidInputError(`${name} must be a finite number${range}, but got ${describeValue(value)}.`, {
      details: { name, received: describeValue(value), ...(min === undefined ? {} : { min }) },
    })
  }
}

/** Checks a list of distinct non-empty field names. */
export function assertFieldList(
  value: unknown,
  name: string,
  options: { readonly nonEmpty: boolean },
): string[] {
  if (!Array.isArray(value)) {
    throw new InvalidInputError(`${name} must be an array of field names, but got ${describeValue(value)}.`, {
      details: { name, received: describeValue(value) },
    })
  }
  if (options.nonEmpty && value.length === 0) {
    throw new InvalidInputError(`${name} must name at least one field to index.`, { details: { name } })
  }
  const seen = new Set<string>()
  for (let i = 0; i < value.length; i++) {
    const field: unknown = value[i]
    if (typeof field !== 'string' || field.length === 0) {
      throw new InvalidInputError(
        `${name}[${i}] must be a non-empty field name, but got ${describeValue(field)}.`,
        { details: { name, index: i, received: describeValue(field) } },
      )
    }
    if (seen.has(field)) {
      throw new InvalidInputError(`${name} lists "${field}" twice; list each field once.`, {
        details: { name, field },
      })
    }
    seen.add(field)
  }
  return [...seen]
}

/** Reads a document's id from `idField`: it must be a non-empty string. */
export function readDocumentId(document: unknown, idField: string, where: string): string {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new InvalidInputError(`${where} must be a plain object, but got ${describeValue(document)}.`, {
      details: { where, received: describeValue(document) },
    })
  }
  const id: unknown = (document as Record<string, unknown>)[idField]
  if (typeof id !== 'string' || id.length === 0) {
    throw new InvalidInputError(
      `${where} must have a non-empty string id in field "${idField}", but it holds ${describeValue(id)}. ` +
        'Set that field, or choose another field with the idField option.',
      { details: { where, idField, received: describeValue(id) } },
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
      { details: { hook, returned: describeValue(answer) } },
    )
  }
  return answer
}

/** Checks that a request is a plain object, with a message that says what a valid one looks like. */
export function assertRequest(
  value: unknown,
  where: string,
  shape: string,
): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidInputError(
      `${where} takes a request object like ${shape}, but got ${describeValue(value)}.`,
      {
        details: { where, received: describeValue(value) },
      },
    )
  }
}
