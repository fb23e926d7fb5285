import {
  describeValue,
  InvalidStateError,
  type JsonSchema,
  refuseField,
  UnauthorizedError,
} from '@agent-core/core'
import { defineModelTool, type ModelTool, type ToolExecutionContext } from '@agent-core/core/tools'
import {
  ApprovalRequiredError,
  type ApproveDecision,
  type DecisionKey,
  type JsonValue,
  type PendingToolCall,
  type ResumedToolCallView,
  signToolCall,
  type ToolDecision,
  type ToolLifecycle,
  type ToolState,
  type ToolTemplateAnswer,
  type ToolTemplateInput,
  toolState,
  verifyToolCallSignature,
} from '@agent-core/kits/tools'
import { describeTools } from './describe-tools.js'
import { prepareExecution, runPrepared, type SandboxTools } from './execute-sandbox.js'
import { readToolSet, type ToolSet } from './internal/tool-set.js'
import { resolveLimits, type SandboxLimits } from './sandbox-limits.js'
import {
  MemoryRecordingStore,
  type SandboxRecording,
  type SandboxRecordingStore,
} from './sandbox-recording.js'
import type { SandboxErrorInfo, SandboxLog, SandboxResult } from './sandbox-result.js'

/**
 * The input of a code tool: the script.
 * @example
 * ```ts
 * import type { CodeToolInput } from '@agent-core/kits/sandbox'
 * const input: CodeToolInput = { code: 'return (await lookup_order({ orderId: "A-17" })).total' }
 * ```
 */
export interface CodeToolInput {
  /** The script: the body of an async function, in TypeScript (or JavaScript). */
  readonly code: string
}

/**
 * What a code call gives the model: the script's JSON value and its console output, or its error.
 * @example
 * ```ts
 * import type { CodeToolOutput } from '@agent-core/kits/sandbox'
 * const output: CodeToolOutput = { ok: true, value: 120, logs: [] }
 * ```
 */
export type CodeToolOutput =
  | { readonly ok: true; readonly value?: JsonValue | undefined; readonly logs: readonly SandboxLog[] }
  | { readonly ok: false; readonly error: SandboxErrorInfo; readonly logs: readonly SandboxLog[] }

/**
 * Options of {@link defineCodeTool}.
 * @example
 * ```ts
 * import type { CodeToolOptions } from '@agent-core/kits/sandbox'
 * const options: CodeToolOptions = { tools: [], limits: { cpuTimeMs: 500 }, id: 'run_script' }
 * ```
 */
export interface CodeToolOptions<App = unknown> {
  /** The tools scripts may call, each through its lifecycle. */
  readonly tools: SandboxTools<App>
  /** What each script may use (see {@link SandboxLimits}); defaults for the rest. */
  readonly limits?: SandboxLimits | undefined
  /** The tool's id. Default `run_code`. */
  readonly id?: string | undefined
  /** What the model reads about the tool. Default: how to write a script, and the tools' declarations. */
  readonly description?: string | undefined
  /** `typescript` (default) or `javascript`. */
  readonly language?: 'typescript' | 'javascript' | undefined
  /**
   * Where each code call's recording is kept, keyed by its invocation id. Default: a new
   * {@link MemoryRecordingStore} (this process only); give a shared store to resume code calls in another
   * process or after a restart.
   */
  readonly recordings?: SandboxRecordingStore | undefined
  /**
   * Saves each host call in `recordings` before it runs and after it settles, so that a code call re-entered
   * after a crash (in a durable agent run) never runs a settled host call again, and runs the one in flight
   * again with the same invocation id (its idempotency key). Costs one more lifecycle pass and two store
   * writes per host call. Default false: the recording is saved when the call ends or waits.
   */
  readonly durable?: boolean | undefined
  /**
   * Signs every recording the code tool saves, and refuses (with an `UnauthorizedError`) a recording that
   * was changed or lost its signature before the code call runs again. Give it the agent's own
   * `decisionKeys` (current key first): the agent's signed approval of a code call covers the code, and
   * this signature covers the recording of the host calls the approval lets run (the same HMAC scheme,
   * `signToolCall`, over the whole recording). Without keys, whoever can write the store decides what an
   * approved code call runs: keep the store on the server.
   */
  readonly decisionKeys?: readonly DecisionKey[] | undefined
  /**
   * Keeps a script's globals across the code calls of one agent run: each script gets a `globals` object
   * holding what the previous code call of the run left in it, and what it leaves (once it ran to its end,
   * completed or failed) is saved as the tool's state in the run's state (the `tools` kit's `toolState`),
   * so a run resumed in another process gives the next script the same globals. Only plain JSON data is
   * kept: a key holding a function, a cycle, a `Map`, a `Date`, a class instance or `undefined` inside is
   * dropped, and the script's logs say which and why (`[globals] not kept: ...`, a `warn` the model reads).
   * A script stopped by a limit keeps nothing (the next one starts from the globals this one started with).
   * The code calls of one run then run one at a time. Needs an agent run (the loop keeps the state);
   * default false: every code call starts from a fresh global scope.
   */
  readonly keepGlobals?: boolean | undefined
}

