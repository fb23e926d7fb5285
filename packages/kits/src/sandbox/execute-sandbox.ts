import {
  ConflictError,
  canonicalJson,
  createId,
  createOperationContext,
  describeValue,
  type OperationContext,
  type OperationContextInit,
  refuseField,
} from '@agent-core/core'
import type { ModelTool } from '@agent-core/core/tools'
import {
  assertDecision,
  type JsonValue,
  type ToolDecision,
  type ToolLifecycle,
  type ToolLifecycleRegistry,
} from '@agent-core/kits/tools'
import { jsonProblem } from './internal/json-problem.js'
import { loadRuntime } from './internal/load-runtime.js'
import { readToolSet, type ToolSet } from './internal/tool-set.js'
import { DEFAULT_SANDBOX_LIMITS, resolveLimits, type SandboxLimits } from './sandbox-limits.js'
import {
  assertSandboxRecording,
  hostCallId,
  hostCallNumber,
  type SandboxRecording,
} from './sandbox-recording.js'
import type { SandboxResult } from './sandbox-result.js'

/**
 * A tool a script may call: a core `ModelTool` or a `tools` kit lifecycle (a tool with its hooks, such as an
 * `authorize` that asks a person).
 * @example
 * ```ts
 * import type { SandboxToolEntry } from '@agent-core/kits/sandbox'
 * import { defineModelTool } from '@agent-core/core/tools'
 * const entry: SandboxToolEntry = defineModelTool({ id: 'now', description: 'The time', inputSchema: {}, execute: () => '12:00' })
 * ```
 */
export type SandboxToolEntry<App = unknown> =
  // biome-ignore lint/suspicious/noExplicitAny: tools of any input and output types share one list
  ModelTool<any, any, App> | ToolLifecycle<any, any, App>

/**
 * The tools of a sandbox: a list of {@link SandboxToolEntry}, or a ready `ToolLifecycleRegistry`.
 * @example
 * ```ts
 * import type { SandboxTools } from '@agent-core/kits/sandbox'
 * const none: SandboxTools = []
 * ```
 */
export type SandboxTools<App = unknown> = readonly SandboxToolEntry<App>[] | ToolLifecycleRegistry<App>

/**
 * Options of {@link executeSandbox}.
 * @example
 * ```ts
 * import type { ExecuteSandboxOptions } from '@agent-core/kits/sandbox'
 * const options: ExecuteSandboxOptions = { limits: { cpuTimeMs: 200 }, language: 'javascript', seed: 7 }
 * ```
 */
export interface ExecuteSandboxOptions<App = unknown> {
  /** What the script may use (see {@link SandboxLimits}); defaults for the rest. */
  readonly limits?: SandboxLimits | undefined
  /** `typescript` (default: types are stripped first) or `javascript`. */
  readonly language?: 'typescript' | 'javascript' | undefined
  /** The run's context: its signal stops the script, its diagnostics get the spans, its `now` the clock. */
  readonly context?: OperationContext<App> | OperationContextInit<App> | undefined
  /** Continue or replay this recording (its code must be `code`): recorded host calls are not run again. */
  readonly recording?: SandboxRecording | undefined
  /** Decisions for the host calls the recording shows waiting, keyed by their tool-call id (`host_<n>`). */
  readonly decisions?: Readonly<Record<string, ToolDecision>> | undefined
  /** A new execution's id (the `runId` of its host calls). Default: a new id. */
  readonly id?: string | undefined
  /** A new execution's `Math.random` seed (a 32-bit unsigned integer). Default: a random one. */
  readonly seed?: number | undefined
  /** A new execution's frozen clock, ms since the epoch. Default: `context.now()`. */
  readonly now?: number | undefined
  /**
   * Makes the execution durable: called with the recording after each host call is saved before it runs
   * (with the invocation id it will run with) and after it settles, and awaited before the call runs and
   * before the script sees its result. Store what it gets; an execution continued from the last one stored
   * after a crash never runs a settled host call again, and runs the one that was in flight again with the
   * same invocation id (its idempotency key). Needs tools given as a list (a ready-made registry's calls
   * cannot be saved before they run).
   */
  readonly onProgress?: ((recording: SandboxRecording) => void | Promise<void>) | undefined
  /**
   * Keeps globals: the script gets a `globals` object holding these values (plain JSON, by name), may
   * change it, and the result's `globals` is what it left, for the next execution. Only plain JSON data is
   * kept (a function, a cycle, a `Map` or a `Date` under a key drops that key, with a `warn` log saying so).
   * The recording holds them: a continuation or a replay of it starts from them (give the same globals or
   * none; other ones are a `ConflictError`). Default: none (no `globals` object, as every script starts
   * from a fresh global scope).
   */
  readonly globals?: Readonly<Record<string, JsonValue>> | undefined
}

