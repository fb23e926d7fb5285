import {
  type ChatMessage,
  type ChatModel,
  createOperationContext,
  describeValue,
  FieldReader,
  InvalidDefinitionError,
  type InvalidInputError,
  type MaybePromise,
  type ModelRequest,
  type ModelUsage,
  type NotThenable,
  type OperationContext,
  type OperationContextInit,
  refuseField,
  type ToolChoice,
} from '@agent-core/core'
import { type ModelTool, modelToolSchemas } from '@agent-core/core/tools'
import {
  assertToolPolicy,
  type DecisionKey,
  isToolPermitted,
  type JsonValue,
  type ToolLifecycle,
  ToolLifecycleRegistry,
  type ToolPolicy,
  type ToolRejection,
  type ToolTemplateProvider,
} from '@agent-core/kits/tools'
import { type AgentTool, composeLifecycle, toAgentTool } from './agent-tool.js'
import { type AnswerFlow, defineAnswerFlow, isAnswerFlow, textAnswer } from './answer-flow.js'
import type { CustomInput, PlacedCustomInput, TransformInputHook } from './custom-inputs.js'
import type { AgentEvent } from './events.js'
import {
  type GuardrailTrip,
  guardTool,
  type InputGuardrail,
  type OutputGuardrail,
  readGuardrails,
  readToolGuardrails,
  type ToolGuardrail,
} from './guardrails.js'
import { isRecord } from './internal/check.js'
import { consumeSuspension, consumes, readLedger } from './internal/consume-suspension.js'
import { readHistory, type TransformInput } from './internal/custom-inputs.js'
import { loadEngine, loadedEngine } from './internal/engine.js'
import { EventQueue } from './internal/event-queue.js'
import { newId } from './internal/ids.js'
import { jsonProblem } from './internal/json.js'
import type { CompiledAgent, ParsedRun, RunOutcome } from './internal/run.js'
import { assertKnownTools, readToolIds } from './internal/tool-ids.js'
import { statefulTool } from './internal/tool-state.js'
import {
  type AgentCallOutcome,
  type AgentPendingCall,
  type AgentRunState,
  assertAgentRunState,
  readOutcomes,
} from './run-state.js'
import { type AgentSessionRef, isSessionRequest, runOnSession } from './session.js'
import { createMemorySuspensionLedger, type SuspensionLedger } from './suspension-ledger.js'
import { countTokens, type estimateTokens } from './trim-messages.js'

/**
 * Default cap on model calls per run.
 * @example
 * ```ts
 * import { DEFAULT_MAX_TURNS, defineAgent } from '@agent-core/kits/loop'
 * import type { ChatModel } from '@agent-core/core'
 * declare const model: ChatModel
 * const agent = defineAgent({ model, maxTurns: DEFAULT_MAX_TURNS * 2 })
 * ```
 */
export const DEFAULT_MAX_TURNS = 10
/**
 * Default number of one turn's tool calls that run at once.
 * @example
 * ```ts
 * import { DEFAULT_TOOL_CONCURRENCY } from '@agent-core/kits/loop'
 * const concurrency = Math.min(DEFAULT_TOOL_CONCURRENCY, 2)
 * ```
 */
export const DEFAULT_TOOL_CONCURRENCY = 8
/**
 * Default time limit of one tool call: five minutes.
 * @example
 * ```ts
 * import { DEFAULT_TOOL_TIMEOUT_MS } from '@agent-core/kits/loop'
 * const minutes = DEFAULT_TOOL_TIMEOUT_MS / 60_000 // 5
 * ```
 */
export const DEFAULT_TOOL_TIMEOUT_MS = 300_000
/**
 * Default time limit of one model call, its whole stream included: ten minutes.
 * @example
 * ```ts
 * import { DEFAULT_MODEL_TIMEOUT_MS } from '@agent-core/kits/loop'
 * const minutes = DEFAULT_MODEL_TIMEOUT_MS / 60_000 // 10
 * ```
 */
export const DEFAULT_MODEL_TIMEOUT_MS = 600_000

const MAX_TIMEOUT_MS = 2_147_483_647

/**
 * What `beforeTurn` sees before each model call.
 * @example
 * ```ts
 * import type { BeforeTurnInput } from '@agent-core/kits/loop'
 * const long = (input: BeforeTurnInput) => input.messages.length > 40
 * ```
 */
export interface BeforeTurnInput {
  /** The model call about to be made, from 1. */
  readonly turn: number
  /** What the model would read: the system text (if any) and the history. */
  readonly messages: readonly ChatMessage[]
  /** The run's history (without the agent's system text); replacing `messages` does not change it. */
  readonly history: readonly ChatMessage[]
  /** Tokens the run used so far (by the models' reports). */
  readonly usage: ModelUsage
}

/**
 * What `beforeTurn` may return for the next model call: the messages the model reads this turn (not the
 * run's history), the tools it is offered this turn (ids of the run's tools; a call of another tool is
 * refused), and its tool choice. Each field is optional.
 * @example
 * ```ts
 * import type { BeforeTurnResult } from '@agent-core/kits/loop'
 * const searchOnly: BeforeTurnResult = { tools: ['search'], toolChoice: 'required' }
 * ```
 */
export interface BeforeTurnResult {
  /** What the model reads this turn (not the run's history); at least one message. */
  readonly messages?: readonly ChatMessage[] | undefined
  /** The tools offered this turn: ids of the run's tools (it may only narrow them). */
  readonly tools?: readonly string[] | undefined
  /** The tool choice of this turn's model call. */
  readonly toolChoice?: ToolChoice | undefined
}