/** What a code tool with `keepGlobals` keeps between its calls (its tool state's `kept`). */
interface KeptGlobals {
  readonly globals: Readonly<Record<string, JsonValue>>
}

/**
 * A code tool: a core `ModelTool` whose input is `{ code }`, and at the same time its own `tools` kit
 * lifecycle block (`tool` is itself; its `resume` hook hands a person's approval to the host calls the
 * script waits for, its `template` marks failed scripts as errors for the model). Give it to an agent, a
 * `ToolLifecycleRegistry`, or an MCP server like any tool.
 * @example
 * ```ts
 * import { defineCodeTool, type CodeTool } from '@agent-core/kits/sandbox'
 * import type { ModelTool } from '@agent-core/core/tools'
 * declare const lookupOrder: ModelTool
 * declare const refund: ModelTool
 * const runCode: CodeTool = defineCodeTool({ tools: [lookupOrder, refund] })
 * runCode.id // 'run_code'
 * ```
 */
export interface CodeTool<App = unknown>
  extends ModelTool<CodeToolInput, CodeToolOutput, App>,
    ToolLifecycle<CodeToolInput, CodeToolOutput, App> {
  /** The tool's id, also its lifecycle's. */
  readonly id: string
  /** Itself: the code tool is its own lifecycle block. */
  readonly tool: CodeTool<App>
  /** The TypeScript declarations of the tools (also in the default description). */
  readonly declarations: string
  /** Where the recordings of its calls are kept. */
  readonly recordings: SandboxRecordingStore
  /** True with `keepGlobals`: an agent gives its calls their tool state (the kept globals). */
  readonly keepsState: boolean
}

const INPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  required: ['code'],
  additionalProperties: false,
  properties: {
    code: {
      type: 'string',
      description: 'The body of an async function in TypeScript: use await, and return the result.',
    },
  },
})

const OUTPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  required: ['ok', 'logs'],
  properties: {
    ok: { type: 'boolean' },
    value: {},
    error: { type: 'object', required: ['kind', 'name', 'message'] },
    logs: {
      type: 'array',
      items: { type: 'object', required: ['level', 'text'] },
    },
  },
})

function defaultDescription(declarations: string, language: string, keepGlobals: boolean): string {
  return [
    `Runs a ${language === 'typescript' ? 'TypeScript (or JavaScript)' : 'JavaScript'} script in a sandbox and returns { ok, value, logs }: the JSON value the script returns and what it printed with console.*. Use it to call the functions below, several at once and with your own logic in between, in one step.`,
    'The script is the body of an async function: use await, and return the result. Each function takes one object and returns a Promise; run independent calls together with Promise.all. A failed call rejects with a ToolCallError (code, toolId).',
    keepGlobals
      ? 'There is no network, file system, timer or module loading. Math.random and Date are deterministic. Store what the next script should see as properties of the `globals` object (plain JSON data: objects, arrays, strings, numbers, booleans, null); everything else starts fresh each time. If the script fails you get { ok: false, error: { kind, name, message, line } }.'
      : 'There is no network, file system, timer or module loading. Math.random and Date are deterministic, and every run starts from a fresh global scope: return what you need to keep. If the script fails you get { ok: false, error: { kind, name, message, line } }.',
    '',
    '```ts',
    declarations.trimEnd(),
    '```',
  ].join('\n')
}

/** The tool state a code call with `keepGlobals` reads its globals from. */
function globalsState(context: ToolExecutionContext<unknown>): ToolState<JsonValue, KeptGlobals & JsonValue> {
  try {
    return toolState<JsonValue, KeptGlobals & JsonValue>(context)
  } catch (error) {
    throw new InvalidStateError(
      'A code tool with keepGlobals keeps its globals in the agent run it belongs to, and this call runs outside one (no tool state). Give the code tool to an agent (defineAgent({ tools: [codeTool] })), or leave keepGlobals out.',
      { cause: error, details: { field: 'keepGlobals', received: 'no tool state' } },
    )
  }
}

