import {
  AgentCoreError,
  type AgentCoreErrorOptions,
  assertNotThenable,
  describeValue,
  type ErrorDetails,
  FieldReader,
  type FieldReaderContext,
  InvalidStateError,
  isThenable,
  type JsonSchema,
  type JsonSchemaValidator,
  type OperationContext,
  refuseField,
  type Schema,
} from '@agent-core/core'
import {
  compileSchema,
  defineModelTool,
  type ModelTool,
  type ToJSONSchema,
  type ToolExecutionContext,
} from '@agent-core/core/tools'
import {
  type ToolCallView,
  type ToolLifecycle,
  type ToolLifecycleHooks,
  ToolRejectedError,
} from '@agent-core/kits/tools'
import { isRecord } from './internal/check.js'

/**
 * What an approval policy answers for one call: run it (`allow`), ask a person first (`ask`), or refuse it
 * (`deny`, the model reads the reason). The object forms carry the reason shown to the person or the model.
 * @example
 * ```ts
 * import type { ApprovalAnswer } from '@agent-core/kits/loop'
 * const answer: ApprovalAnswer = { type: 'ask', reason: 'Refunds above 100 need a manager.' }
 * ```
 */
export type ApprovalAnswer =
  | 'allow'
  | 'ask'
  | 'deny'
  | { readonly type: 'ask' | 'deny'; readonly reason: string }

/**
 * An approval policy as a function of the call: synchronous, because it runs as the tool lifecycle's
 * `authorize` stage. It is called on the options object it was given (or their `receiver`).
 * @example
 * ```ts
 * import type { ApprovalPolicy } from '@agent-core/kits/loop'
 * const policy: ApprovalPolicy<{ amount: number }> = (call) => (call.input.amount > 100 ? 'ask' : 'allow')
 * ```
 */
export type ApprovalPolicy<Input = unknown, App = unknown> = (
  call: ToolCallView<Input>,
  context: OperationContext<App>,
) => ApprovalAnswer

/**
 * What happens to a call that was running when the process died, once the run is re-entered from its last
 * saved progress: a `safe` tool simply runs again; a `keyed` tool (the default) is saved before it runs and
 * re-entered with the same invocation id, which it uses as an idempotency key for its side effect.
 * @example
 * ```ts
 * import type { ToolReplayPolicy } from '@agent-core/kits/loop'
 * const lookups: ToolReplayPolicy = 'safe'
 * ```
 */
export type ToolReplayPolicy = 'safe' | 'keyed'

/**
 * How an agent tool's calls are carried out: `local` tools execute in the run, `external` tools are run by
 * the host (the run waits for their result), `question` tools ask a person (the run waits for the answer).
 * @example
 * ```ts
 * import type { AgentToolKind } from '@agent-core/kits/loop'
 * const kind: AgentToolKind = 'external'
 * ```
 */
export type AgentToolKind = 'local' | 'external' | 'question'

/**
 * What an agent adds to a tool's lifecycle hooks: the approval policy (the lifecycle's `authorize` stage),
 * a per-tool turn cap and the replay policy for durable runs.
 * @example
 * ```ts
 * import type { AgentToolOptions } from '@agent-core/kits/loop'
 * const options: AgentToolOptions<{ amount: number }> = {
 *   approval: (call) => (call.input.amount > 100 ? 'ask' : 'allow'),
 *   maxTurns: 3,
 *   replayPolicy: 'keyed',
 * }
 * ```
 */
