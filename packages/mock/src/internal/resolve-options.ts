import {
  assertFunction,
  assertObject,
  assertSafeInteger,
  describeValue,
  InvalidInputError,
} from '@agent-core/core'
import type { MockGPTOptions } from '../mock-gpt.js'
import type { MockBudget, MockChaos, MockFault, MockScriptEntry } from '../script.js'
import { assertChaos, assertScript } from './validate-script.js'

const DEFAULT_MODELS = [
  'gpt-4o-mini',
  'gpt-4o',
  'gpt-4.1-mini',
  'gpt-5-mini',
  'text-embedding-3-small',
  'text-embedding-3-large',
]
const DEFAULT_CHAOS: readonly MockFault[] = [
  { type: 'status', status: 429, retryAfterMs: 10 },
  { type: 'status', status: 500 },
  { type: 'status', status: 503, retryAfterMs: 10 },
  { type: 'disconnect', afterChunks: 2 },
  { type: 'malformed-chunk', afterChunks: 1 },
]

export interface ResolvedOptions {
  readonly seed: number
  readonly keys: readonly string[] | undefined
  readonly models: readonly string[]
  readonly script: readonly MockScriptEntry[]
  readonly chaos: MockChaos | undefined
  readonly chaosPool: readonly MockFault[]
  readonly budget: MockBudget | undefined
  readonly now: () => number
}

function invalid(name: string, what: string, value: unknown): never {
  throw new InvalidInputError(`MockGPT options.${name} must be ${what}, but got ${describeValue(value)}.`, {
    details: { name },
  })
}

/** Checks every option (the message names the bad field) and fills in the defaults. */
export function resolveOptions(options: MockGPTOptions): ResolvedOptions {
  assertObject(options as unknown, 'MockGPT options')
  const seed = options.seed ?? 0
  assertSafeInteger(seed, 'MockGPT options.seed')
  const apiKey = options.apiKey
  const keys = apiKey === undefined ? undefined : typeof apiKey === 'string' ? [apiKey] : apiKey
  if (
    keys !== undefined &&
    (!Array.isArray(keys) || keys.length === 0 || keys.some((k) => typeof k !== 'string' || k === ''))
  ) {
    invalid('apiKey', 'a non-empty string or a non-empty array of them', apiKey)
  }
  const models = options.models ?? DEFAULT_MODELS
  if (!Array.isArray(models) || models.some((m) => typeof m !== 'string' || m === '')) {
    invalid('models', 'an array of non-empty strings', options.models)
  }
  const script = options.script ?? []
  assertScript(script, 'MockGPT options.script')
  if (options.chaos !== undefined) assertChaos(options.chaos, 'MockGPT options.chaos')
  const budget: MockBudget | undefined = options.budget
  if (options.budget !== undefined) assertObject(options.budget as unknown, 'MockGPT options.budget')
  if (budget?.maxCalls !== undefined)
    assertSafeInteger(budget.maxCalls, 'MockGPT options.budget.maxCalls', { min: 0 })
  if (budget?.maxTokens !== undefined)
    assertSafeInteger(budget.maxTokens, 'MockGPT options.budget.maxTokens', { min: 0 })
  if (options.now !== undefined) assertFunction(options.now, 'MockGPT options.now')
  return {
    seed,
    keys,
    models,
    script,
    chaos: options.chaos,
    chaosPool: options.chaos?.faults ?? DEFAULT_CHAOS,
    budget,
    now: options.now ?? Date.now,
  }
}
