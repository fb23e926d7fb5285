/**
 * Shared fixtures for the kits' garbage-input properties: arbitrary bad values (including thenables and
 * objects whose getters throw the App's own error) and a wrapper that accepts only typed errors.
 * Private to the tests: `testing/` is never a subpath.
 */
import { AgentCoreError } from '@agent-core/core'
import fc from 'fast-check'
import { expect } from 'vitest'

/** What an App's own hook or getter throws; it may pass through unchanged. */
export class AppError extends Error {}

/** An object whose every field is a getter that throws the App's own error. */
const hostileFields =
  'id then value allowed takenOver steps stages maxCandidates minCandidates entries read signal targetChars ' +
  'render maxChars key tools description handler when recover handle transform children project length has'
const hostile: object = Object.create(
  Object.create(
    Object.prototype,
    Object.fromEntries(hostileFields.split(' ').map((key) => [key, { get: () => throwApp(key) }])),
  ),
)

function throwApp(what: string): never {
  throw new AppError(what)
}

export const garbage: fc.Arbitrary<unknown> = fc.oneof(
  fc.anything(),
  fc.func(fc.anything()),
  fc.constantFrom<unknown>(
    Number.NaN,
    -1,
    2 ** 53,
    Number.POSITIVE_INFINITY,
    0.5,
    '',
    null,
    undefined,
    [],
    [undefined],
    {},
    Symbol('garbage'),
    1n,
    () => undefined,
    { then: () => undefined },
    Promise.resolve(1),
    hostile,
    [hostile],
  ),
)

/** Runs `call`; whatever it throws must be an AgentCoreError (or the App's own error). */
export function typed<T>(call: () => T): T | undefined {
  try {
    return call()
  } catch (error) {
    if (!(error instanceof AppError)) {
      expect(AgentCoreError.isInstance(error), `expected an AgentCoreError, got ${String(error)}`).toBe(true)
    }
    return undefined
  }
}