export interface AgentToolOptions<Input = unknown, Output = unknown, App = unknown>
  extends ToolLifecycleHooks<Input, Output, App> {
  /**
   * `false` or `'allow'` (the default) runs every call; `true` or `'ask'` asks a person first; `'deny'`
   * refuses; a function of the call answers per call. Runs after the tool's own `authorize` hook.
   */
  readonly approval?: boolean | ApprovalAnswer | ApprovalPolicy<Input, App> | undefined
  /** In how many turns of one run the tool may be called (a safe integer of at least 1). Default: no cap. */
  readonly maxTurns?: number | undefined
  /** See {@link ToolReplayPolicy}. Default `keyed`. */
  readonly replayPolicy?: ToolReplayPolicy | undefined
  /**
   * Gives each call the tool's state in the run: read it in `execute` with the `tools` kit's
   * `toolState(context)` (how many calls returned before, what the last one returned, what it kept with
   * `keep`). The run saves it in its state (`AgentRunState.toolState`), so a resumed run, in this process
   * or another, reads the same; the tool's calls in one run then run one at a time. Its results (and kept
   * data) must be plain JSON. Local tools only. Default false (a tool that carries `keepsState: true`, such
   * as a code tool with `keepGlobals`, keeps state without it).
   */
  readonly keepState?: boolean | undefined
}

/** A normalized approval: a constant answer or a function of the call. */
type Approval =
  | { readonly type: 'allow' }
  | { readonly type: 'ask' | 'deny'; readonly reason: string }
  | { readonly type: 'policy'; readonly policy: ApprovalPolicy<unknown, unknown>; readonly holder: object }

type HookName = 'inspect' | 'authorize' | 'resume' | 'complete' | 'finalize' | 'template'
const HOOKS: readonly HookName[] = ['inspect', 'authorize', 'resume', 'complete', 'finalize', 'template']

/**
 * A tool as an agent runs it: a core `ModelTool` with its lifecycle hooks, the approval policy, the
 * per-tool turn cap and the replay policy. Build it with {@link defineAgentTool},
 * {@link defineExternalTool} or {@link defineQuestionTool}; plain `ModelTool`s and tool lifecycles given
 * to an agent become agent tools with the defaults.
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { type AgentTool, defineAgentTool } from '@agent-core/kits/loop'
 * const weather: AgentTool = defineAgentTool(
 *   defineModelTool({ id: 'weather', description: 'Current weather', inputSchema: {}, execute: () => 'sunny' }),
 *   { replayPolicy: 'safe' },
 * )
 * ```
 */
export interface AgentTool<Input = unknown, Output = unknown, App = unknown> {
  /** The tool's id (the name the model calls it by). */
  readonly id: string
  /** Who answers a call: the tool itself (`local`), the host (`external`) or a person (`question`). */
  readonly kind: AgentToolKind
  /** The core model tool it wraps. */
  readonly tool: ModelTool<Input, Output, App>
  /** In how many turns of a run it may be called; `undefined` for no cap of its own. */
  readonly maxTurns: number | undefined
  /** How a call that was running at a crash is re-entered: `safe` runs again, `keyed` runs with the same invocation id. */
  readonly replayPolicy: ToolReplayPolicy
  /** Question tools: the JSON Schema an answer must match (a Standard Schema's converted). */
  readonly answerSchema: JsonSchema | undefined
  /** Whether its calls get the tool's state in the run (see {@link AgentToolOptions.keepState}). */
  readonly keepState: boolean
}

/** What the agent keeps of an agent tool to compose its lifecycle. */
interface AgentToolSpec {
  readonly hooks: Partial<Record<HookName, (...args: never[]) => unknown>>
  readonly receiver: object
  readonly timeoutMs: number | undefined
  readonly approval: Approval
  readonly question: ((input: unknown) => unknown) | undefined
  readonly answerValidator: JsonSchemaValidator | undefined
}

const specs = new WeakMap<AgentTool<unknown, unknown, unknown>, AgentToolSpec>()

function isLifecycle(value: object): value is ToolLifecycle<unknown, unknown, unknown> {
  return isRecord((value as { tool?: unknown }).tool) && typeof (value as { id?: unknown }).id === 'string'
}

