import {
  assertNonEmptyString,
  ConflictError,
  describeValue,
  type FieldReaderContext,
  type MaybePromise,
  refuseField,
} from '@agent-core/core'
import { assertToolCallState, type JsonValue, type ToolCallState } from '@agent-core/kits/tools'
import { jsonProblem } from './internal/json-problem.js'

/**
 * Everything a sandbox execution took from outside, as plain JSON: the code, the seed of `Math.random`,
 * the frozen clock, and the host calls in the order the script made them (each a `tools` kit call state:
 * settled, or pending while it waits for a person). Running the same code with its recording gives the same
 * result without calling a tool again; a recording with a pending call is how a suspended execution resumes.
 * @example
 * ```ts
 * import type { SandboxRecording } from '@agent-core/kits/sandbox'
 * const recording: SandboxRecording = {
 *   version: 1, id: 'run_1', code: 'return 1 + 1', seed: 42, now: 1_700_000_000_000, calls: [],
 * }
 * ```
 */
export interface SandboxRecording {
  readonly version: 1
  /** Names the execution: the `runId` of its host calls (and the key a code tool stores it under). */
  readonly id: string
  /** The source as it was given (TypeScript or JavaScript). */
  readonly code: string
  /** The seed of the script's `Math.random`, a 32-bit unsigned integer. */
  readonly seed: number
  /** The script's clock: `Date.now()` in ms, frozen for the whole execution. */
  readonly now: number
  /**
   * The host calls that reached the tool lifecycle, in call order: the n-th call of the script has the
   * tool-call id `host_<n>` (from 1).
   */
  readonly calls: readonly ToolCallState[]
  /**
   * Host calls saved before they ran (with progress saves on): pending in `calls` not because a person must
   * decide, but so that an execution re-entered after a crash runs them again with the same invocation id.
   */
  readonly running?: readonly string[] | undefined
  /**
   * With kept globals: the `globals` the execution started with, so a replay or a continuation starts from
   * them too.
   */
  readonly globals?: Readonly<Record<string, JsonValue>> | undefined
  /**
   * Set by a code tool with `decisionKeys`: an HMAC (`signToolCall`) over the rest of the recording, checked
   * before the recording is used again.
   */
  readonly signature?: string | undefined
}

/** Refusals of a malformed recording open with what was being read. */
const RECORDING: FieldReaderContext = { prefix: 'A sandbox recording: ' }

/**
 * Checks that `value` is a {@link SandboxRecording} as this kit writes it, strictly (unknown fields, wrong
 * types and malformed host calls are refused), so a recording corrupted in storage is caught before it runs.
 * @param field - how the value is named in errors (default `"recording"`)
 * @throws `InvalidInputError` naming the offending field
 * @example
 * ```ts
 * import { assertSandboxRecording } from '@agent-core/kits/sandbox'
 * declare const saved: string // JSON read back from the App's store
 * const recording: unknown = JSON.parse(saved)
 * assertSandboxRecording(recording)
 * recording.calls.length
 * ```
 */