/**
 * Runs before each model call and may change the next call: return `{ messages }` to replace what the
 * model reads this turn (not the run's history), `{ tools }` to narrow the tools it is offered this turn,
 * `{ toolChoice }` to steer it, or nothing to keep them. May be asynchronous (for example to summarize).
 * @example
 * ```ts
 * import { type BeforeTurnHook, trimMessages } from '@agent-core/kits/loop'
 * const trim: BeforeTurnHook = ({ messages }) => ({ messages: trimMessages(messages, { maxTokens: 8_000 }) })
 * ```
 */
export type BeforeTurnHook<App = unknown> = (
  input: BeforeTurnInput,
  context: OperationContext<App>,
) => MaybePromise<BeforeTurnResult | undefined>

/**
 * A refused call as the `refusal` option sees it.
 * @example
 * ```ts
 * import type { RefusalInput } from '@agent-core/kits/loop'
 * const text = (input: RefusalInput) => `Not done (${input.by}): ${input.reason}`
 * ```
 */
export interface RefusalInput extends ToolRejection {
  /** The refused call's tool. */
  readonly toolId: string
  /** The refused call's id, as the model gave it. */
  readonly toolCallId: string
}

/**
 * Anything an agent's `tools` list accepts: an agent tool, a core `ModelTool` or a `tools` kit lifecycle.
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import type { AgentToolEntry } from '@agent-core/kits/loop'
 * const tools: AgentToolEntry[] = [defineModelTool({ id: 'now', description: 'The time', inputSchema: {}, execute: () => Date.now() })]
 * ```
 */
export type AgentToolEntry<App = unknown> =
  // biome-ignore lint/suspicious/noExplicitAny: tools of any input and output types share one list
  | AgentTool<any, any, App>
  // biome-ignore lint/suspicious/noExplicitAny: as above
  | ModelTool<any, any, App>
  // biome-ignore lint/suspicious/noExplicitAny: as above
  | ToolLifecycle<any, any, App>

/**
 * An agent: its model, its tools and how its runs go. Static: nothing here belongs to one run.
 * @example
 * ```ts
 * import type { AgentDefinition } from '@agent-core/kits/loop'
 * import type { ChatModel } from '@agent-core/core'
 * import type { ModelTool } from '@agent-core/core/tools'
 * declare const model: ChatModel
 * declare const weather: ModelTool
 * const definition: AgentDefinition = { model, tools: [weather], system: 'Be brief.', maxTurns: 6 }
 * ```
 */
export interface AgentDefinition<Answer = string, App = unknown> {
  /** Core's chat model; streamed when it has `stream`. Wrap it in the models kit's `withRetry` to retry. */
  readonly model: ChatModel<App>
  /** Agent tools, core `ModelTool`s or `tools` kit lifecycles. Every call runs through their lifecycle. */
  readonly tools?: readonly AgentToolEntry<App>[] | undefined
  /** The system text, sent first on every model call (not part of the history). */
  readonly system?: string | undefined
  /** Further fields of every model request (`model`, `temperature`, `maxOutputTokens`, `seed`, ...). */
  readonly request?: Omit<ModelRequest, 'messages' | 'tools' | 'toolChoice' | 'responseFormat'> | undefined
  /** Model calls per run: a safe integer from 1. Default 10. */
  readonly maxTurns?: number | undefined
  /** Tokens per run (reported usage, and the estimate of the next call before it is made). Default: none. */
  readonly maxTokens?: number | undefined
  /** One turn's tool calls that run at once: a safe integer from 1. Default 8. */
  readonly toolConcurrency?: number | undefined
  /** Time limit of each tool call in ms (a tool's own `timeoutMs` wins). Default 300000 (five minutes). */
  readonly toolTimeoutMs?: number | undefined
  /** Time limit of each model call in ms, its whole stream included. Default 600000 (ten minutes). */
  readonly modelTimeoutMs?: number | undefined
  /** Longest silence between two stream events in ms (a stalled stream). Default: none. */
  readonly modelIdleTimeoutMs?: number | undefined
  /** Decides about the final answer. Default: its text is the answer. */
  readonly answer?: AnswerFlow<Answer, App> | undefined
  /** Runs before each model call; may replace what the model reads this turn. */
  readonly beforeTurn?: BeforeTurnHook<App> | undefined
  /**
   * Turns each custom input of a run's history (App data given among `messages`, see {@link CustomInput})
   * into the messages the model reads in its place, each time a model request is built (before
   * `beforeTurn`). A run's own `transformInput` wins over it.
   */
  readonly transformInput?: TransformInputHook | undefined
  /** Counts the tokens of messages for the token budget. Default {@link estimateTokens}. */
  readonly estimateTokens?: ((messages: readonly ChatMessage[]) => number) | undefined
  /** The sentence the model reads about a refused call. Default: the `tools` kit's text. */
  readonly refusal?: ((input: RefusalInput) => string) | undefined
  /** Template providers for what the model reads about settled calls (after `refusal`). */
  readonly templates?: readonly ToolTemplateProvider<App>[] | undefined
  /** Keys for signed decisions (current first): pending calls carry a signature every outcome must echo. */
  readonly decisionKeys?: readonly DecisionKey[] | undefined
  /**
   * When a person refuses a call, the calls of the same step still waiting for a decision, and those not
   * started yet, are refused too (`by: 'earlier-refusal'`). Default true.
   */
  readonly stopStepOnRefusal?: boolean | undefined
  /**
   * Where resumes claim the suspension they start from, so one suspended state is resumed once: a second
   * resume of it (a double-clicked Approve, a retried webhook) is refused with `SuspensionConsumedError`
   * and runs nothing. Default: a ledger in this agent's memory, which covers one process; give
   * `createSqliteSuspensionLedger` or `createPostgresSuspensionLedger` when several processes resume runs.
   */
  readonly suspensionLedger?: SuspensionLedger | undefined
  /**
   * Which of the tools the model may see and call (`{ allow, deny }`: deny wins, an empty allow list means
   * all that are not denied). A tool it does not permit is hidden, not refused: the model is never offered
   * it, and a call to its name gets the very answer a call to a name no tool has gets (which lists only
   * the permitted tools), so nothing reveals that it exists. A run's `toolPolicy` narrows it further.
   */
  readonly toolPolicy?: ToolPolicy | undefined
  /**
   * Checks of the run's input (the conversation it starts with); one that trips ends the run with reason
   * `guardrail`. `parallel` ones (the default) run beside the first model call; see {@link InputGuardrail}.
   */
  readonly inputGuardrails?: readonly InputGuardrail<App>[] | undefined
  /** Checks of the accepted final answer; one that trips ends the run with reason `guardrail`. */
  readonly outputGuardrails?: readonly OutputGuardrail<App>[] | undefined
  /**
   * Checks of tool calls: before a tool executes (refuse the call with a message the model reads, or stop
   * the run) and after (replace or refuse its output, or stop the run). See {@link ToolGuardrail}.
   */
  readonly toolGuardrails?: readonly ToolGuardrail<App>[] | undefined
}

