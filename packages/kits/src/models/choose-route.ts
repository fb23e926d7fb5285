import type { ModelUsage, OperationContextInit } from '@agent-core/core'
import type { GenerateStructuredRequest } from './generate-structured.js'
import { loadedStructuredCalls, loadStructuredCalls } from './internal/structured-calls.js'
import type { StructuredAttempt } from './structured-output.js'

/**
 * One route the model may pick: its name (what the result carries) and when to pick it.
 * @example
 * ```ts
 * import type { Route } from '@agent-core/kits/models'
 * const billing: Route<'billing'> = { name: 'billing', description: 'invoices, refunds, payments' }
 * ```
 */
export interface Route<Name extends string = string> {
  readonly name: Name
  readonly description: string
}

/**
 * What {@link chooseRoute} takes: the routes and the conversation, plus the model options of
 * {@link generateStructured} (no schema: the routes are the schema).
 * @example
 * ```ts
 * import type { ChooseRouteRequest } from '@agent-core/kits/models'
 * const request: ChooseRouteRequest<'tech' | 'sales'> = {
 *   model: async () => '{"route": "tech", "reason": "a crash report"}',
 *   routes: [
 *     { name: 'tech', description: 'bugs and how-to' },
 *     { name: 'sales', description: 'pricing and plans' },
 *   ],
 *   prompt: 'The app crashes when I upload a file.',
 * }
 * ```
 */
export interface ChooseRouteRequest<Name extends string, App = unknown>
  extends Omit<GenerateStructuredRequest<unknown, App>, 'schema' | 'output' | 'jsonSchema' | 'description'> {
  /** At least one route; names unique and non-empty. */
  readonly routes: readonly Route<Name>[]
}

/**
 * The route the model picked, with its short reason when it gave one.
 * @example
 * ```ts
 * import type { RouteChoice } from '@agent-core/kits/models'
 * function log(choice: RouteChoice<'billing' | 'tech'>) {
 *   console.log(`${choice.route}: ${choice.reason ?? 'no reason given'}`)
 * }
 * ```
 */
export interface RouteChoice<Name extends string> {
  readonly route: Name
  readonly reason: string | undefined
  /** Replies asked for, the accepted one included. */
  readonly attempts: number
  /** Replies that were refused (a route outside the set, unreadable JSON), oldest first. */
  readonly refused: readonly StructuredAttempt[]
  readonly usage: ModelUsage | undefined
}

/**
 * Lets a model pick one of N named routes (a dispatcher, a triage step, a classifier) and returns the
 * name typed as the union of the routes' names. A pick outside the set, or a reply that cannot be read,
 * is corrected like any structured output (the feedback lists the allowed names), up to
 * `maxCorrections` times (default 1), then a `StructuredOutputError` is thrown. A reply that is just a
 * route's name (quoted or not) is accepted as that route.
 *
 * @throws `InvalidInputError` for empty, unnamed or repeated routes and the errors of {@link generateStructured}
 * @example
 * ```ts
 * import { chooseRoute } from '@agent-core/kits/models'
 * const { route } = await chooseRoute({
 *   model: async () => '{"route": "billing", "reason": "asks for a refund"}',
 *   routes: [
 *     { name: 'billing', description: 'invoices, refunds, payment' },
 *     { name: 'tech', description: 'bugs, errors, how-to' },
 *   ],
 *   prompt: 'I was charged twice, please refund one payment.',
 * })
 * // route: 'billing' (typed 'billing' | 'tech')
 * ```
 */
export async function chooseRoute<const Name extends string, App = unknown>(
  request: ChooseRouteRequest<Name, App>,
  context: OperationContextInit<App> = {},
): Promise<RouteChoice<Name>> {
  // the code is loaded by the first call (internal/structured-calls.ts); its errors reject as they did
  const calls = loadedStructuredCalls() ?? (await loadStructuredCalls())
  return calls.chooseRoute(request, context)
}