/** True for an object built by {@link defineAgentTool}, {@link defineExternalTool} or {@link defineQuestionTool}. */
export function isAgentTool(value: unknown): value is AgentTool {
  return typeof value === 'object' && value !== null && specs.has(value as AgentTool)
}

/** What a refusal of a tool's option starts with and carries: the tool's id. */
function toolContext(id: string): FieldReaderContext {
  return { prefix: `Tool "${id}": `, details: { id } }
}

function readApproval(value: unknown, holder: object, id: string): Approval {
  if (value === undefined || value === false || value === 'allow') return { type: 'allow' }
  if (value === true || value === 'ask')
    return { type: 'ask', reason: `Calls to ${id} need a person's approval.` }
  if (value === 'deny') return { type: 'deny', reason: `Calls to ${id} are not allowed.` }
  if (typeof value === 'function') return { type: 'policy', policy: value as ApprovalPolicy, holder }
  const answer = approvalAnswer(value)
  if (answer === undefined) {
    refuseField(
      'definition',
      'approval',
      `must be a boolean, "allow", "ask", "deny", { type: "ask" | "deny", reason } or a function of the call, but got ${describeValue(value)}`,
      value,
      toolContext(id),
    )
  }
  return answer
}

/** Reads an approval answer; `undefined` when it is not one. */
function approvalAnswer(value: unknown): Exclude<Approval, { type: 'policy' }> | undefined {
  if (value === 'allow') return { type: 'allow' }
  if (value === 'ask' || value === 'deny') return { type: value, reason: '' }
  if (!isRecord(value)) return undefined
  const keys = Object.keys(value)
  const { type, reason } = value
  if (keys.length !== 2 || (type !== 'ask' && type !== 'deny') || typeof reason !== 'string' || reason === '')
    return undefined
  return { type, reason }
}