/**
 * What an approval resolver answers: approve, or reject with the reason the model reads and an
 * instruction (what to do instead). `by` defaults to `person`.
 * @example
 * ```ts
 * import type { ApprovalResolution } from '@agent-core/kits/loop'
 * const answer: ApprovalResolution = { type: 'reject', instruction: 'Use the staging bucket.' }
 * ```
 */
export type ApprovalResolution =
  | {
      readonly type: 'approve'
      readonly by?: 'person' | 'policy' | undefined
      /** Approve with edits: the input the call runs with instead (checked against the tool's schema; the model reads that it changed). */
      readonly input?: JsonValue | undefined
    }
  | {
      readonly type: 'reject'
      readonly reason?: string | undefined
      readonly instruction?: string | undefined
      readonly by?: 'person' | 'policy' | undefined
    }

/**
 * What a question resolver answers: the answer (checked against the question tool's answer schema), or a
 * refusal to answer.
 * @example
 * ```ts
 * import type { QuestionResolution } from '@agent-core/kits/loop'
 * const answer: QuestionResolution = { type: 'answer', value: { account: 'savings' } }
 * ```
 */
export type QuestionResolution =
  | { readonly type: 'answer'; readonly value: JsonValue }
  | {
      readonly type: 'reject'
      readonly reason?: string | undefined
      readonly instruction?: string | undefined
    }

/**
 * One run: a new conversation (`prompt` and/or `messages`) or the continuation of a saved state (`resume`,
 * with `outcomes` for the calls it waits for), and how this run talks to its host.
 * @example
 * ```ts
 * import type { AgentRunRequest } from '@agent-core/kits/loop'
 * const request: AgentRunRequest = { prompt: 'What is the weather in Lyon?', defer: true }
 * ```
 */
export interface AgentRunRequest<App = unknown> {
  /** A user message added after `messages`. */
  readonly prompt?: string | undefined
  /**
   * The conversation so far (without the agent's system text). Custom inputs ({@link CustomInput}, App
   * data such as a submitted form) may sit among the messages: the run keeps them as data in its state and
   * the `transformInput` hook (the run's, else the agent's) turns them into messages for each model request.
   * Not on a session (its store keeps chat messages only).
   */
  readonly messages?: readonly (ChatMessage | CustomInput)[] | undefined
  /**
   * Turns the run's custom inputs into messages (see {@link TransformInputHook}); wins over the agent's.
   * Not kept in the state: give it again when you resume a run that has custom inputs (unless the agent
   * has one).
   */
  readonly transformInput?: TransformInputHook | undefined
  /** A state a run returned or saved (JSON): the run continues from it. Not with `prompt` or `messages`. */
  readonly resume?: AgentRunState | undefined
  /** With `resume`: decisions, results and answers for pending calls, keyed by tool-call id. Partial is fine. */
  readonly outcomes?: Readonly<Record<string, AgentCallOutcome>> | undefined
  /** The run's id (default: a new one; a resumed run keeps its own). Signatures bind it. */
  readonly runId?: string | undefined
  /**
   * The first model call's tool choice; or `{ name, input }` to run that tool with that input before the
   * first model call (through its lifecycle, approval included).
   */
  readonly toolChoice?: ToolChoice | { readonly name: string; readonly input: JsonValue } | undefined
  /**
   * Narrows the agent's tools for this run (tool ids): the model is offered only these, and a call of
   * another tool is refused. Default: all of the agent's tools. `beforeTurn` may narrow them further for
   * one turn.
   */
  readonly tools?: readonly string[] | undefined
  /** Suspend on calls that wait for a person or the host instead of failing. Default false. */
  readonly defer?: boolean | undefined
  /** Answers calls that need approval, in this process. */
  readonly resolveApproval?:
    | ((call: AgentPendingCall, context: OperationContext<App>) => MaybePromise<ApprovalResolution>)
    | undefined
  /** Answers question tools' calls, in this process. */
  readonly answerQuestion?:
    | ((call: AgentPendingCall, context: OperationContext<App>) => MaybePromise<QuestionResolution>)
    | undefined
  /**
   * Every event, synchronously, in order. The run does not wait for a listener, so the type refuses an
   * `async` one (a returned thenable makes `run` reject with `RejectedThenableError`); for asynchronous
   * work per event, iterate `agent.stream(request)` and await there.
   */
  readonly onEvent?: ((event: AgentEvent) => NotThenable) | undefined
  /** Each message the run adds to the history, in order; awaited before the run goes on. */
  readonly onHistoryAppend?: ((message: ChatMessage) => void | Promise<void>) | undefined
  /**
   * The run's state after every change that must survive a crash (the model's reply, a call saved before
   * it runs, each tool result); awaited before the run goes on. Saving it makes the run durable: resuming a
   * saved state never runs a settled call again and re-enters a call that was running with its invocation id.
   */
  readonly onProgress?: ((state: AgentRunState) => void | Promise<void>) | undefined
  /**
   * Run on a session: the run reads the session's history (`prompt` and `messages` are the new turn), and
   * what it added is appended to the session in one write. Without `prompt` or `messages`, it resumes the
   * session's suspended run with `outcomes`; a suspended run appends nothing until it is resumed. Not with
   * `resume`. See `holdSession` for how two runs on one session are kept apart.
   */
  readonly session?: AgentSessionRef | undefined
  /** With `session`: a second run on a session that has one going in this process waits (`queue`, default) or is refused (`refuse`, a `SessionBusyError`). */
  readonly concurrency?: 'queue' | 'refuse' | undefined
  /**
   * This run's tool policy, on top of the agent's `toolPolicy` (both must permit a tool): the tools it
   * does not permit are hidden from the model and answered like unknown names. Not kept in the state:
   * give it again when you resume (like `tools`).
   */
  readonly toolPolicy?: ToolPolicy | undefined
}