/** The reason a person reads about a code call whose script waits for them. */
function waitReason(waiting: readonly PendingToolCall[]): string {
  const describe = (call: PendingToolCall) => {
    let input = JSON.stringify(call.input)
    if (input.length > 300) input = `${input.slice(0, 297)}...`
    return `${call.toolId} ${input}: ${call.reason}`
  }
  if (waiting.length === 1) return `The script's call to ${describe(waiting[0]!)}`
  return `The script's calls wait for a person:\n${waiting.map((call) => `- ${describe(call)}`).join('\n')}`
}

const NO_DECISION =
  'The code tool ran again without seeing the decision about its call (its own resume hook was not registered), so the host call it waited for is refused. Register the code tool itself, not a lifecycle built around it.'
const POLICY_APPROVAL =
  "This host call asked for a person's approval; an approval of the code call by policy cannot give it. Ask a person to approve."

/** The options of {@link defineCodeTool}. */
const KNOWN_OPTIONS = [
  'tools',
  'limits',
  'id',
  'description',
  'language',
  'recordings',
  'durable',
  'decisionKeys',
  'keepGlobals',
]

/** A code tool's options, read and checked once: what each of its calls runs with. */
interface CodeToolSettings {
  readonly id: string
  /** The limits as given (each call's execution resolves them again). */
  readonly limits: SandboxLimits | undefined
  readonly language: 'typescript' | 'javascript'
  readonly set: ToolSet
  readonly recordings: SandboxRecordingStore
  readonly durable: boolean
  readonly keepGlobals: boolean
  readonly declarations: string
  readonly description: string
  /** The keys recordings are signed with (current key first), when there are any. */
  readonly keys: readonly DecisionKey[] | undefined
}

/** Refuses options that are not an object or that name an option defineCodeTool does not have. */
function refuseUnknownOptions(options: unknown): asserts options is Record<string, unknown> {
  if (typeof options !== 'object' || options === null) {
    refuseField(
      'definition',
      'options',
      `must be an object { tools, limits?, id?, description?, language?, recordings? }, but got ${describeValue(options)}`,
      options,
      { prefix: 'defineCodeTool: ' },
    )
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.includes(key)) {
      refuseField(
        'definition',
        `options.${key}`,
        `is not an option of defineCodeTool (${KNOWN_OPTIONS.join(', ')})`,
        (options as Record<string, unknown>)[key],
      )
    }
  }
}

/** `options.<name>`: a boolean, false when left out. */
function readBooleanOption(value: unknown, name: string): boolean {
  const flag = value ?? false
  if (typeof flag !== 'boolean') {
    refuseField('definition', `options.${name}`, `must be a boolean, but got ${describeValue(flag)}`, flag)
  }
  return flag
}

/** `options.recordings`: a recording store, an in-memory one when left out. */
function readRecordingStore(value: SandboxRecordingStore | undefined): SandboxRecordingStore {
  const recordings = value ?? new MemoryRecordingStore()
  if (
    typeof recordings !== 'object' ||
    recordings === null ||
    typeof recordings.get !== 'function' ||
    typeof recordings.set !== 'function'
  ) {
    refuseField(
      'definition',
      'options.recordings',
      `must be a recording store { get(key), set(key, recording) }, but got ${describeValue(recordings)}`,
      recordings,
    )
  }
  return recordings
}

/** `options.decisionKeys`: left out, or a non-empty array of keys. */
function readDecisionKeys(keys: readonly DecisionKey[] | undefined): readonly DecisionKey[] | undefined {
  if (
    keys !== undefined &&
    (!Array.isArray(keys) ||
      keys.length === 0 ||
      keys.some(
        (key) =>
          typeof key !== 'string' &&
          !(key instanceof Uint8Array) &&
          (typeof key !== 'object' || key === null),
      ))
  ) {
    refuseField(
      'definition',
      'options.decisionKeys',
      `must be a non-empty array of keys (strings, Uint8Arrays or HMAC CryptoKeys; current key first), but got ${describeValue(keys)}`,
      keys,
    )
  }
  return keys
}

