import { describeValue, type OperationContext, refuseField } from '@agent-core/core'
import type { ModelTool } from '@agent-core/core/tools'
import type {
  ToolCallOutcome,
  ToolCallView,
  ToolTemplateAnswer,
  ToolTemplateInput,
} from './tool-call-outcome.js'
import type { ApproveDecision } from './tool-decision.js'

/**
 * A resumed call as the `resume` hook sees it: the call plus the approval it carries.
 * @example
 * ```ts
 * import type { ResumedToolCallView } from '@agent-core/kits/tools'
 * const approvedByPerson = (call: ResumedToolCallView) => call.decision.by === 'person'
 * ```
 */
export interface ResumedToolCallView<Input = unknown> extends ToolCallView<Input> {
  readonly decision: ApproveDecision
}

/**
 * What `authorize` returns to make a call wait for a decision (instead of throwing an
 * {@link ApprovalRequiredError}; both mean the same).
 * @example
 * ```ts
 * import type { ToolApprovalWait } from '@agent-core/kits/tools'
 * const wait: ToolApprovalWait = { waitingFor: 'approval', reason: 'Refunds above 100 need a manager.' }
 * ```
 */
export interface ToolApprovalWait {
  /** The call waits for a decision. */
  readonly waitingFor: 'approval'
  /** Why, in words for the person who decides. */
  readonly reason: string
}

/**
 * What `awaitHost` returns: the host (or a person) supplies this call's result instead of the tool's
 * `execute`; the call waits for it as a pending call (`external` or `answer`) until it is resumed with
 * the result ({@link ToolRunOptions.result}).
 * @example
 * ```ts
 * import type { ToolHostWait } from '@agent-core/kits/tools'
 * const wait: ToolHostWait = { waitingFor: 'answer', reason: 'Asks the user.', question: 'Which city?' }
 * ```
 */
export interface ToolHostWait {
  /** `external`: the host runs the tool; `answer`: a person answers. */
  readonly waitingFor: 'external' | 'answer'
  /** Why the call waits, in words for whoever supplies the result. */
  readonly reason: string
  /** The question a person is asked (`answer`). */
  readonly question?: string | undefined
}

/**
 * What the `complete` hook sees: the call and the tool's output.
 * @example
 * ```ts
 * import type { ToolCompletion } from '@agent-core/kits/tools'
 * const log = (completion: ToolCompletion<{ q: string }, string[]>) => completion.output.length
 * ```
 */
export interface ToolCompletion<Input = unknown, Output = unknown> {
  readonly call: ToolCallView<Input>
  readonly output: Output
}

/**
 * One tool's lifecycle block: the core tool that executes, and the hooks around it. Every hook is
 * optional and synchronous (a returned Promise is refused with `RejectedThenableError`), and every hook
 * except `template`, `authorize` (which may return a wait) and `awaitHost` must return nothing. Hooks are called on `receiver` (default: this block), so class
 * instances with private state work unchanged.
 *
 * For one call, in this order: `inspect` of **every** registered lifecycle (the global check), then, for
 * the selected tool only, `authorize` (fresh calls) or `resume` (calls resumed with an approval), the
 * save-before-run stage (when the caller asked for it), the execution through core's `invokeModelTool`
 * (or the host's result, for a tool with `awaitHost`), `complete`, `template`; finally `finalize` of **every**
 * registered lifecycle.
 *
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { ApprovalRequiredError, type ToolLifecycle } from '@agent-core/kits/tools'
 * const refundTool = defineModelTool<{ amount: number }, string>({
 *   id: 'refund',
 *   description: 'Refunds an order',
 *   inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
 *   execute: ({ amount }) => `refunded ${amount}`,
 * })
 * const refund: ToolLifecycle<{ amount: number }, string> = {
 *   id: 'refund',
 *   tool: refundTool,
 *   authorize(call) {
 *     if (call.input.amount > 100) throw new ApprovalRequiredError('Refunds above 100 need a manager.')
 *   },
 * }
 * ```
 */