/**
 * Fields every {@link AgentResult} carries, whatever its reason.
 * @example
 * ```ts
 * import type { AgentResultBase } from '@agent-core/kits/loop'
 * const summary = (result: AgentResultBase) => `${result.turns} turn(s), ${result.usage.totalTokens} tokens`
 * ```
 */
export interface AgentResultBase {
  /** The run's id (the request's `runId`, the resumed state's, or a new one); it is in every event and in signed decisions. */
  readonly runId: string
  /** The best answer text so far: the last non-empty assistant text. */
  readonly text: string
  /** The text of a reply that was cut short (stopped, timed out, failed mid-stream), when there was some. */
  readonly partialText: string | undefined
  /** The whole history: the messages given and those the run added. */
  readonly messages: readonly ChatMessage[]
  /** Tokens the model reported for the whole run (resumed runs included). */
  readonly usage: ModelUsage
  /** Model calls made in all (resumed runs included). */
  readonly turns: number
  /** The run as JSON: store it to resume a suspended run, or to keep a finished one. */
  readonly state: AgentRunState
}

/**
 * How a run ended, discriminated by `reason`: `final` carries the accepted `answer`, `suspended` the
 * `pending` calls, `error` the `error`, `guardrail` the tripped guardrail; `turn-limit`, `token-limit` and `stopped` carry the best text so far.
 * @example
 * ```ts
 * import type { AgentResult } from '@agent-core/kits/loop'
 * function show(result: AgentResult) {
 *   switch (result.reason) {
 *     case 'final': return result.answer
 *     case 'suspended': return `waiting for ${result.pending.length} call(s)`
 *     case 'error': return `failed: ${String(result.error)}`
 *     default: return `${result.reason}: ${result.text}`
 *   }
 * }
 * ```
 */
export type AgentResult<Answer = string> =
  | (AgentResultBase & { readonly reason: 'final'; readonly answer: Answer })
  | (AgentResultBase & { readonly reason: 'suspended'; readonly pending: readonly AgentPendingCall[] })
  | (AgentResultBase & { readonly reason: 'turn-limit' | 'token-limit' | 'stopped' })
  | (AgentResultBase & { readonly reason: 'error'; readonly error: unknown })
  | (AgentResultBase & { readonly reason: 'guardrail'; readonly guardrail: GuardrailTrip })

/**
 * A run's events as an async iterable (iterate once; stopping early leaves the run going), and its result.
 * @example
 * ```ts
 * import { createScriptedModel, defineAgent } from '@agent-core/kits/loop'
 * const agent = defineAgent({ model: createScriptedModel([{ text: 'Hello!' }]) })
 * const run = agent.stream({ prompt: 'Hi' })
 * for await (const event of run) if (event.type === 'text-delta') process.stdout.write(event.text)
 * const result = await run.result
 * ```
 */
export interface AgentStream<Answer = string> extends AsyncIterable<AgentEvent> {
  /** The run's result: settles like {@link Agent.run}, whether or not the events are read. */
  readonly result: Promise<AgentResult<Answer>>
}

/**
 * An agent built by {@link defineAgent}.
 * @example
 * ```ts
 * import { type Agent, createScriptedModel, defineAgent } from '@agent-core/kits/loop'
 * const agent: Agent = defineAgent({ model: createScriptedModel([{ text: 'Sunny.' }]) })
 * const result = await agent.run({ prompt: 'What is the weather in Lyon?' })
 * ```
 */
