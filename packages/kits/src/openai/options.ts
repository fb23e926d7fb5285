import { describeValue, FieldReader, refuseField } from '@agent-core/core'
import OpenAI, { type ClientOptions } from 'openai'
import { jsonSnapshot, RESERVED_BODY_KEYS } from './internal/request.js'

/**
 * How {@link createOpenAIChatModel} (and {@link openAIChatBinding}) reach the server. Give a ready
 * `client`, or the options to build one (`apiKey`, `baseURL`, `clientOptions`); the client built here has
 * `maxRetries: 0`, and every request sets `maxRetries: 0` again, so retries happen only through the models
 * kit's `withRetry` and the attempt budget.
 *
 * @example
 * ```ts
 * import type { OpenAIChatModelOptions } from '@agent-core/kits/openai'
 * const options: OpenAIChatModelOptions = {
 *   model: 'llama-3.1-8b-instruct',
 *   baseURL: 'http://127.0.0.1:8000/v1',
 *   apiKey: 'unused',
 *   provider: 'vllm',
 * }
 * ```
 */
export interface OpenAIChatModelOptions {
  /** The model name sent to the server, e.g. `gpt-4o-mini`; also the model's `identity`. */
  readonly model: string
  /**
   * A ready client (`new OpenAI({ ... })`, an `AzureOpenAI`, ...). It is used as it is, except that each
   * request it sends for this model sets `maxRetries: 0`. Leave out to build one from the fields below.
   */
  readonly client?: OpenAI | undefined
  /** The API key. Default: the client's own default (`OPENAI_API_KEY`). */
  readonly apiKey?: string | undefined
  /** Any OpenAI-compatible base URL, e.g. `http://127.0.0.1:8000/v1`. Default: the client's own default. */
  readonly baseURL?: string | undefined
  /**
   * Further options of the client built here (`timeout`, `defaultHeaders`, `fetch`, `logLevel`, ...).
   * `maxRetries` is not accepted: retries belong to `withRetry`.
   */
  readonly clientOptions?: Omit<ClientOptions, 'maxRetries' | 'apiKey' | 'baseURL'> | undefined
  /** Who serves the model, for errors and diagnostics: `openai`, `vllm`, `ollama`, ... Default `openai`. */
  readonly provider?: string | undefined
  /**
   * Fields added to every request body, for parameters the `ModelRequest` does not carry
   * (`reasoning_effort`, `top_p`, `user`, a server's own extensions). Fields the adapter sets from the
   * request (`model`, `messages`, `tools`, `temperature`, ...) are refused here.
   */
  readonly body?: Readonly<Record<string, unknown>> | undefined
  /**
   * Ask for token usage at the end of a stream (`stream_options: { include_usage: true }`). Default true;
   * turn it off for a server that refuses `stream_options` (its streams then report zero usage).
   */
  readonly streamUsage?: boolean | undefined
  /**
   * Which body field carries `maxOutputTokens`: `max_completion_tokens` (default, what OpenAI expects) or
   * `max_tokens` (for servers that only know the older name).
   */
  readonly maxTokensParameter?: 'max_completion_tokens' | 'max_tokens' | undefined
}

/** The options after checking, with the client ready. */
export interface ResolvedOptions {
  readonly model: string
  readonly client: OpenAI
  readonly provider: string
  readonly body: Readonly<Record<string, unknown>> | undefined
  readonly streamUsage: boolean
  readonly maxTokensParameter: 'max_completion_tokens' | 'max_tokens'
}