export interface ToolLifecycle<Input = unknown, Output = unknown, App = unknown> {
  /** The tool's id; must equal `tool.id`. A call selects its lifecycle by this id. */
  readonly id: string
  /** The core tool that runs the call (its input schema is the call's protocol). */
  readonly tool: ModelTool<Input, Output, App>
  /** The `this` of every hook below; default: the lifecycle block itself. */
  readonly receiver?: object | undefined
  /** A time limit for the execution of this tool, in ms (overrides the registry's `timeoutMs`). */
  readonly timeoutMs?: number | undefined
  /**
   * The global check: runs for **every** call that reaches the hooks, whatever tool it selects (compare
   * `call.toolId` to act on some tools only). Return nothing to let the call through; throw a
   * {@link ToolRejectedError} (or core's `UnauthorizedError`) to refuse it.
   */
  inspect?(call: ToolCallView, context: OperationContext<App>): void
  /**
   * Authorization of a fresh call of this tool. Return nothing to approve; return a
   * {@link ToolApprovalWait} (or throw an {@link ApprovalRequiredError}) to make the call wait for a
   * person, throw a {@link ToolRejectedError} (or `UnauthorizedError`) to refuse it. Not run when a pending
   * call is resumed: the decision answers then.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: hooks written before waits were values return void
  authorize?(call: ToolCallView<Input>, context: OperationContext<App>): ToolApprovalWait | undefined | void
  /**
   * Marks a tool the host runs (or a person answers): at the execution, instead of the tool's `execute`,
   * the call waits for the result the host supplies, as a pending call whose `waitingFor` is the returned
   * wait's. Resumed with an approval and `options.result`, the result is checked against the tool's
   * `outputSchema` and goes on through `complete`, the templates and `finalize` like an execution.
   */
  awaitHost?(call: ToolCallView<Input>, context: OperationContext<App>): ToolHostWait
  /**
   * Runs when a pending call of this tool is resumed with an approval, before it executes: re-check what
   * may have changed while it waited (who approved, whether the approval is still valid). Throw a
   * {@link ToolRejectedError} to refuse it after all.
   */
  resume?(call: ResumedToolCallView<Input>, context: OperationContext<App>): void
  /** Runs after this tool executed successfully. Throw to turn the call into a failure. */
  complete?(completion: ToolCompletion<Input, Output>, context: OperationContext<App>): void
  /**
   * Runs for **every** call that reached the hooks, once it settled or became pending, whatever tool it
   * selected and however it ended. A throw does not change the outcome; it is listed in
   * `outcome.finalizeErrors`, and later `finalize` hooks still run.
   */
  finalize?(outcome: ToolCallOutcome, context: OperationContext<App>): void
  /**
   * This tool's template provider: renders what the model reads about a settled call of this tool, or
   * answers a falsy value to leave it to the registry's providers and then the default text.
   */
  template?(input: ToolTemplateInput, context: OperationContext<App>): ToolTemplateAnswer
}

/**
 * The hooks of a lifecycle block, as given to {@link defineToolLifecycle} (a plain object or a class
 * instance; its methods are called on it, or on its `receiver`).
 * @example
 * ```ts
 * import type { ToolLifecycleHooks } from '@agent-core/kits/tools'
 * const hooks: ToolLifecycleHooks<{ path: string }> = { timeoutMs: 5_000, authorize: (call) => void call.input.path }
 * ```
 */
export type ToolLifecycleHooks<Input = unknown, Output = unknown, App = unknown> = Omit<
  ToolLifecycle<Input, Output, App>,
  'id' | 'tool'
>

const HOOKS = ['inspect', 'authorize', 'awaitHost', 'resume', 'complete', 'finalize', 'template'] as const

/**
 * Builds a {@link ToolLifecycle} for a core tool: `id` is the tool's, the hooks are read from `hooks`
 * (methods of a class instance included) and called on `hooks.receiver`, or on `hooks` itself.
 * @throws `InvalidDefinitionError` when `tool` has no string id or `hooks` is not an object
 * @example
 * ```ts
 * import { defineToolLifecycle, ToolRejectedError } from '@agent-core/kits/tools'
 * import type { ModelTool } from '@agent-core/core/tools'
 * declare const searchTool: ModelTool
 * class ReadOnlySwitch {
 *   #on = false
 *   turnOn() { this.#on = true }
 *   inspect(call: { toolId: string }) {
 *     if (this.#on && call.toolId !== 'search') throw new ToolRejectedError('Read-only mode: only search runs.')
 *   }
 * }
 * const lifecycle = defineToolLifecycle(searchTool, new ReadOnlySwitch())
 * ```
 */
export function defineToolLifecycle<Input, Output, App>(
  tool: ModelTool<Input, Output, App>,
  hooks: ToolLifecycleHooks<Input, Output, App> = {},
): ToolLifecycle<Input, Output, App> {
  if (typeof tool !== 'object' || tool === null || typeof (tool as { id?: unknown }).id !== 'string') {
    refuseField(
      'definition',
      'tool',
      `must be a core ModelTool (defineModelTool) with a string id, but got ${describeValue(tool)}`,
      tool,
      { prefix: 'defineToolLifecycle: ' },
    )
  }
  if (typeof hooks !== 'object' || hooks === null) {
    refuseField(
      'definition',
      'hooks',
      `must be an object (or a class instance), but got ${describeValue(hooks)}`,
      hooks,
      {
        prefix: `Tool "${tool.id}": `,
      },
    )
  }
  const block: Record<string, unknown> = {
    id: tool.id,
    tool,
    receiver: hooks.receiver ?? hooks,
  }
  if (hooks.timeoutMs !== undefined) block.timeoutMs = hooks.timeoutMs
  for (const hook of HOOKS) {
    const value = (hooks as Record<string, unknown>)[hook]
    if (value !== undefined) block[hook] = value
  }
  return Object.freeze(block) as unknown as ToolLifecycle<Input, Output, App>
}

export { HOOKS as LIFECYCLE_HOOKS }