export interface Agent<Answer = string, App = unknown> {
  /** The model every turn calls. */
  readonly model: ChatModel<App>
  /** The agent tools, in the order they were given. */
  readonly tools: readonly AgentTool<unknown, unknown, App>[]
  /**
   * Runs the agent until the model answers, a cap is reached, the run is stopped (`context.signal`) or it
   * suspends. Resolves for everything that happens in the run (see {@link AgentResult}); rejects only for a
   * malformed request, a refused resume (a state or outcome that does not fit, a forged signature) or a
   * context that is not one.
   */
  run(
    request: AgentRunRequest<App>,
    context?: OperationContext<App> | OperationContextInit<App>,
  ): Promise<AgentResult<Answer>>
  /** {@link Agent.run} with its events as an async iterable. */
  stream(
    request: AgentRunRequest<App>,
    context?: OperationContext<App> | OperationContextInit<App>,
  ): AgentStream<Answer>
}

function readTimeout(fields: FieldReader, key: string, fallback: number | undefined): number | undefined {
  return fields.integer(key, 1, MAX_TIMEOUT_MS) ?? fallback
}

function compile(definition: unknown): {
  compiled: CompiledAgent
  tools: readonly AgentTool[]
  ledger: SuspensionLedger | undefined
} {
  const fields: FieldReader = new FieldReader(
    definition,
    'definition',
    'an agent definition { model, tools?, ... }',
    'definition',
  )
  const model = fields.get('model')
  if (
    !isRecord(model) ||
    typeof model.identity !== 'string' ||
    typeof model.generate !== 'function' ||
    (model.stream !== undefined && typeof model.stream !== 'function')
  ) {
    fields.fail(
      'model',
      `must be a chat model { identity, generate, stream? }, but got ${describeValue(model)}`,
      model,
    )
  }
  const entries = fields.get('tools') ?? []
  if (!Array.isArray(entries))
    fields.fail('tools', `must be an array of tools, but got ${describeValue(entries)}`, entries)
  const tools = entries.map((entry: unknown, index) => toAgentTool(entry, `definition.tools[${index}]`))
  const system = fields.string('system', { empty: true })
  const request = fields.get('request') ?? {}
  if (!isRecord(request))
    fields.fail('request', `must be an object of request fields, but got ${describeValue(request)}`, request)
  for (const key of ['messages', 'tools', 'toolChoice', 'responseFormat']) {
    if (key in request)
      fields.fail(
        `request.${key}`,
        'is set by the run (messages, tools), the run request (toolChoice) or the answer flow (responseFormat)',
        request[key],
      )
  }
  const maxTurns = fields.integer('maxTurns', 1) ?? DEFAULT_MAX_TURNS
  const maxTokens = fields.integer('maxTokens', 1)
  const toolConcurrency = fields.integer('toolConcurrency', 1, 1000) ?? DEFAULT_TOOL_CONCURRENCY
  const toolTimeoutMs = readTimeout(fields, 'toolTimeoutMs', DEFAULT_TOOL_TIMEOUT_MS)!
  const modelTimeoutMs = readTimeout(fields, 'modelTimeoutMs', DEFAULT_MODEL_TIMEOUT_MS)!
  const modelIdleTimeoutMs = readTimeout(fields, 'modelIdleTimeoutMs', undefined)
  const answerGiven = fields.get('answer')
  const answer =
    answerGiven === undefined
      ? textAnswer
      : isAnswerFlow(answerGiven)
        ? answerGiven
        : defineAnswerFlow(answerGiven as AnswerFlow)
  const beforeTurn =
    fields.func<(input: unknown, context: OperationContext<unknown>) => unknown>('beforeTurn')
  const transformInput = fields.func<TransformInput['hook']>('transformInput')
  const estimate = fields.func<(messages: readonly ChatMessage[]) => number>('estimateTokens') ?? countTokens
  const refusal = fields.func<(input: RefusalInput) => string>('refusal')
  const templates = fields.get('templates')
  const decisionKeys = fields.get('decisionKeys')
  const stopStepOnRefusal = fields.boolean('stopStepOnRefusal') ?? true
  const ledger = readLedger(fields.get('suspensionLedger'))
  const policyValue = fields.get('toolPolicy')
  let toolPolicy: ToolPolicy | undefined
  if (policyValue !== undefined) {
    try {
      toolPolicy = assertToolPolicy(policyValue, 'definition.toolPolicy')
    } catch (error) {
      const { message, details } = error as InvalidInputError
      throw new InvalidDefinitionError(message, { details, cause: error })
    }
  }
  const inputGuardrails = readGuardrails(fields.get('inputGuardrails'), 'input')
  const outputGuardrails = readGuardrails(fields.get('outputGuardrails'), 'output')
  const toolGuardrailsValue = fields.get('toolGuardrails')
  fields.done()

  const byId = new Map<string, AgentTool>()
  const toolGuardrails = readToolGuardrails(toolGuardrailsValue, new Set(tools.map((tool) => tool.id)))
  const guardedLifecycle = (tool: AgentTool) => {
    const composed = composeLifecycle(tool)
    // A tool that keeps state runs inside its guardrails: its state is what execute itself returned.
    const lifecycle = tool.keepState
      ? Object.freeze({ ...composed, tool: statefulTool(composed.tool) })
      : composed
    if (toolGuardrails.length === 0) return lifecycle
    return Object.freeze({ ...lifecycle, tool: guardTool(lifecycle.tool, toolGuardrails) })
  }
  tools.forEach((tool, index) => {
    if (byId.has(tool.id)) {
      refuseField(
        'definition',
        `tools[${index}]`,
        `is a second tool "${tool.id}"; tool ids must be unique in an agent`,
        tool.id,
        { prefix: 'definition.', details: { id: tool.id } },
      )
    }
    byId.set(tool.id, tool)
  })
  const providers: ToolTemplateProvider[] = []
  if (refusal) {
    providers.push((input) => {
      if (input.status !== 'rejected') return undefined
      const content: unknown = Reflect.apply(refusal, definition, [
        Object.freeze({ ...input.rejection, toolId: input.call.toolId, toolCallId: input.call.toolCallId }),
      ])
      if (typeof content !== 'string' || content === '') {
        refuseField(
          'definition',
          'refusal',
          `must return the refusal sentence as a non-empty string, but returned ${describeValue(content)}`,
          content,
          { prefix: 'definition.' },
        )
      }
      return { content, isError: true }
    })
  }
  if (templates !== undefined) {
    if (!Array.isArray(templates))
      fields.fail(
        'templates',
        `must be an array of template providers, but got ${describeValue(templates)}`,
        templates,
      )
    providers.push(...(templates as ToolTemplateProvider[]))
  }
  let registry: ToolLifecycleRegistry<unknown>
  try {
    registry = ToolLifecycleRegistry.create(tools.map(guardedLifecycle), {
      timeoutMs: toolTimeoutMs,
      ...(providers.length > 0 ? { templates: providers } : {}),
      ...(toolPolicy === undefined ? {} : { toolPolicy }),
      // No decision keys here: the run signs the pending calls it keeps and verifies outcomes from outside
      // once (checkResume); decisions made in the run are neither signed nor verified.
    })
  } catch (error) {
    if (InvalidDefinitionError.isInstance(error)) throw error
    throw new InvalidDefinitionError(error instanceof Error ? error.message : String(error), {
      cause: error,
      details: { field: 'tools' },
    })
  }
  const toolSpecs = tools.map((tool) =>
    Object.freeze({
      name: tool.id,
      description: tool.tool.description,
      // The JSON Schema the model reads: a Standard Schema's (zod, valibot, ...) converted.
      parameters: modelToolSchemas(tool.tool).input.jsonSchema,
    }),
  )
  const system2 =
    answer.instructions === undefined || answer.instructions === ''
      ? system
      : system === undefined || system === ''
        ? answer.instructions
        : `${system}\n\n${answer.instructions}`
  const compiled: CompiledAgent = {
    model: model as unknown as ChatModel<unknown>,
    registry,
    tools: byId,
    toolSpecs,
    toolTokens: specTokens(toolSpecs),
    system: system2,
    request: request as CompiledAgent['request'],
    maxTurns,
    maxTokens,
    toolConcurrency,
    modelTimeoutMs,
    modelIdleTimeoutMs,
    answer: answer as AnswerFlow<unknown, unknown>,
    beforeTurn: beforeTurn ? { hook: beforeTurn, holder: definition } : undefined,
    transformInput: transformInput ? { hook: transformInput, holder: definition } : undefined,
    estimate,
    keys: decisionKeys as readonly DecisionKey[] | undefined,
    stopStepOnRefusal,
    keepsToolState: tools.some((tool) => tool.keepState),
    ...(inputGuardrails.length + outputGuardrails.length + toolGuardrails.length > 0
      ? {
          guardrails: {
            input: inputGuardrails,
            output: outputGuardrails,
            tool: toolGuardrails.length > 0,
          },
        }
      : {}),
  }
  return {
    compiled: toolPolicy === undefined ? compiled : hideTools(compiled, toolPolicy, false),
    tools,
    ledger,
  }
}