function optionalString(fields: FieldReader, key: string): string | undefined {
  const value = fields.get(key)
  if (value !== undefined && (typeof value !== 'string' || value.length === 0))
    fields.mustBe(key, 'a non-empty string or left out', value)
  return value
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

function checkClient(fields: FieldReader, client: unknown): OpenAI {
  const create = (client as { chat?: { completions?: { create?: unknown } } } | null | undefined)?.chat
    ?.completions?.create
  if (typeof client !== 'object' || client === null || typeof create !== 'function')
    fields.mustBe('client', 'an OpenAI client (new OpenAI({ ... })) with chat.completions.create', client)
  return client as OpenAI
}

function buildClient(
  fields: FieldReader,
  apiKey: string | undefined,
  baseURL: string | undefined,
  clientOptions: unknown,
): OpenAI {
  if (clientOptions !== undefined && !isPlainObject(clientOptions))
    fields.mustBe('clientOptions', 'a plain object of OpenAI client options or left out', clientOptions)
  const extra: Record<string, unknown> = clientOptions === undefined ? {} : { ...clientOptions }
  for (const key of ['maxRetries', 'apiKey', 'baseURL'] as const) {
    if (extra[key] === undefined) continue
    fields.fail(
      `clientOptions.${key}`,
      key === 'maxRetries'
        ? 'is not accepted: the adapter sends every request once, and retries go through withRetry from @agent-core/kits/models (metered by the attempt budget)'
        : `is not accepted: pass ${key} as the option ${key}, not inside clientOptions`,
      extra[key],
    )
  }
  try {
    return new OpenAI({
      ...(extra as ClientOptions),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(baseURL === undefined ? {} : { baseURL }),
      maxRetries: 0,
    })
  } catch (error) {
    const reason = error instanceof Error ? error.message : describeValue(error)
    refuseField(
      'input',
      'clientOptions',
      `(with apiKey and baseURL) could not build the OpenAI client: ${reason} Pass apiKey (any string for a local server that needs none), set OPENAI_API_KEY, or pass a ready client`,
      clientOptions,
      { cause: error },
    )
  }
}

/** Checks the options and builds the client when none is given. */
const KNOWN_OPTIONS = [
  'model',
  'client',
  'apiKey',
  'baseURL',
  'clientOptions',
  'provider',
  'body',
  'streamUsage',
  'maxTokensParameter',
] as const

/**
 * Refuses a field the adapter does not know (a misspelt `baseUrl` would otherwise send every request to
 * the default endpoint), naming the option it most likely meant.
 */
function refuseUnknownOptions(fields: FieldReader, options: object): void {
  for (const field of Object.keys(options)) {
    if ((KNOWN_OPTIONS as readonly string[]).includes(field)) continue
    const meant = KNOWN_OPTIONS.find((known) => known.toLowerCase() === field.toLowerCase())
    fields.fail(
      field,
      `is not an option of the OpenAI chat model${meant ? `; did you mean ${meant}?` : '.'} Known options: ${KNOWN_OPTIONS.join(', ')}. Pass other OpenAI client settings in clientOptions, extra request fields in body`,
      (options as Record<string, unknown>)[field],
    )
  }
}

export function resolveOptions(options: unknown): ResolvedOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    refuseField(
      'input',
      'options',
      `must be { model, client | apiKey, baseURL, ... }, but got ${describeValue(options)}`,
      options,
      { prefix: 'The OpenAI chat model: ' },
    )
  }
  const fields: FieldReader = new FieldReader(options, '', 'OpenAI chat model options')
  refuseUnknownOptions(fields, options)
  const model = fields.get('model')
  if (typeof model !== 'string' || model.length === 0)
    fields.mustBe('model', 'the non-empty model name to send, e.g. "gpt-4o-mini"', model)
  const key = optionalString(fields, 'apiKey')
  const url = optionalString(fields, 'baseURL')
  if (url !== undefined && !URL.canParse(url))
    fields.mustBe('baseURL', 'an absolute URL such as "http://127.0.0.1:8000/v1"', url)
  const client = fields.get('client')
  const clientOptions = fields.get('clientOptions')
  let ready: OpenAI
  if (client !== undefined) {
    const conflicting = [
      ['apiKey', key],
      ['baseURL', url],
      ['clientOptions', clientOptions],
    ].find(([, value]) => value !== undefined)
    if (conflicting !== undefined) {
      fields.fail(
        String(conflicting[0]),
        `must be left out when a ready client is given (pass either a ready client or ${conflicting[0]} to build one, not both): the client already has its own settings`,
        conflicting[1],
      )
    }
    ready = checkClient(fields, client)
  } else {
    ready = buildClient(fields, key, url, clientOptions)
  }
  const name = optionalString(fields, 'provider') ?? 'openai'
  const body = fields.get('body')
  if (body !== undefined && !isPlainObject(body))
    fields.mustBe('body', 'a plain object of extra request fields or left out', body)
  let extra: Readonly<Record<string, unknown>> | undefined
  if (body !== undefined) {
    const copy: Record<string, unknown> = {}
    for (const [field, value] of Object.entries(body)) {
      if (RESERVED_BODY_KEYS.has(field)) {
        fields.fail(
          `body.${field}`,
          'is set by the adapter from each ModelRequest (or its options), so it cannot be a fixed extra field. Set it on the request instead',
          value,
        )
      }
      if (value !== undefined) copy[field] = jsonSnapshot(value, `body.${field}`)
    }
    extra = Object.freeze(copy)
  }
  const streamUsage = fields.get('streamUsage')
  if (streamUsage !== undefined && typeof streamUsage !== 'boolean')
    fields.mustBe('streamUsage', 'a boolean or left out', streamUsage)
  const maxTokensParameter = fields.get('maxTokensParameter')
  if (
    maxTokensParameter !== undefined &&
    maxTokensParameter !== 'max_completion_tokens' &&
    maxTokensParameter !== 'max_tokens'
  )
    fields.mustBe('maxTokensParameter', "'max_completion_tokens' or 'max_tokens'", maxTokensParameter)
  return {
    model,
    client: ready,
    provider: name,
    body: extra,
    streamUsage: streamUsage ?? true,
    maxTokensParameter: maxTokensParameter ?? 'max_completion_tokens',
  }
}
