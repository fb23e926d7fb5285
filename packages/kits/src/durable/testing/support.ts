import { AgentCoreError } from '@agent-core/core'
import type { CheckpointV2, DurableStore } from '@agent-core/kits/durable'
import { assert } from './assert.js'

/**
 * Builds a valid checkpoint of the conformance suite's definition (`definitionId: 'conformance'`), with
 * `overrides` applied. Handy for a store's own tests too.
 * @example
 * ```ts
 * import { sampleCheckpoint } from '@agent-core/kits/durable/testing'
 * const checkpoint = sampleCheckpoint({ count: 1 }, { nextStepIndex: 2, status: 'completed' })
 * ```
 */
export function sampleCheckpoint<State>(
  state: State,
  overrides: Partial<CheckpointV2<State>> = {},
): CheckpointV2<State> {
  return {
    version: 2,
    definitionId: 'conformance',
    revision: 'r1',
    nextStepIndex: 0,
    attemptCount: 1,
    maxAttempts: 3,
    deadlineAtMs: null,
    status: 'running',
    state,
    ...overrides,
  }
}

/** Lets other tasks (timers, I/O callbacks) run, without measuring time. */
export async function yieldTurns(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setTimeout(resolve, 0))
}

/** A promise and its resolver. */
export function deferred(): { readonly promise: Promise<void>; resolve(): void } {
  let resolve!: () => void
  const promise = new Promise<void>((settle) => {
    resolve = settle
  })
  return { promise, resolve }
}

/** An agent-core error class, as far as the suite needs it. */
interface ErrorClass {
  readonly name: string
  isInstance(value: unknown): boolean
}

/**
 * Expects `call` to fail (a synchronous throw counts) with an instance of `errorClass`; the assertion
 * message names what was called and what came instead.
 */
export async function rejectsWith(call: () => unknown, errorClass: ErrorClass, what: string): Promise<void> {
  const outcome = await Promise.resolve()
    .then(call)
    .then(
      () => ({ failed: false as const }),
      (error: unknown) => ({ failed: true as const, error }),
    )
  assert.ok(outcome.failed, `${what} should fail with ${errorClass.name}, but it succeeded`)
  assert.ok(
    errorClass.isInstance(outcome.error),
    `${what} should fail with ${errorClass.name}, but failed with ${describeError(outcome.error)}`,
  )
}

/** Expects `call` to fail with any error. */
export async function rejectsAny(call: () => unknown, what: string): Promise<unknown> {
  const outcome = await Promise.resolve()
    .then(call)
    .then(
      () => ({ failed: false as const, error: undefined }),
      (error: unknown) => ({ failed: true as const, error }),
    )
  assert.ok(outcome.failed, `${what} should fail, but it succeeded`)
  return outcome.error
}

function describeError(error: unknown): string {
  if (AgentCoreError.isInstance(error)) return `${error.name} (${error.code}): ${error.message}`
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error)
}

/** The checkpoint state a contract load returned; fails when nothing was loaded. */
export function stateOf<State>(loaded: unknown): State {
  assert.ok(
    typeof loaded === 'object' && loaded !== null,
    `expected a stored checkpoint, but load returned ${String(loaded)}`,
  )
  return (loaded as CheckpointV2<State>).state
}

/** Runs `operation` on `store` under the task's lease (a store may pass no lease). */
export function underLease<T>(store: DurableStore, taskId: string, operation: () => Promise<T>): Promise<T> {
  return store.exclusive(taskId, () => operation())
}