function specTokens(specs: CompiledAgent['toolSpecs']): number {
  return specs.length === 0 ? 0 : Math.ceil(JSON.stringify(specs).length / 4)
}

/**
 * The agent as a run under a tool policy sees it: only the permitted tools, offered and known; a call of
 * any other name goes to the lifecycle, which answers it as unknown. With `perRun`, the policy is also
 * added to every call of the lifecycle (the agent's own policy is the registry's already).
 */
function hideTools(compiled: CompiledAgent, policy: ToolPolicy, perRun: boolean): CompiledAgent {
  const permitted = (id: string) => isToolPermitted(id, policy)
  const toolSpecs = compiled.toolSpecs.filter((spec) => permitted(spec.name))
  const { registry } = compiled
  return {
    ...compiled,
    tools: new Map([...compiled.tools].filter(([id]) => permitted(id))),
    toolSpecs,
    toolTokens: specTokens(toolSpecs),
    registry: perRun
      ? {
          run: (request, context, options) =>
            registry.run(request, context, { ...options, toolPolicy: policy }),
          resume: (state, decision, context, options) =>
            registry.resume(state, decision, context, { ...options, toolPolicy: policy }),
        }
      : registry,
  }
}

function readRequest(
  value: unknown,
): Omit<ParsedRun, 'runId'> & { runId: string | undefined; toolPolicy: ToolPolicy | undefined } {
  const fields: FieldReader = new FieldReader(
    value,
    'request',
    'a run request { prompt?, messages?, resume?, ... }',
  )
  const prompt = fields.string('prompt', { empty: true })
  const given = fields.get('messages')
  const resumeValue = fields.get('resume')
  const outcomesValue = fields.get('outcomes')
  const runId = fields.string('runId')
  const toolChoice = readToolChoice(fields)
  const toolsValue = fields.get('tools')
  const defer = fields.boolean('defer') ?? false
  const resolveApproval = fields.func<ParsedRun['resolveApproval']>('resolveApproval')
  const answerQuestion = fields.func<ParsedRun['answerQuestion']>('answerQuestion')
  const onEvent = fields.func<ParsedRun['onEvent']>('onEvent')
  const onHistoryAppend = fields.func<ParsedRun['onHistoryAppend']>('onHistoryAppend')
  const onProgress = fields.func<ParsedRun['onProgress']>('onProgress')
  const transformInput = fields.func<TransformInput['hook']>('transformInput')
  const policyValue = fields.get('toolPolicy')
  const toolPolicy =
    policyValue === undefined ? undefined : assertToolPolicy(policyValue, 'request.toolPolicy')
  fields.done()
  let messages: ChatMessage[]
  let customInputs: readonly PlacedCustomInput[] = []
  const added: ChatMessage[] = []
  let resumed: AgentRunState | undefined
  if (resumeValue !== undefined) {
    if (prompt !== undefined || given !== undefined) {
      fields.fail(
        prompt !== undefined ? 'prompt' : 'messages',
        'cannot be given with resume: the state holds the conversation',
        prompt ?? given,
      )
    }
    if (toolChoice !== undefined) fields.fail('toolChoice', 'cannot be given with resume', toolChoice)
    assertAgentRunState(resumeValue, 'request.resume')
    resumed = resumeValue
    if (runId !== undefined && runId !== resumed.runId) {
      fields.fail('runId', `must be the resumed run's own id "${resumed.runId}" or be left out`, runId)
    }
    messages = [...resumed.messages]
    customInputs = resumed.customInputs ?? customInputs
  } else {
    if (outcomesValue !== undefined) fields.fail('outcomes', 'can only be given with resume', outcomesValue)
    if (given === undefined) messages = []
    else ({ messages, inputs: customInputs } = readHistory(given, 'request.messages'))
    if (prompt !== undefined) added.push(Object.freeze({ role: 'user', content: prompt }))
    if (
      messages.length === 0 &&
      customInputs.length === 0 &&
      added.length === 0 &&
      !(isRecord(toolChoice) && 'input' in toolChoice)
    ) {
      refuseField(
        'input',
        'request.prompt',
        'is missing, and a run needs a conversation: give prompt, messages (or both), or resume a saved state',
        prompt,
        { received: 'undefined' },
      )
    }
  }
  return {
    runId: resumed?.runId ?? runId,
    messages,
    added,
    resumed,
    outcomes: readOutcomes(outcomesValue, 'request.outcomes'),
    toolChoice,
    tools: readToolIds(toolsValue, 'request.tools'),
    defer,
    resolveApproval,
    answerQuestion,
    onEvent,
    onHistoryAppend,
    onProgress,
    toolPolicy,
    customInputs,
    transformInput: transformInput && { hook: transformInput, holder: value },
  }
}

