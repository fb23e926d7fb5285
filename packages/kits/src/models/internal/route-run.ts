/**
 * The code of {@link chooseRoute}: the route checks and the route schema, over `runStructured`. Loaded
 * with structured-run.ts by the first call (structured-calls.ts); see there.
 */
import type { StandardSchemaV1 } from '@agent-core/core'
import { describeValue, type OperationContextInit, refuseField } from '@agent-core/core'
import type { ChooseRouteRequest, Route, RouteChoice } from '../choose-route.js'
import { compileStructuredOutput } from './structured-host.js'
import { runStructured } from './structured-run.js'

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

/** {@link chooseRoute}'s work, once its code is loaded. */
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
