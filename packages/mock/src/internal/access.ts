import type { MockHttpRequest, MockHttpResponse } from '../mock-http.js'
import type { MockBudget } from '../script.js'
import { openAIErrorResponse } from './openai-error.js'

/** A 401 when `keys` are configured and the request does not carry one of them; `undefined` when allowed. */
export function checkApiKey(
  keys: readonly string[] | undefined,
  headers: MockHttpRequest['headers'],
): MockHttpResponse | undefined {
  if (!keys) return undefined
  const auth = headers.authorization
  // The Anthropic SDK sends `x-api-key`, Azure-style clients `api-key`.
  const key = auth ? auth.replace(/^Bearer\s+/i, '') : (headers['x-api-key'] ?? headers['api-key'])
  if (!key) {
    return openAIErrorResponse(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or in x-api-key.",
      { code: null },
    )
  }
  if (keys.includes(key)) return undefined
  const shown = key.length > 8 ? `${key.slice(0, 3)}*****${key.slice(-4)}` : '*****'
  return openAIErrorResponse(
    401,
    `Incorrect API key provided: ${shown}. Use the key MockGPT was started with (apiKey option or --api-key).`,
    { code: 'invalid_api_key' },
  )
}

/** Calls and tokens answered so far. */
export interface UsageSoFar {
  readonly calls: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly totalTokens: number
}

/** A 429 `insufficient_quota` with the usage so far once the budget is spent; `undefined` while it lasts. */
export function budgetExhausted(
  budget: MockBudget | undefined,
  usage: UsageSoFar,
): MockHttpResponse | undefined {
  if (!budget) return undefined
  const callsOut = budget.maxCalls !== undefined && usage.calls >= budget.maxCalls
  const tokensOut = budget.maxTokens !== undefined && usage.totalTokens >= budget.maxTokens
  if (!callsOut && !tokensOut) return undefined
  const limits = [
    budget.maxCalls !== undefined ? `${usage.calls} of ${budget.maxCalls} calls` : `${usage.calls} calls`,
    budget.maxTokens !== undefined
      ? `${usage.totalTokens} of ${budget.maxTokens} tokens`
      : `${usage.totalTokens} tokens`,
  ]
  return openAIErrorResponse(
    429,
    `MockGPT budget exhausted: used ${limits.join(' and ')}. Raise budget.maxCalls / budget.maxTokens (--max-calls / --max-tokens), or reset the mock between tests.`,
    {
      type: 'insufficient_quota',
      code: 'insufficient_quota',
      // Permanent until reset: tell the SDKs not to retry.
      headers: { 'x-should-retry': 'false' },
      extra: {
        usage: {
          calls: usage.calls,
          input_tokens: usage.inputTokens,
          output_tokens: usage.outputTokens,
          total_tokens: usage.totalTokens,
          max_calls: budget.maxCalls ?? null,
          max_tokens: budget.maxTokens ?? null,
        },
      },
    },
  )
}
