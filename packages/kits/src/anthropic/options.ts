import { describeValue, FieldReader, type ModelRequest, refuseField } from '@agent-core/core'
import Anthropic, { type ClientOptions } from '@anthropic-ai/sdk'
import { jsonSnapshot, RESERVED_BODY_KEYS } from './internal/request.js'

/**
 * Where a cache breakpoint goes: after the tools, after the system prompt, or after a message (its index in
 * `request.messages`; a system message's index marks that part of the system prompt).
 * @example
 * ```ts
 * import type { AnthropicCacheBreakpoint } from '@agent-core/kits/anthropic'
 * const breakpoints: AnthropicCacheBreakpoint[] = ['tools', 'system', { message: 3 }]
 * ```
 */
export type AnthropicCacheBreakpoint = 'tools' | 'system' | { readonly message: number }

/**
 * Prompt caching settings: how long cached prefixes live (`ttl`) and, to place breakpoints yourself, a
 * `breakpoints` function that names at most four per request. Without `breakpoints` they are placed
 * automatically: after the tools, after the system prompt, on the last message, and where the previous
 * request of the conversation ended (the message before the last assistant turn), so each turn reads the
 * prefix the one before wrote.
 * @example
 * ```ts
 * import type { AnthropicPromptCache } from '@agent-core/kits/anthropic'
 * // Cache only the system prompt, for an hour.
 * const cache: AnthropicPromptCache = { ttl: '1h', breakpoints: () => ['system'] }
 * ```
 */
export interface AnthropicPromptCache {
  /** How long a cached prefix lives: `5m` (the API's default) or `1h`. */
  readonly ttl?: '5m' | '1h' | undefined
  /** Places the breakpoints of each request yourself (at most four). Default: placed automatically. */
  readonly breakpoints?: ((request: ModelRequest) => readonly AnthropicCacheBreakpoint[]) | undefined
}

/**
 * How {@link createAnthropicChatModel} (and {@link anthropicChatBinding}) reach the Messages API. Give a
 * ready `client`, or the options to build one (`apiKey`, `baseURL`, `clientOptions`); the client built here
 * has `maxRetries: 0`, and every request sets `maxRetries: 0` again, so retries happen only through the
 * models kit's `withRetry` and the attempt budget. Unknown fields are refused.
 *
 * @example
 * ```ts
 * import type { AnthropicChatModelOptions } from '@agent-core/kits/anthropic'
 * const options: AnthropicChatModelOptions = {
 *   model: 'claude-sonnet-4-6',
 *   apiKey: 'sk-ant-test',
 *   maxTokens: 8192,
 *   thinking: { budgetTokens: 2048 },
 * }
 * ```
 */
export interface AnthropicChatModelOptions {
  /** The model name sent to the API, e.g. `claude-sonnet-4-6`; also the model's `identity`. */
  readonly model: string
  /**
   * A ready client (`new Anthropic({ ... })`). It is used as it is, except that each request it sends for
   * this model sets `maxRetries: 0`. Leave out to build one from the fields below.
   */
  readonly client?: Anthropic | undefined
  /** The API key. Default: the client's own default (`ANTHROPIC_API_KEY`). */
  readonly apiKey?: string | undefined
  /** The server, without `/v1`, e.g. `http://127.0.0.1:8787`. Default: the client's own (`ANTHROPIC_BASE_URL`). */
  readonly baseURL?: string | undefined
  /**
   * Further options of the client built here (`timeout`, `defaultHeaders`, `fetch`, `logLevel`, ...).
   * `maxRetries` is not accepted: retries belong to `withRetry`.
   */
  readonly clientOptions?: Omit<ClientOptions, 'maxRetries' | 'apiKey' | 'baseURL'> | undefined
  /** Who serves the model, for errors and diagnostics. Default `anthropic`. */
  readonly provider?: string | undefined
  /**
   * `max_tokens` of a request that sets no `maxOutputTokens` (the Messages API requires one). Default 4096.
   */
  readonly maxTokens?: number | undefined
  /**
   * Extended thinking: `{ budgetTokens }` (at least 1024, below the request's `max_tokens`) or `'adaptive'`.
   * Default: off. The thinking blocks come back signed and are sent back on the next turn.
   */
  readonly thinking?: { readonly budgetTokens: number } | 'adaptive' | undefined
  /**
   * Prompt caching. Default on, with breakpoints placed automatically (see {@link AnthropicPromptCache});
   * `false` sends no `cache_control` at all.
   */
  readonly promptCache?: boolean | AnthropicPromptCache | undefined
  /**
   * Fields added to every request body, for parameters the `ModelRequest` does not carry (`top_k`,
   * `metadata`, `service_tier`, ...). Fields the adapter sets (`model`, `messages`, `system`, `tools`,
   * `max_tokens`, `thinking`, ...) are refused here.
   */
  readonly body?: Readonly<Record<string, unknown>> | undefined
}