export function assertSandboxRecording(
  value: unknown,
  field = 'recording',
): asserts value is SandboxRecording {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    refuseField('input', field, 'must be an object', value, RECORDING)
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null)
    refuseField('input', field, 'must be a plain object', value, RECORDING)
  const record = value as Record<string, unknown>
  const known = ['version', 'id', 'code', 'seed', 'now', 'calls', 'running', 'globals', 'signature']
  for (const key of Object.keys(record)) {
    if (!known.includes(key))
      refuseField(
        'input',
        `${field}.${key}`,
        `is not a field of a recording (${known.join(', ')})`,
        record[key],
        RECORDING,
      )
  }
  if (record.version !== 1) refuseField('input', `${field}.version`, 'must be 1', record.version, RECORDING)
  if (typeof record.id !== 'string' || record.id === '')
    refuseField('input', `${field}.id`, 'must be a non-empty string', record.id, RECORDING)
  if (typeof record.code !== 'string')
    refuseField('input', `${field}.code`, 'must be a string', record.code, RECORDING)
  if (
    typeof record.seed !== 'number' ||
    !Number.isInteger(record.seed) ||
    record.seed < 0 ||
    record.seed > 0xffffffff
  )
    refuseField('input', `${field}.seed`, 'must be an integer from 0 to 4294967295', record.seed, RECORDING)
  if (typeof record.now !== 'number' || !Number.isSafeInteger(record.now))
    refuseField('input', `${field}.now`, 'must be a safe integer (ms since the epoch)', record.now, RECORDING)
  if (record.globals !== undefined) {
    const globals = record.globals
    if (
      typeof globals !== 'object' ||
      globals === null ||
      Array.isArray(globals) ||
      Object.getPrototypeOf(globals) !== Object.prototype
    )
      refuseField(
        'input',
        `${field}.globals`,
        'must be a plain object of JSON values by name',
        globals,
        RECORDING,
      )
    const problem = jsonProblem(globals, `${field}.globals`)
    if (problem !== undefined)
      refuseField('input', `${field}.globals`, `must hold plain JSON only (${problem})`, globals, RECORDING)
  }
  if (!Array.isArray(record.calls))
    refuseField('input', `${field}.calls`, 'must be an array of tool call states', record.calls, RECORDING)
  let last = 0
  record.calls.forEach((call: unknown, index) => {
    assertToolCallState(call, `${field}.calls[${index}]`)
    const number = hostCallNumber(call.toolCallId)
    if (number === undefined || number <= last) {
      refuseField(
        'input',
        `${field}.calls[${index}].toolCallId`,
        'must be "host_<n>", with n growing along the array (calls are kept in call order)',
        call.toolCallId,
        RECORDING,
      )
    }
    last = number
  })
  if (record.signature !== undefined && typeof record.signature !== 'string')
    refuseField('input', `${field}.signature`, 'must be a string', record.signature, RECORDING)
  if (record.running !== undefined) {
    if (!Array.isArray(record.running))
      refuseField('input', `${field}.running`, 'must be an array of tool-call ids', record.running, RECORDING)
    record.running.forEach((id: unknown, index) => {
      const call = (record.calls as ToolCallState[]).find((state) => state.toolCallId === id)
      if (call?.status !== 'pending')
        refuseField(
          'input',
          `${field}.running[${index}]`,
          'must be the tool-call id of a pending call in calls',
          id,
          RECORDING,
        )
    })
  }
}

/** The number of a host call from its tool-call id, or `undefined` when it is not one. */
export function hostCallNumber(toolCallId: string): number | undefined {
  const match = /^host_([1-9][0-9]{0,8})$/.exec(toolCallId)
  return match ? Number(match[1]) : undefined
}

/** The tool-call id of the `index`-th host call (from 1) of an execution. */
export function hostCallId(index: number): string {
  return `host_${index}`
}

/**
 * Where a code tool keeps the recording of each of its executions, keyed by the invocation id core
 * allocated for the code call (kept when the call is resumed after an approval, or re-entered after a
 * crash). Give a code tool a store your other processes can read to resume its calls there; a store may
 * be synchronous or asynchronous.
 * @example
 * ```ts
 * import type { SandboxRecordingStore } from '@agent-core/kits/sandbox'
 * const rows = new Map<string, string>()
 * const store: SandboxRecordingStore = {
 *   get: (key) => { const row = rows.get(key); return row === undefined ? undefined : JSON.parse(row) },
 *   set: (key, recording) => { rows.set(key, JSON.stringify(recording)) },
 * }
 * ```
 */
export interface SandboxRecordingStore {
  get(key: string): MaybePromise<SandboxRecording | undefined>
  set(key: string, recording: SandboxRecording): MaybePromise<void>
}

/**
 * Options of a {@link MemoryRecordingStore}.
 * @example
 * ```ts
 * import type { MemoryRecordingStoreOptions } from '@agent-core/kits/sandbox'
 * const options: MemoryRecordingStoreOptions = { maxRecordings: 100 }
 * ```
 */
export interface MemoryRecordingStoreOptions {
  /**
   * Recordings kept at most (default 1,000). Past it, the store forgets the least recently saved recording
   * of an execution that is over (no host call waits or runs); only when every one still waits does it
   * forget the oldest waiting one, and a code call resumed after that runs from the start (its host calls
   * run again). Keep it above the number of code calls that may wait at once, or use a persistent store.
   */
  readonly maxRecordings?: number | undefined
}