/** Reads and checks the options of {@link defineCodeTool}, in the order their errors are reported. */
function readCodeToolOptions<App>(options: CodeToolOptions<App>): CodeToolSettings {
  refuseUnknownOptions(options)
  const limits = resolveLimits(options.limits, 'options.limits')
  const language = options.language ?? 'typescript'
  if (language !== 'typescript' && language !== 'javascript') {
    refuseField(
      'definition',
      'options.language',
      `must be "typescript" or "javascript", but got ${describeValue(language)}`,
      language,
    )
  }
  const set = readToolSet(options.tools, 'options.tools', limits.hostCallTimeoutMs)
  const recordings = readRecordingStore(options.recordings)
  const durable = readBooleanOption(options.durable, 'durable')
  const keepGlobals = readBooleanOption(options.keepGlobals, 'keepGlobals')
  if (keepGlobals && set.declarable.includes('globals')) {
    refuseField(
      'definition',
      'options.tools',
      'has a tool named "globals", and options.keepGlobals gives scripts a global `globals` of that name; rename that tool',
      options.tools,
      { details: { id: 'globals' }, received: 'a tool named "globals"' },
    )
  }
  const declarations = describeTools(set.registry)
  const description = options.description ?? defaultDescription(declarations, language, keepGlobals)
  if (typeof description !== 'string') {
    refuseField(
      'definition',
      'options.description',
      `must be a string, but got ${describeValue(description)}`,
      description,
    )
  }
  const keys = readDecisionKeys(options.decisionKeys)
  const id = options.id ?? 'run_code'
  return {
    id,
    limits: options.limits,
    language,
    set,
    recordings,
    durable,
    keepGlobals,
    declarations,
    description,
    keys,
  }
}

/** Saves and loads a code tool's recordings: signed, and refused when the signature fails, when it has keys. */
interface SignedRecordings {
  save(key: string, recording: SandboxRecording): Promise<void>
  load(key: string): Promise<SandboxRecording | undefined>
}

/** The recordings of tool `toolId` in `recordings`, signed with `keys` when there are any. */
function signedRecordings(
  recordings: SandboxRecordingStore,
  keys: readonly DecisionKey[] | undefined,
  toolId: string,
): SignedRecordings {
  /** What a recording's signature covers: the whole recording, under its key, for this tool. */
  const signable = (key: string, recording: SandboxRecording) => ({
    runId: recording.id,
    toolCallId: 'sandbox-recording',
    invocationId: key,
    toolId,
    input: recording as unknown as JsonValue,
  })
  return {
    /** Saves a recording, signed when the tool has keys. */
    async save(key, recording) {
      if (keys === undefined) return recordings.set(key, recording)
      const { signature: _old, ...rest } = recording
      const signature = await signToolCall(signable(key, rest), keys[0]!)
      return recordings.set(key, { ...rest, signature })
    },
    /** Reads a recording, refusing one whose signature does not cover it (when the tool has keys). */
    async load(key) {
      const stored = await recordings.get(key)
      if (stored === undefined || keys === undefined) return stored
      const { signature, ...rest } = stored
      if (!(await verifyToolCallSignature(signable(key, rest), signature, keys))) {
        throw new UnauthorizedError(
          `The recording of code call "${key}" is not the one this code tool saved (it was changed, or its signature is missing or made with another key); it is refused, and none of its host calls runs.`,
          { details: { field: 'recordings', toolCallId: key } },
        )
      }
      return rest
    },
  }
}

/**
 * The decisions a resumed pass gives the host calls its recording left waiting (not those still running):
 * approved when a person approved the code call, refused otherwise (no decision seen, or one by policy).
 */
function decisionsForWaitingCalls(
  stored: SandboxRecording | undefined,
  decision: ApproveDecision | undefined,
): Record<string, ToolDecision> {
  const decisions: Record<string, ToolDecision> = {}
  for (const call of stored?.calls ?? []) {
    if (call.status !== 'pending' || stored?.running?.includes(call.toolCallId)) continue
    decisions[call.toolCallId] =
      decision?.by === 'person'
        ? { type: 'approve', toolCallId: call.toolCallId, by: 'person' }
        : {
            type: 'reject',
            toolCallId: call.toolCallId,
            by: 'policy',
            reason: decision === undefined ? NO_DECISION : POLICY_APPROVAL,
          }
  }
  return decisions
}

