import {
  assertNotThenable,
  describeValue,
  InvalidDefinitionError,
  InvalidOutputError,
} from '@agent-core/core'

/** Reads `definition[key]` once (own field or prototype getter alike) and checks it is a function. */
export function definitionMethod(
  definition: object,
  key: string,
  what: string,
  optional: boolean,
): ((...args: never[]) => unknown) | undefined {
  const value = (definition as Record<string, unknown>)[key]
  if (value === undefined && optional) return undefined
  if (typeof value !== 'function') {
    throw new InvalidDefinitionError(
      `${what}.${key} must be a function${optional ? ' when given' : ''}, but got ${describeValue(value)}. Declare ${key} as a method or a function-valued field.`,
      { details: { field: key, received: describeValue(value) } },
    )
  }
  return value as (...args: never[]) => unknown
}

/** Checks a definition is an object and returns its non-empty string `id`. */
export function definitionId(definition: unknown, kind: string): string {
  if (typeof definition !== 'object' || definition === null) {
    throw new InvalidDefinitionError(
      `A ${kind} definition must be an object with an id, but got ${describeValue(definition)}. Pass { id, ... }.`,
      { details: { kind, received: describeValue(definition) } },
    )
  }
  const id = (definition as { id?: unknown }).id
  if (typeof id !== 'string' || id.length === 0) {
    throw new InvalidDefinitionError(
      `A ${kind} definition needs a non-empty string id (used in error messages), but got ${describeValue(id)}.`,
      { details: { kind, field: 'id', received: describeValue(id) } },
    )
  }
  return id
}

/** Checks a definition's integer field. */
export function definitionInteger(value: unknown, name: string, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new InvalidDefinitionError(
      `${name} must be a safe integer of at least ${min}, but got ${describeValue(value)}. Use a whole number such as ${min + 2}.`,
      { details: { field: name, min, received: describeValue(value) } },
    )
  }
  return value
}

/** Calls a synchronous hook with its original receiver and rejects a thenable answer. */
export function callSync<T>(
  fn: (...args: never[]) => unknown,
  receiver: object,
  args: readonly unknown[],
  hook: string,
): T {
  return assertNotThenable(Reflect.apply(fn, receiver, args), hook) as T
}

/** Checks a hook returned a string. */
export function assertStringOutput(value: unknown, hook: string): string {
  if (typeof value !== 'string') {
    throw new InvalidOutputError(
      `${hook} must return a string, but returned ${describeValue(value)}. Return the text itself; nothing is converted for you.`,
      { details: { hook, returned: describeValue(value) } },
    )
  }
  return value
}