/** What a {@link MemoryRecordingStore} keeps where no bound is given. */
const DEFAULT_MAX_RECORDINGS = 1_000

/** Whether an execution could still go on from this recording (a host call waits or was running). */
function goesOn(recording: SandboxRecording): boolean {
  return (recording.running?.length ?? 0) > 0 || recording.calls.some((call) => call.status === 'pending')
}

/**
 * A {@link SandboxRecordingStore} in memory, and plain JSON: `JSON.stringify(store)` writes every recording
 * and `new MemoryRecordingStore(JSON.parse(text))` restores them in another process (each is checked with
 * {@link assertSandboxRecording}). The default store of a code tool. It keeps at most `maxRecordings`
 * (default 1,000), forgetting finished executions first.
 * @example
 * ```ts
 * import { MemoryRecordingStore } from '@agent-core/kits/sandbox'
 * const store = new MemoryRecordingStore()
 * const copy = new MemoryRecordingStore(JSON.parse(JSON.stringify(store)))
 * copy.size // 0
 * ```
 */
export class MemoryRecordingStore implements SandboxRecordingStore {
  readonly #recordings = new Map<string, SandboxRecording>()
  readonly #max: number

  /**
   * @param entries - recordings by key, as `toJSON()` wrote them
   * @param options - `maxRecordings`: how many are kept at most (default 1,000)
   * @throws `InvalidInputError` for entries that are not an object of recordings, or a bad bound
   */
  constructor(
    entries: Readonly<Record<string, SandboxRecording>> = {},
    options: MemoryRecordingStoreOptions = {},
  ) {
    const max = options?.maxRecordings ?? DEFAULT_MAX_RECORDINGS
    if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1) {
      refuseField(
        'input',
        'options.maxRecordings',
        `must be a positive safe integer, but got ${describeValue(max)}`,
        max,
      )
    }
    this.#max = max
    if (typeof entries !== 'object' || entries === null || Array.isArray(entries)) {
      refuseField(
        'input',
        'entries',
        `must be an object of recordings keyed by invocation id, but got ${describeValue(entries)}`,
        entries,
        { prefix: 'MemoryRecordingStore: ' },
      )
    }
    for (const [key, recording] of Object.entries(entries)) {
      assertSandboxRecording(recording, `entries.${key}`)
      this.#recordings.set(key, recording)
    }
    this.#trim()
  }

  /** Forgets recordings past the bound: finished ones first, least recently saved first. */
  #trim(): void {
    while (this.#recordings.size > this.#max) {
      let victim: string | undefined
      for (const [key, recording] of this.#recordings) {
        if (!goesOn(recording)) {
          victim = key
          break
        }
      }
      this.#recordings.delete(victim ?? this.#recordings.keys().next().value!)
    }
  }

  /** Number of recordings kept. */
  get size(): number {
    return this.#recordings.size
  }

  /** The recording kept under `key`, or `undefined`. */
  get(key: string): SandboxRecording | undefined {
    return this.#recordings.get(key)
  }

  /**
   * Keeps `recording` under `key`, replacing the one there.
   * @throws `InvalidInputError` for a key that is not a non-empty string or a malformed recording;
   *   `ConflictError` when the key holds the recording
   *   of other code
   */
  set(key: string, recording: SandboxRecording): void {
    assertNonEmptyString(key, 'key')
    assertSandboxRecording(recording)
    const kept = this.#recordings.get(key)
    if (kept !== undefined && kept.code !== recording.code) {
      throw new ConflictError(
        `Recording "${key}" belongs to other code; a key names one execution. Use a new key for new code.`,
        { details: { field: 'key', received: describeValue(key) } },
      )
    }
    this.#recordings.delete(key)
    this.#recordings.set(key, JSON.parse(JSON.stringify(recording)) as SandboxRecording)
    this.#trim()
  }

  /** Forgets the recording under `key` (once its run is over). Returns whether one was kept. */
  delete(key: string): boolean {
    return this.#recordings.delete(key)
  }

  /** Every recording by key, as plain JSON (what `JSON.stringify(store)` writes). */
  toJSON(): Record<string, SandboxRecording> {
    return Object.fromEntries(this.#recordings)
  }
}
