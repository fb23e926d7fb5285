import type { AttemptBudget } from './attempt-budget.js'
import { createDiagnostics, type DiagnosticSink, type Diagnostics } from './diagnostics.js'
import { describeValue } from './errors/agent-core-error.js'
import { type FieldRefusalContext, refuseField } from './field-reader.js'
import { assertObject, isAbortSignal } from './validate.js'

/** The context's refusals name the field as `context.<field>` in the message, `<field>` in details. */
const CONTEXT: FieldRefusalContext = { prefix: 'context.' }

/**
 * The per-run context every I/O-facing kit receives. Definitions are static; whatever belongs to one run
 * (identity, stores, budgets) travels here, in `app`.
 * @example
 * ```ts
 * import { createOperationContext, type OperationContext } from '@agent-core/core'
 * interface App { readonly userId: string }
 * function greet(context: OperationContext<App>): string {
 *   context.diagnostics.emit('greet', { userId: context.app.userId })
 *   return `hello ${context.app.userId}`
 * }
 * greet(createOperationContext<App>({ app: { userId: 'u1' } }))
 * ```
 */
export interface OperationContext<App = unknown> {
  /** Cancels the run. */
  readonly signal: AbortSignal
  /** The App's own per-run state: identity, stores, quotas. agent-core never reads inside it. */
  readonly app: App
  /** Where this scope's diagnostics go. */
  readonly diagnostics: Diagnostics
  /** Optional call-attempt port shared by the run's model and tool calls. */
  readonly attemptBudget?: AttemptBudget | undefined
  /** The run's clock in epoch milliseconds. Default `Date.now`. */
  readonly now: () => number
}

/**
 * What callers may pass where a context is expected: every field is optional, and `diagnostics` may be a
 * ready {@link Diagnostics} or just a sink.
 * @example
 * ```ts
 * import { createOperationContext, type OperationContextInit } from '@agent-core/core'
 * const init: OperationContextInit<{ userId: string }> = {
 *   app: { userId: 'u1' },
 *   signal: AbortSignal.timeout(5_000),
 *   diagnostics: (event) => console.log(event.kind),
 * }
 * const context = createOperationContext(init)
 * ```
 */
export interface OperationContextInit<App = unknown> {
  readonly signal?: AbortSignal | undefined
  readonly app?: App
  readonly diagnostics?: Diagnostics | DiagnosticSink | undefined
  readonly attemptBudget?: AttemptBudget | undefined
  readonly now?: (() => number) | undefined
}

function isDiagnostics(value: unknown): value is Diagnostics {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Diagnostics).emit === 'function' &&
    typeof (value as Diagnostics).child === 'function' &&
    typeof (value as Diagnostics).span === 'function'
  )
}

/**
 * Builds a complete {@link OperationContext} from a partial one, checking each field's type. A complete
 * context is returned unchanged.
 * @throws {@link InvalidInputError} when a field has the wrong type
 * @example
 * ```ts
 * import { createOperationContext } from '@agent-core/core'
 * const controller = new AbortController()
 * const context = createOperationContext({ app: { userId: 'u1' }, signal: controller.signal })
 * ```
 */
export function createOperationContext<App = undefined>(
  init: OperationContextInit<App> = {},
): OperationContext<App> {
  assertObject(init as unknown, 'context', {
    hint: 'Pass an operation context such as { signal, app, diagnostics }.',
  })
  const { signal, diagnostics, attemptBudget, now } = init
  if (signal !== undefined && !isAbortSignal(signal)) {
    refuseField(
      'input',
      'signal',
      `must be an AbortSignal, but got ${describeValue(signal)}`,
      signal,
      CONTEXT,
    )
  }
  if (now !== undefined && typeof now !== 'function') {
    refuseField(
      'input',
      'now',
      `must be a function returning epoch milliseconds, but got ${describeValue(now)}`,
      now,
      CONTEXT,
    )
  }
  if (
    attemptBudget !== undefined &&
    (typeof attemptBudget !== 'object' || attemptBudget === null || typeof attemptBudget.take !== 'function')
  ) {
    refuseField(
      'input',
      'attemptBudget',
      `must be an AttemptBudget, but got ${describeValue(attemptBudget)}`,
      attemptBudget,
      CONTEXT,
    )
  }
  if (diagnostics !== undefined && typeof diagnostics !== 'function' && !isDiagnostics(diagnostics)) {
    refuseField(
      'input',
      'diagnostics',
      `must be a Diagnostics or a sink function, but got ${describeValue(diagnostics)}`,
      diagnostics,
      CONTEXT,
    )
  }
  if (signal !== undefined && isDiagnostics(diagnostics) && now !== undefined && 'app' in init) {
    return init as OperationContext<App>
  }
  const clock = now ?? Date.now
  return {
    // Each context gets its own never-aborted signal: kits add abort listeners for the run's duration, and a
    // signal shared by every context would collect them from all concurrent runs.
    signal: signal ?? new AbortController().signal,
    app: init.app as App,
    diagnostics: isDiagnostics(diagnostics)
      ? diagnostics
      : createDiagnostics(
          typeof diagnostics === 'function' ? { sink: diagnostics, now: clock } : { now: clock },
        ),
    attemptBudget,
    now: clock,
  }
}

/**
 * A context for a named sub-scope: same signal, app, budget and clock; diagnostics carry `name` appended
 * to the scope path.
 * @example
 * ```ts
 * import { childContext } from '@agent-core/core'
 * import type { OperationContext } from '@agent-core/core'
 * declare const context: OperationContext
 * const loopContext = childContext(context, 'loop')
 * loopContext.diagnostics.scope // [...context.diagnostics.scope, 'loop']
 * ```
 */
export function childContext<App>(context: OperationContext<App>, name: string): OperationContext<App> {
  return { ...context, diagnostics: context.diagnostics.child(name) }
}