function build<Input, Output, App>(
  tool: ModelTool<Input, Output, App>,
  kind: AgentToolKind,
  lifecycle: ToolLifecycle<unknown, unknown, unknown> | undefined,
  options: unknown,
  extra: {
    question?: ((input: unknown) => unknown) | undefined
    answer?: { readonly jsonSchema: JsonSchema; readonly validator: JsonSchemaValidator } | undefined
    holder?: object | undefined
  } = {},
): AgentTool<Input, Output, App> {
  const id = tool.id
  const given = options ?? {}
  const context = toolContext(id)
  if (typeof given !== 'object' || given === null) {
    refuseField(
      'definition',
      'options',
      `must be an object (or a class instance holding the hooks), but got ${describeValue(given)}`,
      given,
      context,
    )
  }
  // A plain object is read strictly (unknown fields refused); a class instance keeps its prototype methods.
  const prototype = Object.getPrototypeOf(given)
  const fields =
    prototype === Object.prototype || prototype === null
      ? new FieldReader(given, 'options', `the options of tool "${id}"`, 'definition')
      : undefined
  const read = (key: string): unknown => (fields ? fields.get(key) : (given as Record<string, unknown>)[key])
  const hooks: Partial<Record<HookName, (...args: never[]) => unknown>> = {}
  let timeoutMs: unknown
  const source = lifecycle ?? given
  for (const name of HOOKS) {
    const hook = lifecycle ? (lifecycle as unknown as Record<string, unknown>)[name] : read(name)
    if (lifecycle && read(name) !== undefined) {
      refuseField(
        'definition',
        name,
        'cannot be given in the options: the tool lifecycle already has its hooks',
        read(name),
        context,
      )
    }
    if (hook === undefined) continue
    if (typeof hook !== 'function')
      refuseField('definition', name, 'must be a function or be left out', hook, context)
    hooks[name] = hook as (...args: never[]) => unknown
  }
  const ownReceiver = lifecycle ? lifecycle.receiver : read('receiver')
  if (ownReceiver !== undefined && (typeof ownReceiver !== 'object' || ownReceiver === null)) {
    refuseField(
      'definition',
      'receiver',
      'must be an object (the `this` of the hooks) or be left out',
      ownReceiver,
      context,
    )
  }
  const receiver: object = (ownReceiver as object | undefined) ?? extra.holder ?? source
  if (lifecycle) {
    timeoutMs = lifecycle.timeoutMs
    if (read('receiver') !== undefined)
      refuseField(
        'definition',
        'receiver',
        'cannot be given in the options of a tool lifecycle',
        read('receiver'),
        context,
      )
    if (read('timeoutMs') !== undefined)
      refuseField(
        'definition',
        'timeoutMs',
        'cannot be given in the options of a tool lifecycle',
        read('timeoutMs'),
        context,
      )
  } else {
    timeoutMs = read('timeoutMs')
  }
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== 'number' ||
      !Number.isSafeInteger(timeoutMs) ||
      timeoutMs < 1 ||
      timeoutMs > 2_147_483_647)
  ) {
    refuseField(
      'definition',
      'timeoutMs',
      `must be a safe integer from 1 to 2147483647 (ms), but got ${describeValue(timeoutMs)}`,
      timeoutMs,
      context,
    )
  }
  const approval = readApproval(read('approval'), receiver, id)
  const maxTurns = read('maxTurns')
  if (
    maxTurns !== undefined &&
    (typeof maxTurns !== 'number' || !Number.isSafeInteger(maxTurns) || maxTurns < 1)
  ) {
    refuseField(
      'definition',
      'maxTurns',
      `must be a safe integer of at least 1 or be left out, but got ${describeValue(maxTurns)}`,
      maxTurns,
      context,
    )
  }
  const replayPolicy = read('replayPolicy') ?? 'keyed'
  if (replayPolicy !== 'safe' && replayPolicy !== 'keyed') {
    refuseField(
      'definition',
      'replayPolicy',
      `must be "safe" or "keyed", but got ${describeValue(replayPolicy)}`,
      replayPolicy,
      context,
    )
  }
  const keepStateValue = read('keepState')
  if (keepStateValue !== undefined && typeof keepStateValue !== 'boolean') {
    refuseField(
      'definition',
      'keepState',
      `must be a boolean or be left out, but got ${describeValue(keepStateValue)}`,
      keepStateValue,
      context,
    )
  }
  const carries = (value: unknown) => isRecord(value) && value.keepsState === true
  const keepState: boolean =
    (keepStateValue as boolean | undefined) ??
    (carries(tool) || carries(lifecycle) || (lifecycle !== undefined && carries(lifecycle.tool)))
  if (keepState && kind !== 'local') {
    refuseField(
      'definition',
      'keepState',
      `is for tools the run executes; ${kind === 'external' ? 'the host runs' : 'a person answers'} this one, so it has no state in the run. Leave keepState out`,
      keepState,
      context,
    )
  }
  fields?.done()
  const agentTool: AgentTool<Input, Output, App> = Object.freeze({
    id,
    kind,
    tool,
    maxTurns: maxTurns as number | undefined,
    replayPolicy: replayPolicy as ToolReplayPolicy,
    answerSchema: extra.answer?.jsonSchema,
    keepState,
  })
  specs.set(agentTool as AgentTool<unknown, unknown, unknown>, {
    hooks,
    receiver,
    timeoutMs: timeoutMs as number | undefined,
    approval,
    question: extra.question,
    answerValidator: extra.answer?.validator,
  })
  return agentTool
}

/**
 * Makes an agent tool from a core `ModelTool` (hooks and agent options in `options`) or from a tool
 * lifecycle of the `tools` kit (its own hooks; `options` adds only `approval`, `maxTurns` and
 * `replayPolicy`). The approval policy becomes part of the lifecycle's `authorize` stage.
 * @throws `InvalidDefinitionError` for a tool that is not a core tool, a malformed option or an unknown field
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { defineAgentTool } from '@agent-core/kits/loop'
 * const refund = defineAgentTool(
 *   defineModelTool<{ amount: number }, string>({
 *     id: 'refund',
 *     description: 'Refunds an order',
 *     inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
 *     execute: ({ amount }, { invocationId }) => `refunded ${amount} (key ${invocationId})`,
 *   }),
 *   { approval: (call) => (call.input.amount > 100 ? 'ask' : 'allow') },
 * )
 * ```
 */
