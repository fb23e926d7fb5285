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

/** Values both data-heavy kits (search, durable) feed where numbers, arrays or callbacks are expected. */
const COMMON_BAD_VALUES: readonly unknown[] = [
  Number.NaN,
  -0,
  Number.POSITIVE_INFINITY,
  -1,
  1.5,
  2 ** 53,
  '',
  null,
  undefined,
  Symbol('s'),
  Promise.resolve(true),
  // biome-ignore lint/suspicious/noSparseArray: a sparse array is the point
  [1, , 3],
  () => undefined,
  () => Promise.resolve(true),
]

/**
 * Deep garbage: `fc.anything` with every exotic option (bigint, boxed values, dates, maps, sets,
 * null prototypes, sparse and typed arrays), the common bad values, random functions, plus a kit's own
 * `extras` (e.g. thenables that settle, for kits that await what they are given, or never settle, for
 * synchronous kits that must reject them before waiting).
 */
export function deepGarbage(
  extras: readonly unknown[],
  sparseArray: fc.Arbitrary<unknown>,
): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
    }),
    fc.constantFrom<unknown>(...COMMON_BAD_VALUES, ...extras),
    sparseArray,
    fc.func(fc.anything()),
  )
}
