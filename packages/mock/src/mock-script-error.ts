import { AgentCoreError, type ErrorDetails } from '@agent-core/core'

/**
 * A script problem MockGPT recorded while answering: a scripted reply it could not send as written, or (in
 * strict mode) a request no script entry matched.
 * @example
 * ```ts
 * import type { MockScriptProblem } from '@agent-core/mock'
 * const problem: MockScriptProblem = {
 *   kind: 'script-error',
 *   requestIndex: 0,
 *   testId: undefined,
 *   entry: 2,
 *   message: 'MockGPT script entry 2: the scripted value for response_format.json_schema.schema fails its schema (/age: must be integer).',
 * }
 * ```
 */
export interface MockScriptProblem {
  /** `script-error`: an entry could not be answered as scripted; `unmatched`: strict mode found no entry. */
  readonly kind: 'script-error' | 'unmatched'
  /** The index of the request (in its scope's recording) that hit the problem. */
  readonly requestIndex: number
  /** The test scope of the request; `undefined` for the default scope. */
  readonly testId: string | undefined
  /** The script entry at fault (`undefined` for an unmatched request). */
  readonly entry: number | undefined
  /** What went wrong and what to change, as sent to the client. */
  readonly message: string
}

/**
 * Details of {@link MockScriptError}.
 * @example
 * ```ts
 * import { MockScriptError } from '@agent-core/mock'
 * function report(error: unknown) {
 *   if (MockScriptError.isInstance(error)) console.log(error.details.problems.length, error.details.unused.length)
 * }
 * ```
 */
export interface MockScriptErrorDetails extends ErrorDetails {
  /** Script errors and unmatched requests, in the order they happened. */
  readonly problems: readonly MockScriptProblem[]
  /** Script entries never used up, described (`index`, `label`, what they wait for). */
  readonly unused: readonly {
    readonly index: number
    readonly label: string | undefined
    readonly testId: string | undefined
    readonly waitsFor: string
  }[]
}

/**
 * Thrown by `assertAllScriptsUsed()` and by a server's or fetch handler's `close()` when the script did not
 * run as written: an entry that could not be answered, a request strict mode could not match, or (for
 * `assertAllScriptsUsed()`) entries left unused. A green test must mean the script ran.
 * @example
 * ```ts
 * import { createMockGPT, MockScriptError } from '@agent-core/mock'
 * const mock = createMockGPT({ script: [{ reply: { type: 'text', text: 'never asked' } }] })
 * try {
 *   mock.assertAllScriptsUsed()
 * } catch (error) {
 *   if (MockScriptError.isInstance(error)) console.log(error.message)
 * }
 * ```
 */
export class MockScriptError extends AgentCoreError<MockScriptErrorDetails> {
  static override readonly code = 'mock-script-error'
  constructor(message: string, details: MockScriptErrorDetails) {
    super('mock-script-error', message, { details })
  }
}

/** The message of a {@link MockScriptError}: every problem and unused entry, one per line. */
export function scriptErrorMessage(
  what: string,
  problems: MockScriptErrorDetails['problems'],
  unused: MockScriptErrorDetails['unused'],
): string {
  const scope = (testId: string | undefined) => (testId === undefined ? '' : ` [test ${testId}]`)
  const lines = [
    ...problems.map((p) => `- request ${p.requestIndex}${scope(p.testId)}: ${p.message}`),
    ...unused.map(
      (u) =>
        `- script entry ${u.label ? `${u.index} ("${u.label}")` : u.index}${scope(u.testId)} was never used: ${u.waitsFor}`,
    ),
  ]
  return `${what}:\n${lines.join('\n')}\nFix the script (or the code under test), or call reset() to discard these on purpose.`
}