export function defineAgentTool<Input, Output, App>(
  tool: ModelTool<Input, Output, App> | ToolLifecycle<Input, Output, App>,
  options?: AgentToolOptions<Input, Output, App>,
): AgentTool<Input, Output, App> {
  if (typeof tool !== 'object' || tool === null) {
    refuseField(
      'definition',
      'tool',
      `must be a core ModelTool (defineModelTool) or a tool lifecycle, but got ${describeValue(tool)}`,
      tool,
      { prefix: 'defineAgentTool: ' },
    )
  }
  if (isLifecycle(tool)) {
    const modelTool = defineModelTool<Input, Output, App>(tool.tool as ModelTool<Input, Output, App>)
    if (modelTool.id !== tool.id) {
      refuseField('definition', 'id', `must equal the id of the tool it runs ("${modelTool.id}")`, tool.id, {
        prefix: `Tool lifecycle "${tool.id}": `,
        details: { id: tool.id },
      })
    }
    return build(modelTool, 'local', tool as ToolLifecycle<unknown, unknown, unknown>, options)
  }
  const modelTool = defineModelTool<Input, Output, App>(tool as ModelTool<Input, Output, App>)
  return build(modelTool, 'local', undefined, options)
}

/**
 * A failure reported by the host for an external tool call (or a question a person declined to answer).
 * The model reads its message; `tool-failed` events carry it.
 * @example
 * ```ts
 * import { ExternalToolError } from '@agent-core/kits/loop'
 * declare const error: unknown // a caught error
 * if (ExternalToolError.isInstance(error)) console.log(error.details.toolId, error.message)
 * ```
 */
export class ExternalToolError extends AgentCoreError<ErrorDetails & { readonly toolId?: string }> {
  static override readonly code = 'external-tool-failed'
  declare readonly code: 'external-tool-failed'
  constructor(message: string, options?: AgentCoreErrorOptions<ErrorDetails & { readonly toolId?: string }>) {
    super('external-tool-failed', message, options)
  }
}

/** The `execute` of a tool the host runs: never called by an agent (its lifecycle waits for the host). */
function hostExecute(toolId: string) {
  return (_input: unknown, context: ToolExecutionContext<unknown>): unknown => {
    throw new InvalidStateError(
      `Tool "${toolId}" is run by the host, so it cannot be executed here (invocation "${context.invocationId}"). Run it through an agent, which waits for its result, and resume the run with the call's result (outcome type "result" or "answer").`,
      { details: { field: 'outcomes', received: 'no result' } },
    )
  }
}

/**
 * What {@link defineExternalTool} takes: the tool as the model sees it, and the agent options.
 * @example
 * ```ts
 * import type { ExternalToolDefinition } from '@agent-core/kits/loop'
 * const definition: ExternalToolDefinition<{ url: string }> = {
 *   id: 'open_page',
 *   description: 'Opens a page in the user’s browser',
 *   inputSchema: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } },
 * }
 * ```
 */
export interface ExternalToolDefinition<Input = unknown, Output = unknown, App = unknown>
  extends AgentToolOptions<Input, Output, App> {
  /** The tool's id: letters, digits, `_` and `-`. */
  readonly id: string
  /** What the tool does, for the model. */
  readonly description: string
  /** The schema of the call's input: a JSON Schema or a Standard Schema (zod, valibot, arktype, ...). */
  readonly inputSchema: Schema<Input>
  /** When given, the host's result is checked against it (a mismatch is a failed call the model reads). */
  readonly outputSchema?: Schema<Output> | undefined
  /** Writes the JSON Schema the model reads for a Standard Schema that carries none (see `ModelTool`). */
  readonly toJSONSchema?: ToJSONSchema | undefined
}