/** The run's `transformInput` (else the agent's); a run with custom inputs and neither is refused. */
function withTransform<Run extends Omit<ParsedRun, 'runId'>>(run: Run, agent: CompiledAgent): Run {
  const transformInput = run.transformInput ?? agent.transformInput
  if (run.customInputs.length > 0 && transformInput === undefined) {
    const first = run.customInputs[0]!
    const field = run.resumed ? 'request.resume.customInputs' : 'request.messages'
    refuseField(
      'input',
      field,
      `holds custom input "${first.input.kind}", but neither the agent nor the run has transformInput to turn it into messages the model reads. Give transformInput (in defineAgent, or in the run request${run.resumed ? ' again on resume' : ''})`,
      first.input,
    )
  }
  return transformInput === run.transformInput ? run : { ...run, transformInput }
}

function readToolChoice(fields: FieldReader): ParsedRun['toolChoice'] {
  const value = fields.get('toolChoice')
  if (value === undefined) return undefined
  if (value === 'auto' || value === 'none' || value === 'required') return value
  const choice: FieldReader = new FieldReader(
    value,
    fields.path('toolChoice'),
    '"auto", "none", "required", { name } or { name, input }',
  )
  const name = choice.requiredString('name')!
  const input = choice.get('input')
  if (input !== undefined) {
    const problem = jsonProblem(input, 'request.toolChoice.input')
    if (problem !== undefined) choice.fail('input', `must be plain JSON (${problem})`, input)
  }
  choice.done()
  return input === undefined ? { name } : { name, input: input as JsonValue }
}

function toResult<Answer>(outcome: RunOutcome, runId: string): AgentResult<Answer> {
  // The base literal gets the reason's fields stored on it (not `{ ...base, reason }`: V8 makes a new hidden
  // class for each property added after a spread).
  const result: Record<string, unknown> = {
    runId,
    text: outcome.text,
    partialText: outcome.partialText,
    messages: outcome.messages,
    usage: outcome.usage,
    turns: outcome.turns,
    state: outcome.state,
  } satisfies AgentResultBase
  const { end } = outcome
  result.reason = end.reason
  switch (end.reason) {
    case 'final':
      result.answer = end.answer
      break
    case 'suspended':
      // The state carries its suspension id and, with keys, its signature (both given where the run ended).
      result.pending = outcome.pending
      break
    case 'error':
      result.error = end.error
      break
    case 'guardrail':
      result.guardrail = end.trip
      break
  }
  return Object.freeze(result) as unknown as AgentResult<Answer>
}

/** What the durable runner (`agent-run-task.ts`) reads of an agent defined here. */
export interface AgentInternals {
  /** The agent's suspension ledger; `explicit` is false for the default in-memory one. */
  readonly ledger: SuspensionLedger
  readonly explicitLedger: boolean
  /** Checks a resume of `state` with `outcomes` as `run` would, before anything runs. */
  checkResume(state: unknown, outcomes: unknown): Promise<void>
  /** `run`, where a claim held by durable task `heldBy` is continued instead of refused. */
  run(
    request: AgentRunRequest<never>,
    context: unknown,
    heldBy: string | undefined,
  ): Promise<AgentResult<unknown>>
}

