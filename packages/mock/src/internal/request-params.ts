import { describeValue } from '@agent-core/core'
import type { MockEndpoint } from '../script.js'
import { nearest } from './nearest.js'
import { badRequest } from './openai-error.js'

/**
 * How one request parameter is checked before anything else reads it. The parameter names are those of
 * the official SDKs' request types (`ChatCompletionCreateParamsBase`, `ResponseCreateParamsBase` and
 * `EmbeddingCreateParams` of `openai`, `MessageCreateParamsBase` of `@anthropic-ai/sdk`); a type test keeps
 * the tables equal to the installed SDKs' keys, and a unit test checks the ranges against their docs.
 * Shapes the normalizers check in detail (messages, tools, formats) are `any` here.
 */
export type ParamRule =
  | { readonly type: 'number'; readonly min?: number; readonly max?: number; readonly nullable?: boolean }
  | { readonly type: 'integer'; readonly min?: number; readonly max?: number; readonly nullable?: boolean }
  | { readonly type: 'boolean'; readonly nullable?: boolean }
  | { readonly type: 'string'; readonly nullable?: boolean }
  | { readonly type: 'enum'; readonly values: readonly string[]; readonly nullable?: boolean }
  | { readonly type: 'object'; readonly nullable?: boolean }
  | { readonly type: 'array'; readonly nullable?: boolean }
  | { readonly type: 'any' }

const any = { type: 'any' } as const
const bool = { type: 'boolean', nullable: true } as const
const str = { type: 'string', nullable: true } as const
const obj = { type: 'object', nullable: true } as const
const arr = { type: 'array', nullable: true } as const
const tokens = { type: 'integer', min: 1, nullable: true } as const
const temperature = { type: 'number', min: 0, max: 2, nullable: true } as const
const topP = { type: 'number', min: 0, max: 1, nullable: true } as const
const penalty = { type: 'number', min: -2, max: 2, nullable: true } as const
const topLogprobs = { type: 'integer', min: 0, max: 20, nullable: true } as const
const cacheRetention = { type: 'enum', values: ['in_memory', '24h'], nullable: true } as const
const effort = {
  type: 'enum',
  values: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'],
  nullable: true,
} as const

/** `POST /v1/chat/completions`: the keys of `openai`'s `ChatCompletionCreateParamsBase`. */
export const CHAT_PARAMS = {
  messages: any,
  model: any,
  audio: obj,
  frequency_penalty: penalty,
  function_call: any,
  functions: { type: 'array' },
  logit_bias: obj,
  logprobs: bool,
  max_completion_tokens: tokens,
  max_tokens: tokens,
  metadata: obj,
  modalities: arr,
  moderation: obj,
  n: { type: 'integer', min: 1, max: 128, nullable: true },
  parallel_tool_calls: { type: 'boolean' },
  prediction: obj,
  presence_penalty: penalty,
  prompt_cache_key: str,
  prompt_cache_options: { type: 'object' },
  prompt_cache_retention: cacheRetention,
  reasoning_effort: effort,
  response_format: any,
  safety_identifier: str,
  seed: { type: 'integer', nullable: true },
  service_tier: {
    type: 'enum',
    values: ['auto', 'default', 'flex', 'scale', 'priority', 'fast'],
    nullable: true,
  },
  stop: any,
  store: bool,
  stream: bool,
  stream_options: obj,
  temperature,
  tool_choice: any,
  tools: any,
  top_logprobs: topLogprobs,
  top_p: topP,
  user: { type: 'string' },
  verbosity: { type: 'enum', values: ['low', 'medium', 'high'], nullable: true },
  web_search_options: { type: 'object' },
} as const satisfies Readonly<Record<string, ParamRule>>

/** `POST /v1/responses`: the keys of `openai`'s `ResponseCreateParamsBase`. */
export const RESPONSES_PARAMS = {
  access_programs: { type: 'object' },
  background: bool,
  background_options: { type: 'object' },
  context_management: arr,
  conversation: any,
  image: { type: 'object' },
  include: arr,
  input: any,
  instructions: any,
  max_output_tokens: tokens,
  max_tool_calls: { type: 'integer', min: 1, nullable: true },
  metadata: obj,
  model: any,
  moderation: obj,
  parallel_tool_calls: bool,
  previous_response_id: any,
  prompt: obj,
  prompt_cache_key: str,
  prompt_cache_options: { type: 'object' },
  prompt_cache_retention: cacheRetention,
  reasoning: obj,
  safety_identifier: str,
  service_tier: {
    type: 'enum',
    values: ['auto', 'default', 'flex', 'scale', 'priority', 'fast'],
    nullable: true,
  },
  store: bool,
  stream: bool,
  stream_options: obj,
  temperature,
  text: any,
  tool_choice: any,
  tools: any,
  top_logprobs: topLogprobs,
  top_p: topP,
  truncation: { type: 'enum', values: ['auto', 'disabled'], nullable: true },
  user: { type: 'string' },
} as const satisfies Readonly<Record<string, ParamRule>>