/** The prompt caching settings after checking: `undefined` when off. */
export interface ResolvedCache {
  readonly ttl: '5m' | '1h' | undefined
  readonly breakpoints: ((request: ModelRequest) => readonly AnthropicCacheBreakpoint[]) | undefined
}

/** The options after checking, with the client ready. */
export interface ResolvedOptions {
  readonly model: string
  readonly client: Anthropic
  readonly provider: string
  readonly maxTokens: number
  readonly thinking: Readonly<Record<string, unknown>> | undefined
  readonly cache: ResolvedCache | undefined
  readonly body: Readonly<Record<string, unknown>> | undefined
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

function checkClient(client: unknown): Anthropic {
  const create = (client as { messages?: { create?: unknown } } | null | undefined)?.messages?.create
  if (typeof client !== 'object' || client === null || typeof create !== 'function') {
    refuseField(
      'input',
      'options.client',
      `must be an Anthropic client (new Anthropic({ ... })) with messages.create, but got ${describeValue(client)}`,
      client,
    )
  }
  return client as Anthropic
}

function buildClient(
  apiKey: string | undefined,
  baseURL: string | undefined,
  clientOptions: unknown,
): Anthropic {
  if (clientOptions !== undefined && !isPlainObject(clientOptions)) {
    refuseField(
      'input',
      'options.clientOptions',
      `must be a plain object of Anthropic client options or left out, but got ${describeValue(clientOptions)}`,
      clientOptions,
    )
  }
  const extra: Record<string, unknown> = clientOptions === undefined ? {} : { ...clientOptions }
  for (const key of ['maxRetries', 'apiKey', 'baseURL'] as const) {
    if (extra[key] === undefined) continue
    refuseField(
      'input',
      `options.clientOptions.${key}`,
      key === 'maxRetries'
        ? 'is not accepted: the adapter sends every request once, and retries go through withRetry from @agent-core/kits/models (metered by the attempt budget)'
        : `is not accepted: pass ${key} as the option ${key}, not inside clientOptions`,
      extra[key],
    )
  }
  try {
    return new Anthropic({
      ...(extra as ClientOptions),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(baseURL === undefined ? {} : { baseURL }),
      maxRetries: 0,
    })
  } catch (error) {
    const reason = error instanceof Error ? error.message : describeValue(error)
    refuseField(
      'input',
      'options.clientOptions',
      `(with apiKey and baseURL) could not build the Anthropic client: ${reason} Pass apiKey, set ANTHROPIC_API_KEY, or pass a ready client`,
      clientOptions,
      { cause: error },
    )
  }
}

function readThinking(fields: FieldReader): Readonly<Record<string, unknown>> | undefined {
  const thinking = fields.get('thinking')
  if (thinking === undefined) return undefined
  if (thinking === 'adaptive') return Object.freeze({ type: 'adaptive' })
  const inner: FieldReader = new FieldReader(
    thinking,
    fields.path('thinking'),
    "{ budgetTokens } or 'adaptive'",
    'input',
  )
  const budget = inner.integer('budgetTokens', 1024)
  if (budget === undefined)
    inner.fail('budgetTokens', 'must be given: the thinking budget in tokens, at least 1024', budget)
  inner.done()
  return Object.freeze({ type: 'enabled', budget_tokens: budget })
}

function readCache(fields: FieldReader): ResolvedCache | undefined {
  const cache = fields.get('promptCache')
  if (cache === undefined || cache === true) return { ttl: undefined, breakpoints: undefined }
  if (cache === false) return undefined
  const inner: FieldReader = new FieldReader(
    cache,
    fields.path('promptCache'),
    'a boolean or { ttl?, breakpoints? }',
    'input',
  )
  const ttl = inner.get('ttl')
  if (ttl !== undefined && ttl !== '5m' && ttl !== '1h')
    inner.fail('ttl', `must be '5m' or '1h' or be left out, but got ${describeValue(ttl)}`, ttl)
  const breakpoints = inner.func<ResolvedCache['breakpoints']>('breakpoints')
  inner.done()
  return { ttl: ttl as ResolvedCache['ttl'], breakpoints }
}

function readBody(fields: FieldReader): Readonly<Record<string, unknown>> | undefined {
  const body = fields.get('body')
  if (body === undefined) return undefined
  if (!isPlainObject(body))
    fields.fail(
      'body',
      `must be a plain object of extra request fields or be left out, but got ${describeValue(body)}`,
      body,
    )
  const copy: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(body)) {
    if (RESERVED_BODY_KEYS.has(field)) {
      fields.fail(
        `body.${field}`,
        'is set by the adapter from each ModelRequest or from its own options (maxTokens, thinking, promptCache), so it cannot be a fixed extra field',
        value,
      )
    }
    if (value !== undefined) copy[field] = jsonSnapshot(value, `options.body.${field}`)
  }
  return Object.freeze(copy)
}