function splitDefinition(definition: unknown, what: string, own: readonly string[]) {
  if (!isRecord(definition))
    refuseField(
      'definition',
      'definition',
      `must be ${what}, but got ${describeValue(definition)}`,
      definition,
    )
  const toolPart: Record<string, unknown> = {}
  const options: Record<string, unknown> = {}
  for (const key of Object.keys(definition)) {
    if (own.includes(key)) toolPart[key] = definition[key]
    else options[key] = definition[key]
  }
  return { toolPart, options }
}

/**
 * A tool the host runs itself (in a browser, on another service, by hand): when the model calls it, the run
 * suspends with the call pending (`waitingFor: 'external'`), and a later run resumes it with the result
 * (`{ type: 'result', output }`) or a failure (`{ type: 'failure', message }`), which enter the tool's
 * lifecycle like an execution (output schema, templates, finalize hooks). Its approval policy applies first.
 * @throws `InvalidDefinitionError` for a malformed definition
 * @example
 * ```ts
 * import { defineExternalTool } from '@agent-core/kits/loop'
 * const openPage = defineExternalTool<{ url: string }, { title: string }>({
 *   id: 'open_page',
 *   description: 'Opens a page in the user’s browser and returns its title',
 *   inputSchema: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } },
 * })
 * ```
 */
export function defineExternalTool<Input = unknown, Output = unknown, App = unknown>(
  definition: ExternalToolDefinition<Input, Output, App>,
): AgentTool<Input, Output, App> {
  const { toolPart, options } = splitDefinition(definition, 'an external tool definition (an object)', [
    'id',
    'description',
    'inputSchema',
    'outputSchema',
    'toJSONSchema',
  ])
  const tool = defineModelTool<Input, Output, App>({
    ...(toolPart as unknown as Omit<ModelTool<Input, Output, App>, 'execute'>),
    execute: hostExecute(String(toolPart.id)) as ModelTool<Input, Output, App>['execute'],
  })
  return build(tool, 'external', undefined, options, { holder: definition as object })
}

/**
 * What {@link defineQuestionTool} takes: the tool as the model sees it, the question it puts to a person
 * and the JSON Schema of the answer.
 * @example
 * ```ts
 * import type { QuestionToolDefinition } from '@agent-core/kits/loop'
 * const definition: QuestionToolDefinition<{ options: string[] }, string> = {
 *   id: 'choose_account',
 *   description: 'Asks the user which account to use',
 *   inputSchema: { type: 'object', required: ['options'], properties: { options: { type: 'array', items: { type: 'string' } } } },
 *   answerSchema: { type: 'string' },
 *   question: ({ options }) => `Which account: ${options.join(', ')}?`,
 * }
 * ```
 */
export interface QuestionToolDefinition<Input = unknown, Answer = unknown, App = unknown>
  extends AgentToolOptions<Input, Answer, App> {
  /** The tool's id: letters, digits, `_` and `-`. */
  readonly id: string
  /** What the question is for, for the model. */
  readonly description: string
  /** The schema of the call's input (what the model passes to ask): JSON Schema or a Standard Schema. */
  readonly inputSchema: Schema<Input>
  /**
   * The answer must match it; it is also the tool's output schema. A JSON Schema, or a Standard Schema
   * whose validation is synchronous (its JSON Schema is what a waiting call shows the person).
   */
  readonly answerSchema: Schema<Answer>
  /** Writes the JSON Schema for a Standard Schema that carries none (see `ModelTool`). */
  readonly toJSONSchema?: ToJSONSchema | undefined
  /** The question shown to the person, from the call's input (synchronous). */
  question(input: Input): string
}

