import { describeValue, refuseField } from '@agent-core/core'
import type { ModelTool } from '@agent-core/core/tools'

/**
 * How a task for this goal relates to scopes: `required` (the task must name a scope that lists the goal),
 * `optional` (it may), or `none` (the goal is global: naming a scope is refused, and no scope may list it).
 * @example
 * ```ts
 * import type { ScopePolicy } from '@agent-core/kits/domains'
 * const policy: ScopePolicy = 'required'
 * ```
 */
export type ScopePolicy = 'required' | 'optional' | 'none'

/**
 * Which scopes' data a task for this goal may reference, besides the scope that governs it: `none`, the
 * governing scope's `queryScopeIds` (`query-scopes`), or every other registered scope (`all-scopes`). The
 * governing scope itself is never a reference.
 * @example
 * ```ts
 * import type { TargetPolicy } from '@agent-core/kits/domains'
 * const policy: TargetPolicy = 'query-scopes'
 * ```
 */
export type TargetPolicy = 'none' | 'query-scopes' | 'all-scopes'

/**
 * What makes a tool an intent (a goal a task can pursue).
 * @example
 * ```ts
 * import type { IntentDeclaration } from '@agent-core/kits/domains'
 * const asIntent: IntentDeclaration<{ maxTurns: number }> = {
 *   scopePolicy: 'required',
 *   targetPolicy: 'query-scopes',
 *   delegates: ['lookup_order'],
 *   constraints: { maxTurns: 6 },
 * }
 * ```
 */
export interface IntentDeclaration<Constraints = unknown> {
  readonly scopePolicy: ScopePolicy
  readonly targetPolicy: TargetPolicy
  /**
   * The tools a task for this goal may call besides the goal itself: an allowed set (an array or a Set;
   * order carries no meaning). When given it replaces the delegates the catalog derives from the scopes;
   * when absent the catalog derives them.
   */
  readonly delegates?: readonly string[] | ReadonlySet<string> | undefined
  /** The App's constraints for tasks of this goal (turn caps, budgets, ...), kept as given and projected onto each task. */
  readonly constraints?: Constraints | undefined
}

/**
 * A core tool that is also an intent: the intent has no id or entity of its own; it is the tool, with an
 * `asIntent` block.
 * @example
 * ```ts
 * import type { IntentTool } from '@agent-core/kits/domains'
 * declare const refund: IntentTool<{ orderId: string }, string>
 * refund.asIntent.scopePolicy // 'required' | 'optional' | 'none'
 * ```
 */
export interface IntentTool<Input = unknown, Output = unknown, App = unknown, Constraints = unknown>
  extends ModelTool<Input, Output, App> {
  readonly asIntent: IntentDeclaration<Constraints>
}

/**
 * Derives an {@link IntentTool} from a core tool: a new tool with the same id, description and schemas,
 * whose `execute` calls the original tool's (on the original, so class instances keep their state), plus
 * the `asIntent` block. The original tool is left unchanged.
 * @throws `InvalidDefinitionError` when `tool` is not an object or `asIntent` is missing
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { defineIntentTool } from '@agent-core/kits/domains'
 * const refundTool = defineModelTool<{ orderId: string }, string>({
 *   id: 'refund_order',
 *   description: 'Refunds an order',
 *   inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
 *   execute: ({ orderId }) => `refunded ${orderId}`,
 * })
 * const refund = defineIntentTool(refundTool, { scopePolicy: 'required', targetPolicy: 'none' })
 * ```
 */
export function defineIntentTool<Input, Output, App, Constraints = undefined>(
  tool: ModelTool<Input, Output, App>,
  asIntent: IntentDeclaration<Constraints>,
): IntentTool<Input, Output, App, Constraints> {
  if (typeof tool !== 'object' || tool === null) {
    refuseField('definition', 'tool', `must be a core ModelTool, but got ${describeValue(tool)}`, tool, {
      prefix: 'defineIntentTool: ',
    })
  }
  if (typeof asIntent !== 'object' || asIntent === null) {
    refuseField(
      'definition',
      'asIntent',
      `must be an object { scopePolicy, targetPolicy, delegates?, constraints? }, but got ${describeValue(asIntent)}`,
      asIntent,
      {
        prefix: `Tool "${String(tool.id)}": `,
        details: { id: typeof tool.id === 'string' ? tool.id : undefined },
      },
    )
  }
  const { id, description, inputSchema, outputSchema } = tool
  return {
    id,
    description,
    inputSchema,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    execute: (input, context) => tool.execute(input, context),
    asIntent,
  }
}