/** What a code call gives the model for its script's result; a script that waits for a person throws. */
function codeCallOutput(result: SandboxResult, toolId: string): CodeToolOutput {
  switch (result.status) {
    case 'completed':
      return result.value === undefined
        ? { ok: true, logs: result.logs }
        : { ok: true, value: result.value, logs: result.logs }
    case 'failed':
      return { ok: false, error: result.error, logs: result.logs }
    case 'suspended': {
      const reason = waitReason(result.waiting)
      throw new ApprovalRequiredError(reason, {
        details: { reason, toolId, pending: result.waiting[0] },
      })
    }
  }
}

/**
 * Defines a code tool: the model writes a script (TypeScript or JavaScript), and QuickJS runs it with
 * `tools` as its library (see {@link executeSandbox}). Each host call goes through its tool's lifecycle,
 * approvals and time limits included. When a host call needs a person, the whole code call waits like any
 * call that needs approval (the agent loop suspends or asks its resolver, with the host calls in the
 * reason); once a person approves the code call, the script runs again from the start, the host calls it
 * already made answer from its recording (no side effect happens twice), and the waiting ones run. A
 * refusal by the person settles the code call as refused.
 *
 * Each call starts from a fresh global scope: nothing a script leaves behind is seen by the next call (the
 * model keeps what it needs through the values scripts return), unless `keepGlobals` keeps the plain-JSON
 * `globals` of the calls of one agent run. Recordings are kept in `recordings` under
 * the call's invocation id, which a resumed or re-entered call keeps.
 * @throws `InvalidDefinitionError` for malformed options or tools
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { defineCodeTool } from '@agent-core/kits/sandbox'
 * const lookupOrder = defineModelTool<{ orderId: string }, { total: number }>({
 *   id: 'lookup_order',
 *   description: 'Finds an order by id',
 *   inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
 *   execute: () => ({ total: 120 }),
 * })
 * const runCode = defineCodeTool({ tools: [lookupOrder], limits: { cpuTimeMs: 500 } })
 * // defineAgent({ model, tools: [runCode] })
 * ```
 */
export function defineCodeTool<App = unknown>(options: CodeToolOptions<App>): CodeTool<App> {
  const settings = readCodeToolOptions(options)
  const { id, language, set, durable, keepGlobals } = settings
  const store = signedRecordings(settings.recordings, settings.keys, id)
  /** The decision a resumed pass carries, handed from the resume hook to the execution that follows it. */
  const decided = new Map<string, ApproveDecision>()

  async function execute(input: CodeToolInput, context: ToolExecutionContext<App>): Promise<CodeToolOutput> {
    const key = context.invocationId
    const decision = decided.get(key)
    decided.delete(key)
    const stored = await store.load(key)
    const decisions = decisionsForWaitingCalls(stored, decision)
    const state = keepGlobals ? globalsState(context) : undefined
    const prepared = prepareExecution(input.code, set.registry, {
      limits: settings.limits,
      language,
      context,
      ...(state === undefined ? {} : { globals: state.kept?.globals ?? {} }),
      ...(stored === undefined ? { id: key } : { recording: stored, decisions }),
      ...(durable ? { onProgress: (recording: SandboxRecording) => store.save(key, recording) } : {}),
    })
    const result = await runPrepared(prepared, false)
    await store.save(key, result.recording)
    // Applied only when this call returns: a code call that waits for a person runs again from the
    // globals it started with.
    if (state !== undefined && result.status !== 'suspended') state.keep({ globals: result.globals ?? {} })
    return codeCallOutput(result, id)
  }

  const codeTool = {
    id,
    description: settings.description,
    inputSchema: INPUT_SCHEMA,
    outputSchema: OUTPUT_SCHEMA,
    declarations: settings.declarations,
    recordings: settings.recordings,
    keepsState: keepGlobals,
    execute,
    resume(call: ResumedToolCallView<CodeToolInput>): void {
      decided.set(call.invocationId, call.decision)
    },
    template(input: ToolTemplateInput): ToolTemplateAnswer {
      if (input.status !== 'completed') return undefined
      const output = input.output as CodeToolOutput | undefined
      return output?.ok === false ? { content: JSON.stringify(output), isError: true } : undefined
    },
  } as unknown as { -readonly [K in keyof CodeTool<App>]: CodeTool<App>[K] }
  codeTool.tool = codeTool as CodeTool<App>
  defineModelTool(codeTool as CodeTool<App>)
  return Object.freeze(codeTool) as CodeTool<App>
}