/**
 * A tool through which the model asks a person a question with a typed answer. The call waits
 * (`waitingFor: 'question'`, with the question's text and the answer's schema): a run with an
 * `answerQuestion` resolver asks it there and then; with deferral, the run suspends and is resumed with
 * `{ type: 'answer', value }`. The answer is checked against `answerSchema` and becomes the tool's output,
 * which the model reads.
 * @throws `InvalidDefinitionError` for a malformed definition or answer schema
 * @example
 * ```ts
 * import { defineQuestionTool } from '@agent-core/kits/loop'
 * const chooseAccount = defineQuestionTool<{ options: string[] }, { account: string }>({
 *   id: 'choose_account',
 *   description: 'Asks the user which account to use',
 *   inputSchema: { type: 'object', required: ['options'], properties: { options: { type: 'array', items: { type: 'string' } } } },
 *   answerSchema: { type: 'object', required: ['account'], properties: { account: { type: 'string' } } },
 *   question: ({ options }) => `Which account should I use: ${options.join(', ')}?`,
 * })
 * ```
 */
export function defineQuestionTool<Input = unknown, Answer = unknown, App = unknown>(
  definition: QuestionToolDefinition<Input, Answer, App>,
): AgentTool<Input, Answer, App> {
  const { toolPart, options } = splitDefinition(definition, 'a question tool definition (an object)', [
    'id',
    'description',
    'inputSchema',
    'answerSchema',
    'question',
    'toJSONSchema',
  ])
  const { answerSchema, question, ...rest } = toolPart
  const context = { prefix: `Question tool ${describeValue(rest.id)}: ` }
  if (typeof question !== 'function') {
    refuseField(
      'definition',
      'question',
      `must be a function of the input returning the question's text, but got ${describeValue(question)}`,
      question,
      context,
    )
  }
  if (answerSchema === undefined)
    refuseField(
      'definition',
      'answerSchema',
      'is required: the JSON Schema every answer must match',
      answerSchema,
      context,
    )
  const tool = defineModelTool<Input, Answer, App>({
    ...(rest as unknown as Omit<ModelTool<Input, Answer, App>, 'execute'>),
    outputSchema: answerSchema as Schema<Answer>,
    execute: hostExecute(String(rest.id)) as ModelTool<Input, Answer, App>['execute'],
  })
  const holder = definition as object
  return build(tool, 'question', undefined, options, {
    question: (input) => Reflect.apply(question, holder, [input]),
    answer: answerCheck(
      String(rest.id),
      answerSchema as Schema<Answer>,
      rest.toJSONSchema as ToJSONSchema | undefined,
    ),
    holder,
  })
}

/** A question tool's answer schema compiled: the JSON Schema a person is shown and a synchronous check. */
function answerCheck(
  id: string,
  answerSchema: Schema,
  toJSONSchema: ToJSONSchema | undefined,
): { readonly jsonSchema: JsonSchema; readonly validator: JsonSchemaValidator } {
  const compiled = compileSchema(answerSchema, {
    what: `Question tool "${id}" answerSchema`,
    field: 'answerSchema',
    toJSONSchema,
  })
  const validator: JsonSchemaValidator = {
    schema: compiled.jsonSchema,
    validate(value) {
      const result = compiled.validate(value)
      if (isThenable(result)) {
        void Promise.resolve(result).catch(() => {})
        return {
          ok: false,
          issues: [
            {
              path: '/',
              keyword: 'schema',
              message: `could not be checked: the answerSchema of question tool "${id}" validates asynchronously; give it a synchronous schema`,
            },
          ],
        }
      }
      return result.ok ? { ok: true } : result
    },
  }
  return { jsonSchema: compiled.jsonSchema, validator }
}