/** Checks the options (unknown fields refused) and builds the client when none is given. */
export function resolveOptions(options: unknown): ResolvedOptions {
  const fields: FieldReader = new FieldReader(
    options,
    'options',
    'the Anthropic chat model options { model, client | apiKey, baseURL, ... }',
    'input',
  )
  const model = fields.string('model')
  if (model === undefined)
    fields.fail('model', 'must be the non-empty model name to send, e.g. "claude-sonnet-4-6"', model)
  const client = fields.get('client')
  const apiKey = fields.string('apiKey')
  const baseURL = fields.string('baseURL')
  if (baseURL !== undefined && !URL.canParse(baseURL))
    fields.fail(
      'baseURL',
      `must be an absolute URL such as "http://127.0.0.1:8787", but got ${describeValue(baseURL)}`,
      baseURL,
    )
  const clientOptions = fields.get('clientOptions')
  const provider = fields.string('provider') ?? 'anthropic'
  const maxTokens = fields.integer('maxTokens', 1) ?? 4096
  const thinking = readThinking(fields)
  const cache = readCache(fields)
  const body = readBody(fields)
  fields.done()
  if (thinking?.type === 'enabled' && (thinking.budget_tokens as number) >= maxTokens) {
    fields.fail(
      'thinking.budgetTokens',
      `(${thinking.budget_tokens}) must be below options.maxTokens (${maxTokens}): the thinking budget is part of the output. Raise maxTokens or lower the budget`,
      thinking.budget_tokens,
    )
  }
  let ready: Anthropic
  if (client !== undefined) {
    const conflicting = (
      [
        ['apiKey', apiKey],
        ['baseURL', baseURL],
        ['clientOptions', clientOptions],
      ] as const
    ).find(([, value]) => value !== undefined)
    if (conflicting !== undefined) {
      refuseField(
        'input',
        `options.${conflicting[0]}`,
        `must be left out when a ready client is given (pass either a ready client or options.${conflicting[0]} to build one, not both): the client already has its own settings`,
        conflicting[1],
      )
    }
    ready = checkClient(client)
  } else {
    ready = buildClient(apiKey, baseURL, clientOptions)
  }
  return { model, client: ready, provider, maxTokens, thinking, cache, body }
}
