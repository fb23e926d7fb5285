import type { StandardSchemaV1 } from '@agent-core/core'
import { describeValue, type ModelUsage, type OperationContextInit, refuseField } from '@agent-core/core'
import { type GenerateStructuredRequest, runStructured } from './generate-structured.js'
import { compileStructuredOutput, type StructuredAttempt } from './structured-output.js'

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

function checkRoutes(routes: unknown): readonly Route[] {
  if (!Array.isArray(routes) || routes.length === 0) {
    refuseField(
      'input',
      'routes',
      `must be a non-empty array of { name, description }, but got ${describeValue(routes)}`,
      routes,
    )
  }
  const seen = new Set<string>()
  return routes.map((route: unknown, index) => {
    const { name, description } = (typeof route === 'object' && route !== null ? route : {}) as Partial<Route>
    if (typeof name !== 'string' || name.trim() === '') {
      refuseField(
        'input',
        `routes[${index}].name`,
        `must be a non-empty string, but got ${describeValue(name)}`,
        name,
      )
    }
    if (typeof description !== 'string') {
      refuseField(
        'input',
        `routes[${index}].description`,
        `must be a string (when the model should pick "${name}"), but got ${describeValue(description)}`,
        description,
      )
    }
    if (seen.has(name)) {
      refuseField(
        'input',
        `routes[${index}].name`,
        `repeats the route "${name}", which is listed twice; route names must be unique`,
        name,
      )
    }
    seen.add(name)
    return { name, description }
  })
}

/** A Standard Schema for `{ route, reason? }` whose issue names the allowed routes. */
function routeSchema(
  names: readonly string[],
): StandardSchemaV1<unknown, { route: string; reason: string | undefined }> {
  const allowed = names.map((name) => JSON.stringify(name)).join(', ')
  const jsonSchema = {
    type: 'object',
    properties: {
      route: { type: 'string', enum: [...names] },
      reason: { type: 'string', description: 'one short sentence' },
    },
    required: ['route'],
    additionalProperties: false,
  }
  return {
    '~standard': {
      version: 1,
      vendor: 'agent-core',
      jsonSchema: { input: () => jsonSchema, output: () => jsonSchema },
      validate(value) {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          return {
            issues: [{ message: `must be an object { "route": one of ${allowed}, "reason": "..." }` }],
          }
        }
        const { route, reason } = value as { route?: unknown; reason?: unknown }
        if (typeof route !== 'string' || !names.includes(route)) {
          return {
            issues: [
              {
                message: `must be one of ${allowed}, but was ${route === undefined ? 'missing' : JSON.stringify(route)}`,
                path: ['route'],
              },
            ],
          }
        }
        if (reason !== undefined && typeof reason !== 'string') {
          return { issues: [{ message: 'must be a string', path: ['reason'] }] }
        }
        return { value: { route, reason: reason as string | undefined } }
      },
    },
  }
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
  if (typeof request !== 'object' || request === null) {
    refuseField(
      'input',
      'request',
      `must be a request { model, routes, prompt | messages }, but got ${describeValue(request)}`,
      request,
      { prefix: 'chooseRoute: ' },
    )
  }
  const routes = checkRoutes(request.routes)
  const names = routes.map((route) => route.name)
  const output = compileStructuredOutput(
    {
      schema: routeSchema(names),
      name: request.name ?? 'route',
      description: `the route to take. Pick exactly one:\n${routes.map((route) => `- ${route.name}: ${route.description}`).join('\n')}`,
      maxCorrections: request.maxCorrections,
    },
    (text) => {
      const bare = text
        .trim()
        .replace(/^(["'`])(.*)\1$/s, '$2')
        .trim()
      return names.includes(bare) ? { value: { route: bare } } : undefined
    },
  )
  const result = await runStructured(
    output,
    request as ChooseRouteRequest<Name, unknown>,
    context as OperationContextInit<unknown>,
  )
  return Object.freeze({
    route: result.value.route as Name,
    reason: result.value.reason,
    attempts: result.attempts,
    refused: result.refused,
    usage: result.usage,
  })
}
