import {
  assertBoolean,
  assertFunction,
  assertNonEmptyString,
  assertObject,
  assertSafeInteger,
  describeValue,
  refuseField,
} from '@agent-core/core'
import type { MockGPTOptions } from '../mock-gpt.js'
import type { MockBudget, MockChaos, MockFault, MockScriptEntry } from '../script.js'
import type { JournalLimits } from './journal.js'
import { assertFixtures, type MockFixture } from './replay.js'
import { assertChaos, assertKnownKeys, assertScript } from './validate-script.js'

const DEFAULT_MODELS = [
  'gpt-4o-mini',
  'gpt-4o',
  'gpt-4.1-mini',
  'gpt-5-mini',
  'claude-sonnet-4-6',
  'claude-sonnet-4-5',
  'claude-haiku-4-5',
  'text-embedding-3-small',
  'text-embedding-3-large',
]

/** Faults a correct client recovers from: retryable statuses with Retry-After, and slowness. */
const RECOVERABLE_CHAOS: readonly MockFault[] = [
  { type: 'status', status: 429, retryAfterMs: 10 },
  { type: 'status', status: 500, retryAfterMs: 10 },
  { type: 'status', status: 503, retryAfterMs: 10 },
  { type: 'slow-first-byte', delayMs: 50 },
  { type: 'slow-chunks', delayMs: 5 },
]
/** Faults no client can hide from its caller: added only on request. */
const UNRECOVERABLE_CHAOS: readonly MockFault[] = [
  { type: 'disconnect', afterChunks: 2 },
  { type: 'malformed-chunk', afterChunks: 1 },
]

export const DEFAULT_JOURNAL: JournalLimits = { maxEntries: 1000, maxBytes: 64 * 1024 * 1024 }

const OPTION_KEYS = [
  'seed',
  'apiKey',
  'models',
  'script',
  'chaos',
  'budget',
  'now',
  'strict',
  'journal',
  'recordCredentials',
  'adminToken',
  'adminOrigins',
  'replay',
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
  readonly strict: boolean
  readonly journal: JournalLimits
  readonly recordCredentials: boolean
  readonly adminToken: string | undefined
  readonly adminOrigins: readonly string[]
  readonly replay: readonly MockFixture[]
}

function invalid(field: string, what: string, value: unknown): never {
  refuseField('input', `options.${field}`, `must be ${what}, but got ${describeValue(value)}`, value, {
    prefix: 'MockGPT ',
  })
}

/**
 * Checks every option (the message names the bad field) and fills in the defaults. `extraKeys` are the
 * keys a transport adds to the engine options (host, port, ...), so that a typo there is refused too.
 */
export function resolveOptions(options: MockGPTOptions, extraKeys: readonly string[] = []): ResolvedOptions {
  assertObject(options as unknown, 'MockGPT options')
  assertKnownKeys(options as Record<string, unknown>, [...OPTION_KEYS, ...extraKeys], 'MockGPT options')
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
  if (options.budget !== undefined) {
    assertObject(options.budget as unknown, 'MockGPT options.budget')
    assertKnownKeys(
      options.budget as Record<string, unknown>,
      ['maxCalls', 'maxTokens'],
      'MockGPT options.budget',
    )
  }
  if (budget?.maxCalls !== undefined)
    assertSafeInteger(budget.maxCalls, 'MockGPT options.budget.maxCalls', { min: 0 })
  if (budget?.maxTokens !== undefined)
    assertSafeInteger(budget.maxTokens, 'MockGPT options.budget.maxTokens', { min: 0 })
  if (options.now !== undefined) assertFunction(options.now, 'MockGPT options.now')
  if (options.strict !== undefined) assertBoolean(options.strict, 'MockGPT options.strict')
  if (options.recordCredentials !== undefined)
    assertBoolean(options.recordCredentials, 'MockGPT options.recordCredentials')
  let journal = DEFAULT_JOURNAL
  if (options.journal !== undefined) {
    assertObject(options.journal as unknown, 'MockGPT options.journal')
    assertKnownKeys(
      options.journal as Record<string, unknown>,
      ['maxEntries', 'maxBytes'],
      'MockGPT options.journal',
    )
    const { maxEntries = DEFAULT_JOURNAL.maxEntries, maxBytes = DEFAULT_JOURNAL.maxBytes } = options.journal
    assertSafeInteger(maxEntries, 'MockGPT options.journal.maxEntries', { min: 1 })
    assertSafeInteger(maxBytes, 'MockGPT options.journal.maxBytes', { min: 1024 })
    journal = { maxEntries, maxBytes }
  }
  if (options.adminToken !== undefined) assertNonEmptyString(options.adminToken, 'MockGPT options.adminToken')
  const adminOrigins = options.adminOrigins ?? []
  if (
    !Array.isArray(adminOrigins) ||
    adminOrigins.some((o) => typeof o !== 'string' || !/^https?:\/\/[^/]+$/.test(o))
  ) {
    invalid(
      'adminOrigins',
      'an array of origins such as "http://localhost:5173" (scheme, host and port, no path)',
      adminOrigins,
    )
  }
  const replay = options.replay ?? []
  assertFixtures(replay, 'MockGPT options.replay')
  const chaos = options.chaos
  return {
    seed,
    keys,
    models,
    script,
    chaos,
    chaosPool:
      chaos?.faults ??
      (chaos?.unrecoverable ? [...RECOVERABLE_CHAOS, ...UNRECOVERABLE_CHAOS] : RECOVERABLE_CHAOS),
    budget,
    now: options.now ?? Date.now,
    strict: options.strict ?? false,
    journal,
    recordCredentials: options.recordCredentials ?? false,
    adminToken: options.adminToken,
    adminOrigins,
    replay,
  }
}