/** `POST /v1/embeddings`: the keys of `openai`'s `EmbeddingCreateParams`. */
export const EMBEDDINGS_PARAMS = {
  input: any,
  model: any,
  dimensions: { type: 'integer', min: 1, max: 16_384 },
  encoding_format: { type: 'enum', values: ['float', 'base64'] },
  user: { type: 'string' },
} as const satisfies Readonly<Record<string, ParamRule>>

/** `POST /v1/messages`: the keys of `@anthropic-ai/sdk`'s `MessageCreateParamsBase`. */
export const MESSAGES_PARAMS = {
  max_tokens: any,
  messages: any,
  model: any,
  cache_control: obj,
  container: any,
  diagnostics: obj,
  inference_geo: str,
  metadata: { type: 'object' },
  output_config: { type: 'object' },
  service_tier: { type: 'enum', values: ['auto', 'standard_only'] },
  speed: { type: 'enum', values: ['standard', 'fast'], nullable: true },
  stop_sequences: { type: 'array' },
  stream: { type: 'boolean' },
  system: any,
  thinking: { type: 'object' },
  tool_choice: any,
  tools: any,
  user_profile_id: { type: 'string' },
  workspace_id: { type: 'string' },
} as const satisfies Readonly<Record<string, ParamRule>>

/**
 * Sampling parameters the Anthropic SDK's current types no longer declare but that clients (the AI SDK's
 * Anthropic provider among them) still send: known, and range-checked, in strict mode too.
 */
export const MESSAGES_SAMPLING_PARAMS = {
  temperature: { type: 'number', min: 0, max: 1 },
  top_p: { type: 'number', min: 0, max: 1 },
  top_k: { type: 'integer', min: 0 },
} as const satisfies Readonly<Record<string, ParamRule>>

const TABLES: Readonly<Record<Exclude<MockEndpoint, 'models'>, Readonly<Record<string, ParamRule>>>> = {
  'chat.completions': CHAT_PARAMS,
  responses: RESPONSES_PARAMS,
  embeddings: EMBEDDINGS_PARAMS,
  messages: { ...MESSAGES_PARAMS, ...MESSAGES_SAMPLING_PARAMS },
}
const KNOWN: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(TABLES).map(([endpoint, table]) => [endpoint, Object.keys(table)]),
)

function refuse(key: string, message: string, value: unknown): never {
  throw badRequest(
    `Invalid type or value for '${key}': ${message}, but got ${describeValue(value)}.`,
    key,
    'invalid_value',
  )
}

function range(rule: { min?: number; max?: number }): string {
  if (rule.min !== undefined && rule.max !== undefined) return ` from ${rule.min} to ${rule.max}`
  if (rule.min !== undefined) return ` of at least ${rule.min}`
  return rule.max !== undefined ? ` of at most ${rule.max}` : ''
}

function check(key: string, rule: ParamRule, value: unknown): void {
  if (rule.type === 'any') return
  if (value === null) {
    if (!rule.nullable)
      refuse(
        key,
        `expected ${rule.type === 'enum' ? 'one of the allowed values' : `a ${rule.type}`}, not null`,
        value,
      )
    return
  }
  switch (rule.type) {
    case 'number':
    case 'integer': {
      const ok =
        typeof value === 'number' &&
        Number.isFinite(value) &&
        (rule.type === 'number' || Number.isSafeInteger(value)) &&
        (rule.min === undefined || value >= rule.min) &&
        (rule.max === undefined || value <= rule.max)
      if (!ok)
        refuse(key, `expected ${rule.type === 'integer' ? 'an integer' : 'a number'}${range(rule)}`, value)
      return
    }
    case 'boolean':
      if (typeof value !== 'boolean') refuse(key, 'expected a boolean', value)
      return
    case 'string':
      if (typeof value !== 'string') refuse(key, 'expected a string', value)
      return
    case 'enum':
      if (typeof value !== 'string' || !rule.values.includes(value))
        refuse(key, `expected one of ${rule.values.map((v) => `"${v}"`).join(', ')}`, value)
      return
    case 'object':
      if (typeof value !== 'object' || Array.isArray(value)) refuse(key, 'expected an object', value)
      return
    case 'array':
      if (!Array.isArray(value)) refuse(key, 'expected an array', value)
      return
  }
}

/**
 * Refuses parameters of the wrong type or outside their range (always), and parameters the SDKs do not
 * define (in strict mode only: newer clients send newer fields, and must stay green by default).
 */
export function checkRequestParams(
  endpoint: Exclude<MockEndpoint, 'models'>,
  body: Readonly<Record<string, unknown>>,
  strict: boolean,
): void {
  const table = TABLES[endpoint]
  for (const key in body) {
    const rule = Object.hasOwn(table, key) ? table[key] : undefined
    if (rule) {
      check(key, rule, body[key])
    } else if (strict) {
      const close = nearest(key, KNOWN[endpoint] as readonly string[])
      throw badRequest(
        `Unrecognized request argument supplied: ${key}${close ? ` (did you mean '${close}'?)` : ''}. MockGPT strict mode accepts the parameters of the official SDK's request type for ${endpoint}.`,
        key,
        'unknown_parameter',
      )
    }
  }
}