class AgentImpl<Answer, App> implements Agent<Answer, App> {
  readonly #compiled: CompiledAgent
  readonly #ledger: SuspensionLedger
  readonly #explicitLedger: boolean
  readonly tools: readonly AgentTool<unknown, unknown, App>[]
  constructor(compiled: CompiledAgent, tools: readonly AgentTool[], ledger: SuspensionLedger | undefined) {
    this.#compiled = compiled
    this.#ledger = ledger ?? createMemorySuspensionLedger()
    this.#explicitLedger = ledger !== undefined
    this.tools = Object.freeze([...tools]) as readonly AgentTool<unknown, unknown, App>[]
  }

  static internals(agent: unknown): AgentInternals | undefined {
    if (!(agent instanceof AgentImpl)) return undefined
    const self = agent as AgentImpl<unknown, unknown>
    return {
      ledger: self.#ledger,
      explicitLedger: self.#explicitLedger,
      checkResume: async (state, outcomes) => {
        assertAgentRunState(state, 'request.state')
        const { checkResume } = loadedEngine() ?? (await loadEngine())
        await checkResume(self.#compiled, state, readOutcomes(outcomes, 'request.outcomes'))
      },
      run: (request, context, heldBy) =>
        self.#run(request as AgentRunRequest<unknown>, context as OperationContextInit<unknown>, heldBy),
    }
  }

  get model(): ChatModel<App> {
    return this.#compiled.model as ChatModel<App>
  }

  run(
    request: AgentRunRequest<App>,
    context: OperationContext<App> | OperationContextInit<App> = {},
  ): Promise<AgentResult<Answer>> {
    if (isSessionRequest(request))
      return runOnSession(request, context, (inner, ctx) => this.#run(inner, ctx, undefined))
    return this.#run(request, context, undefined)
  }

  async #run(
    request: AgentRunRequest<App>,
    context: OperationContext<App> | OperationContextInit<App>,
    heldBy: string | undefined,
  ): Promise<AgentResult<Answer>> {
    const { toolPolicy, ...read } = readRequest(request)
    const parsed = withTransform(read, this.#compiled)
    const compiled = toolPolicy === undefined ? this.#compiled : hideTools(this.#compiled, toolPolicy, true)
    if (parsed.tools !== undefined) assertKnownTools(parsed.tools, this.#compiled.tools, 'request.tools')
    const ctx = createOperationContext(context as OperationContextInit<unknown>)
    // Everything a caller gives is checked above; the engine is loaded on the first run only.
    const { AgentRun, checkResume } = loadedEngine() ?? (await loadEngine())
    if (parsed.resumed) {
      await checkResume(this.#compiled, parsed.resumed, parsed.outcomes)
      // Last check before anything runs: one suspended state is resumed once.
      if (consumes(parsed.resumed, parsed.outcomes)) {
        await consumeSuspension(this.#ledger, parsed.resumed, parsed.outcomes, ctx.now(), heldBy)
      }
    }
    const runId = parsed.runId ?? newId('run')
    // `request.tools` may name a tool the run's policy hides: it stays hidden.
    const tools =
      toolPolicy === undefined || parsed.tools === undefined
        ? parsed.tools
        : new Set([...parsed.tools].filter((id) => compiled.tools.has(id)))
    const run = new AgentRun(compiled, { ...parsed, tools, runId }, ctx)
    return toResult<Answer>(await run.execute(), runId)
  }

  stream(
    request: AgentRunRequest<App>,
    context: OperationContext<App> | OperationContextInit<App> = {},
  ): AgentStream<Answer> {
    const queue = new EventQueue<AgentEvent>()
    const listener = isRecord(request) && typeof request.onEvent === 'function' ? request.onEvent : undefined
    const withQueue = isRecord(request)
      ? {
          ...request,
          onEvent: (event: AgentEvent) => {
            queue.push(event)
            if (listener) return listener(event)
          },
        }
      : request
    const result = this.run(withQueue as AgentRunRequest<App>, context).then(
      (value) => {
        queue.close()
        return value
      },
      (error: unknown) => {
        queue.fail(error)
        throw error
      },
    )
    // The result is also reported through the iterator; a caller that only iterates must not see an
    // unhandled rejection.
    result.catch(() => undefined)
    return Object.freeze({ result, [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator]() })
  }
}

/**
 * Defines an agent: a model, tools and the caps and hooks of its runs. Everything is checked here, once;
 * each tool becomes a lifecycle block of one `tools` kit registry (its approval policy part of the
 * `authorize` stage), through which every call of every run goes.
 * @throws `InvalidDefinitionError` for a malformed definition, a duplicate tool id or an unknown field
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { createScriptedModel, defineAgent } from '@agent-core/kits/loop'
 * const clock = defineModelTool({ id: 'clock', description: 'The time', inputSchema: {}, execute: () => '12:00' })
 * const model = createScriptedModel([
 *   { toolCalls: [{ name: 'clock', input: {} }] },
 *   { text: 'It is noon.' },
 * ])
 * const agent = defineAgent({ model, tools: [clock] })
 * const result = await agent.run({ prompt: 'What time is it?' })
 * // result.reason === 'final', result.answer === 'It is noon.'
 * ```
 */
export function defineAgent<Answer = string, App = unknown>(
  definition: AgentDefinition<Answer, App>,
): Agent<Answer, App> {
  const { compiled, tools, ledger } = compile(definition)
  return new AgentImpl<Answer, App>(compiled, tools, ledger)
}

/** The durable runner's view of an agent from {@link defineAgent}; `undefined` for any other object. */
export function agentInternals(agent: unknown): AgentInternals | undefined {
  return AgentImpl.internals(agent)
}