/** An agent tool from anything an agent's `tools` list accepts. */
export function toAgentTool(entry: unknown, field: string): AgentTool {
  if (isAgentTool(entry)) return entry
  if (typeof entry !== 'object' || entry === null) {
    refuseField(
      'definition',
      field,
      `must be an agent tool, a core ModelTool or a tool lifecycle, but got ${describeValue(entry)}`,
      entry,
    )
  }
  return defineAgentTool(entry as ModelTool)
}

/**
 * The question a question tool asks for this input (its `question` function, checked like the hook it is).
 * @throws `RejectedThenableError` or `InvalidOutputError` when it does not return a non-empty string
 */
export function questionText(tool: AgentTool, input: unknown): string {
  const hook = `question tool "${tool.id}" question`
  const text = assertNotThenable(specs.get(tool)?.question?.(input), hook)
  if (typeof text !== 'string' || text.trim() === '') {
    refuseField(
      'output',
      hook,
      `must return the question as a non-empty string, but returned ${describeValue(text)}`,
      text,
      { details: { hook } },
    )
  }
  return text
}

/** The JSON Schema validator of a question tool's answers. */
export function answerValidatorOf(tool: AgentTool): JsonSchemaValidator | undefined {
  return specs.get(tool)?.answerValidator
}

function decide(approval: Approval, call: ToolCallView, context: OperationContext<unknown>, id: string) {
  if (approval.type !== 'policy') return approval
  const hook = `tool "${id}" approval`
  const answered = assertNotThenable(Reflect.apply(approval.policy, approval.holder, [call, context]), hook)
  const answer = approvalAnswer(answered)
  if (answer === undefined) {
    refuseField(
      'output',
      hook,
      `must answer "allow", "ask", "deny" or { type: "ask" | "deny", reason }, but answered something else. Return one of these synchronously`,
      answered,
      { details: { hook } },
    )
  }
  return answer
}

/**
 * The tool lifecycle an agent registers for an agent tool: the tool's own hooks, called on their receiver,
 * an `authorize` stage composed of the tool's own `authorize`, then the approval policy (a wait for a
 * person, as a value), and for external and question tools `awaitHost` (the call waits for the host's
 * result at its execution). The run's save-before-run stage is the registry's `saveBeforeRun` option.
 */
export function composeLifecycle(agentTool: AgentTool): ToolLifecycle<unknown, unknown, unknown> {
  const spec = specs.get(agentTool)!
  const { id, kind } = agentTool
  const { hooks, receiver, approval } = spec
  const own = hooks.authorize
  const block: Record<string, unknown> = { id, tool: agentTool.tool, receiver }
  if (spec.timeoutMs !== undefined) block.timeoutMs = spec.timeoutMs
  for (const name of HOOKS) if (name !== 'authorize' && hooks[name]) block[name] = hooks[name]
  block.authorize = (call: ToolCallView, context: OperationContext<unknown>): unknown => {
    if (own) {
      const returned = Reflect.apply(own, receiver, [call, context])
      if (returned !== undefined) return returned
    }
    const answer = decide(approval, call, context, id)
    if (answer.type === 'deny') {
      const reason = answer.reason || `Calls to ${id} are not allowed.`
      throw new ToolRejectedError(reason, {
        details: { reason, by: 'policy', toolId: id, toolCallId: call.toolCallId },
      })
    }
    if (answer.type === 'ask') {
      return { waitingFor: 'approval', reason: answer.reason || `Calls to ${id} need a person's approval.` }
    }
    return undefined
  }
  // The tools the host runs (or a person answers) wait for the host at their execution.
  if (kind === 'external') {
    block.awaitHost = () => ({
      waitingFor: 'external',
      reason: `The host runs ${id}; the call waits for its result.`,
    })
  } else if (kind === 'question') {
    block.awaitHost = (call: ToolCallView) => {
      const text = questionText(agentTool, call.input)
      return { waitingFor: 'answer', reason: text, question: text }
    }
  }
  return Object.freeze(block) as unknown as ToolLifecycle<unknown, unknown, unknown>
}