const OPTION_KEYS = [
  'limits',
  'language',
  'context',
  'recording',
  'decisions',
  'id',
  'seed',
  'now',
  'onProgress',
  'globals',
]

function randomSeed(): number {
  const crypto = globalThis.crypto as Crypto | undefined
  if (crypto?.getRandomValues) return crypto.getRandomValues(new Uint32Array(1))[0]!
  return Math.floor(Math.random() * 0x1_0000_0000)
}

/** What an execution runs with, read from the caller's arguments. */
export interface PreparedExecution {
  readonly code: string
  readonly language: 'typescript' | 'javascript'
  readonly set: ToolSet
  readonly limits: ReturnType<typeof resolveLimits>
  readonly context: OperationContext<unknown>
  readonly start: SandboxRecording
  readonly decisions: ReadonlyMap<string, ToolDecision>
  readonly onProgress: ((recording: SandboxRecording) => unknown) | undefined
  readonly globals: Readonly<Record<string, JsonValue>> | undefined
}

/** Reads `options.globals`: a plain object of plain JSON values (copied, frozen). */
function readGlobals(value: unknown, set: ToolSet): Readonly<Record<string, JsonValue>> | undefined {
  if (value === undefined) return undefined
  if (
    value === null ||
    typeof value !== 'object' ||
    Array.isArray(value) ||
    (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
  )
    refuseField('input', 'options.globals', 'must be a plain object of JSON values by name', value)
  const problem = jsonProblem(value, 'options.globals')
  if (problem !== undefined)
    refuseField('input', 'options.globals', `must hold plain JSON only (${problem})`, value)
  if (set.declarable.includes('globals'))
    refuseField(
      'input',
      'options.globals',
      'cannot be given to scripts with a tool named "globals" (both would be the global `globals`); rename the tool',
      value,
    )
  return Object.freeze(JSON.parse(JSON.stringify(value)) as Record<string, JsonValue>)
}

/** Checks the arguments of {@link executeSandbox} and builds what the execution runs with. */
export function prepareExecution(code: unknown, tools: unknown, options: unknown): PreparedExecution {
  if (typeof code !== 'string') refuseField('input', 'code', 'must be the script as a string', code)
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    refuseField('input', 'options', 'must be an object', options)
  const given = options as Record<string, unknown>
  for (const key of Object.keys(given)) {
    if (!OPTION_KEYS.includes(key))
      refuseField(
        'input',
        `options.${key}`,
        `is not an option of executeSandbox (${OPTION_KEYS.join(', ')})`,
        given[key],
      )
  }
  const limits = resolveLimits(given.limits, 'options.limits')
  const language = given.language ?? 'typescript'
  if (language !== 'typescript' && language !== 'javascript')
    refuseField('input', 'options.language', 'must be "typescript" or "javascript"', language)
  const context = createOperationContext((given.context ?? {}) as OperationContextInit<unknown>)
  const set = readToolSet(tools, 'tools', limits.hostCallTimeoutMs)
  let start: SandboxRecording
  if (given.recording !== undefined) {
    assertSandboxRecording(given.recording, 'options.recording')
    const recording = given.recording
    if (recording.code !== code) {
      throw new ConflictError(
        'options.recording was made by other code; a recording continues or replays only the script that made it.',
        { details: { field: 'options.recording.code', received: describeValue(recording.code) } },
      )
    }
    for (const key of ['id', 'seed', 'now'] as const) {
      if (given[key] !== undefined)
        refuseField(
          'input',
          `options.${key}`,
          'cannot be given with a recording (the recording holds it)',
          given[key],
        )
    }
    start = recording
  } else {
    const id = given.id ?? createId('sandbox')
    if (typeof id !== 'string' || id === '')
      refuseField('input', 'options.id', 'must be a non-empty string', id)
    const seed = given.seed ?? randomSeed()
    if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
      refuseField('input', 'options.seed', 'must be an integer from 0 to 4294967295', seed)
    const now = given.now ?? Math.floor(context.now())
    if (typeof now !== 'number' || !Number.isSafeInteger(now))
      refuseField('input', 'options.now', 'must be a safe integer (ms since the epoch)', now)
    start = Object.freeze({ version: 1, id, code, seed, now, calls: Object.freeze([]) })
  }
  const decisions = new Map<string, ToolDecision>()
  if (given.decisions !== undefined) {
    const value = given.decisions
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      refuseField('input', 'options.decisions', 'must be an object of decisions keyed by tool-call id', value)
    for (const [key, decision] of Object.entries(value)) {
      try {
        assertDecision(decision)
      } catch (error) {
        refuseField(
          'input',
          `options.decisions.${key}`,
          `is not a tool decision: ${(error as Error).message.replace(/\.$/, '')}`,
          decision,
          { cause: error },
        )
      }
      if (decision.toolCallId !== key)
        refuseField(
          'input',
          `options.decisions.${key}.toolCallId`,
          `must be "${key}" (decisions are keyed by their call)`,
          decision,
        )
      const waiting = start.calls.find((call) => call.toolCallId === key)
      if (waiting?.status !== 'pending' || start.running?.includes(key))
        refuseField(
          'input',
          `options.decisions.${key}`,
          'answers no host call that waits in the recording',
          decision,
        )
      decisions.set(key, decision)
    }
  }
  const onProgress = given.onProgress
  if (onProgress !== undefined && typeof onProgress !== 'function')
    refuseField('input', 'options.onProgress', 'must be a function of the recording', onProgress)
  let globals = readGlobals(given.globals, set)
  if (given.recording !== undefined) {
    // A continuation or a replay starts from the globals the recording started with.
    const recorded = start.globals
    if (
      globals !== undefined &&
      (recorded === undefined || canonicalJson(recorded) !== canonicalJson(globals))
    ) {
      throw new ConflictError(
        recorded === undefined
          ? 'options.globals were given with a recording made without globals; continue a recording with the options it was made with.'
          : 'options.globals are not the globals the recording started with; leave them out (the recording holds them) or give the same.',
        { details: { field: 'options.globals', received: describeValue(globals) } },
      )
    }
    globals = recorded === undefined ? undefined : readGlobals(recorded, set)
  } else if (globals !== undefined) {
    start = Object.freeze({ ...start, globals })
  }
  return {
    globals,
    code,
    language,
    set,
    limits,
    context,
    start,
    decisions,
    onProgress: onProgress as PreparedExecution['onProgress'],
  }
}

const HOST_CALL_IDS = { id: hostCallId, number: hostCallNumber }

/** Runs a prepared execution (the runtime is imported on the first one). */
export async function runPrepared(prepared: PreparedExecution, strict: boolean): Promise<SandboxResult> {
  const { runExecution } = await loadRuntime()
  return runExecution({
    code: prepared.code,
    language: prepared.language,
    registry: prepared.set.registry,
    declarable: prepared.set.declarable,
    limits: prepared.limits,
    context: prepared.context,
    start: prepared.start,
    decisions: prepared.decisions,
    strict,
    onProgress: prepared.onProgress,
    hostCallIds: HOST_CALL_IDS,
    ...(prepared.globals === undefined ? {} : { globals: prepared.globals }),
  })
}

/**
 * Runs a script in a fresh QuickJS sandbox, with `tools` as its library: each tool is an async function of
 * one JSON input (a global when its id can name one, and `tools[id]` always), and each call goes through
 * the tool lifecycle of the `tools` kit (schemas, approvals, time limits). The script's body runs inside an
 * async function (`await` and `return` work at the top) after its TypeScript types are stripped.
 *
 * It resolves to a {@link SandboxResult} for everything the script does: its JSON value, an error it threw
 * (with its line), a limit it crossed, or a suspension when host calls wait for a person. To go on after a
 * suspension, run the same code with `options.recording` (the result's) and `options.decisions` for the
 * waiting calls: the script runs again, recorded host calls answer from the recording without running, and
 * the approved ones run. It rejects only for bad arguments, a recording of other code, or a recording the
 * script no longer follows (`ConflictError`).
 * @throws `InvalidInputError`, `InvalidDefinitionError`, `ConflictError`, `SandboxUnavailableError`
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { executeSandbox } from '@agent-core/kits/sandbox'
 * const double = defineModelTool<{ n: number }, number>({
 *   id: 'double',
 *   description: 'Doubles a number',
 *   inputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'number' } } },
 *   execute: ({ n }) => n * 2,
 * })
 * const result = await executeSandbox('const x: number = await double({ n: 21 })\nreturn { x }', [double])
 * // result.status === 'completed', result.value is { x: 42 }
 * ```
 */
export async function executeSandbox<App = unknown>(
  code: string,
  tools: SandboxTools<App>,
  options: ExecuteSandboxOptions<App> = {},
): Promise<SandboxResult> {
  return runPrepared(prepareExecution(code, tools, options), false)
}

/**
 * Replays a recording without calling any tool: the recorded code runs again with the recorded seed, clock
 * and host results, and gives the result the recorded execution gave. A host call the recording does not
 * hold (the script took another path) rejects with a `ConflictError`; a host call that was waiting in the
 * recording is still waiting.
 * @throws `InvalidInputError` for a malformed recording or options; `ConflictError` when the script leaves
 *   the recording
 * @example
 * ```ts
 * import { executeSandbox, replaySandbox } from '@agent-core/kits/sandbox'
 * const first = await executeSandbox('return Math.random()', [])
 * const again = await replaySandbox(first.recording, [])
 * // again.status === 'completed' and again.value === first.value
 * ```
 */
export async function replaySandbox<App = unknown>(
  recording: SandboxRecording,
  tools: SandboxTools<App>,
  options: Omit<
    ExecuteSandboxOptions<App>,
    'recording' | 'decisions' | 'id' | 'seed' | 'now' | 'onProgress'
  > = {},
): Promise<SandboxResult> {
  assertSandboxRecording(recording)
  if (options === null || typeof options !== 'object')
    refuseField('input', 'options', 'must be an object', options)
  for (const key of ['recording', 'decisions', 'id', 'seed', 'now', 'onProgress']) {
    if (key in options)
      refuseField(
        'input',
        `options.${key}`,
        'cannot be given to a replay (the recording holds it)',
        undefined,
      )
  }
  return runPrepared(prepareExecution(recording.code, tools, { ...options, recording }), true)
}

/**
 * Loads what the sandbox loads on its first run, now: the QuickJS engine and, for TypeScript scripts, the
 * type stripper. Importing the kit loads neither, so the first script of a process pays for both (a few
 * hundred milliseconds); call this at start-up so the first code call does not. Calling it again costs
 * nothing.
 * @param options - `language`: `typescript` (default, loads the type stripper too) or `javascript`
 * @throws `SandboxUnavailableError` when `quickjs-emscripten` (or the type stripper) cannot be loaded;
 *   `InvalidInputError` for bad options
 * @example
 * ```ts
 * import { preloadSandbox } from '@agent-core/kits/sandbox'
 * await preloadSandbox() // at start-up: the first code call starts at once
 * ```
 */
export async function preloadSandbox(
  options: { readonly language?: 'typescript' | 'javascript' | undefined } = {},
): Promise<void> {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    refuseField('input', 'options', 'must be an object { language? }', options)
  for (const key of Object.keys(options)) {
    if (key !== 'language')
      refuseField(
        'input',
        `options.${key}`,
        'is not an option of preloadSandbox (language)',
        (options as Record<string, unknown>)[key],
      )
  }
  const language = options.language ?? 'typescript'
  if (language !== 'typescript' && language !== 'javascript')
    refuseField('input', 'options.language', 'must be "typescript" or "javascript"', language)
  const { loadSucrase, warmEngine } = await loadRuntime()
  await Promise.all([
    warmEngine(DEFAULT_SANDBOX_LIMITS.memoryBytes),
    language === 'typescript' ? loadSucrase() : undefined,
  ])
}
