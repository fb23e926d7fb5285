import {
  assertFunction,
  assertNonEmptyString,
  assertNotThenable,
  assertObject,
  describeValue,
  InvalidDefinitionError,
  refuseField,
} from '@agent-core/core'

/** Reads `definition[key]` once (own field or prototype getter alike) and checks it is a function. */
export function definitionMethod(
  definition: object,
  key: string,
  what: string,
  id: string,
  optional: boolean,
): ((...args: never[]) => unknown) | undefined {
  const value = (definition as Record<string, unknown>)[key]
  if (value === undefined && optional) return undefined
  assertFunction(value, key, {
    where: what,
    error: InvalidDefinitionError,
    details: { id },
    hint: `Declare ${key} as a method or a function-valued field${optional ? ', or leave it out' : ''}.`,
  })
  return value
}

/** Checks a definition is an object and returns its non-empty string `id`. */
export function definitionId(definition: unknown, kind: string): string {
  assertObject(definition, 'definition', {
    where: `A ${kind}`,
    error: InvalidDefinitionError,
    details: { kind },
    hint: 'Pass { id, ... }.',
  })
  const { id } = definition
  assertNonEmptyString(id, 'id', {
    where: `A ${kind} definition`,
    error: InvalidDefinitionError,
    details: { kind },
    hint: 'It names the projection in error messages.',
  })
  return id
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
    refuseField(
      'output',
      hook,
      `must return a string, but returned ${describeValue(value)}. Return the text itself; nothing is converted for you`,
      value,
      { details: { hook, returned: describeValue(value) } },
    )
  }
  return value
}
