import {
  AgentCoreError,
  AttemptBudget,
  abortedError,
  type ChatMessage,
  describeValue,
  FieldReader,
  refuseField,
} from '@agent-core/core'
import type { DurableStep, DurableStepContext } from '@agent-core/kits/durable'
import { type Agent, type AgentRunRequest, agentInternals } from './agent.js'
import { newId } from './internal/ids.js'
import { readMessages } from './internal/messages.js'
import { type AgentCallOutcome, type AgentRunState, assertAgentRunState } from './run-state.js'
import { assertSuspensionClaim, suspensionKey } from './suspension-ledger.js'

/** The agent of each step {@link agentRunStep} made (keyed by the step definition, never by a run). */
const stepAgents = new WeakMap<object, Agent<unknown, never>>()

/** The agent of a step made by {@link agentRunStep}, or `undefined` for any other step. */
export function stepAgent(step: unknown): Agent<unknown, never> | undefined {
  return typeof step === 'object' && step !== null ? stepAgents.get(step) : undefined
}

/**
 * A new run as JSON, before anything happened: the durable task's input for {@link agentRunStep}.
 * @throws `InvalidInputError` for a malformed conversation, or when there is none
 * @example
 * ```ts
 * import { createAgentRunState } from '@agent-core/kits/loop'
 * const input = createAgentRunState({ prompt: 'Refund order A-17.' })
 * input.status // 'running'
 * ```
 */
export function createAgentRunState(init: {
  readonly prompt?: string | undefined
  readonly messages?: readonly ChatMessage[] | undefined
  readonly runId?: string | undefined
}): AgentRunState {
  const fields: FieldReader = new FieldReader(init, 'init', 'a new run { prompt?, messages?, runId? }')
  const prompt = fields.string('prompt', { empty: true })
  const given = fields.get('messages')
  const runId = fields.string('runId') ?? newId('run')
  fields.done()
  const messages = given === undefined ? [] : readMessages(given, 'init.messages')
  if (prompt !== undefined) messages.push({ role: 'user', content: prompt })
  if (messages.length === 0) fields.fail('prompt', 'or messages must start the conversation', prompt)
  return {
    version: 1,
    status: 'running',
    runId,
    messages,
    turns: 0,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    toolTurns: {},
    answerRetries: [],
    pending: [],
  }
}

/**
 * True when `value` is an {@link AgentRunState}: the synchronous `isState` predicate of a durable task whose
 * state is an agent run.
 * @example
 * ```ts
 * import { isAgentRunState } from '@agent-core/kits/loop'
 * declare const saved: string // JSON read back from the App's store
 * isAgentRunState(JSON.parse(saved)) // true or false, never throws
 * ```
 */
export function isAgentRunState(value: unknown): value is AgentRunState {
  try {
    assertAgentRunState(value)
    return true
  } catch {
    return false
  }
}

/**
 * What {@link agentRunStep} takes besides the agent: the step's id and the run options every attempt uses.
 * @example
 * ```ts
 * import type { AgentRunStepOptions } from '@agent-core/kits/loop'
 * const options: AgentRunStepOptions = { id: 'answer', request: { defer: true } }
 * ```
 */
export interface AgentRunStepOptions<App = unknown> {
  /** The step's id. Default `agent-run`. */
  readonly id?: string | undefined
  /** Run options of every attempt: resolvers, deferral, event and history listeners. */
  readonly request?:
    | Omit<
        AgentRunRequest<App>,
        'prompt' | 'messages' | 'resume' | 'outcomes' | 'runId' | 'toolChoice' | 'onProgress'
      >
    | undefined
}

/**
 * A durable step that runs a whole agent run, for `defineDurableTask` of `@agent-core/kits/durable`: its
 * state is the run's {@link AgentRunState} (start it with {@link createAgentRunState}, check it with
 * {@link isAgentRunState}). Each attempt builds the run's `AttemptBudget` from the step's `maxModelCalls`
 * (the attempt's persisted share of the task's model budget, never refunded), and saves the run's progress
 * with `context.checkpoint` after the model's reply, before each call that is not replay-safe, and after
 * every tool result. An attempt re-entered after a crash continues from the last save: a settled call never
 * runs again, a call that was running runs again with its invocation id (its idempotency key), or from
 * scratch when its tool is `safe`.
 *
 * The step returns the state once the run is done or suspended (a suspended run ends the task; resume it
 * with {@link resumeAgentRunTask}, which claims the suspension once and continues the run in a follow-up task
 * of the same definition, whose attempts apply the claimed decisions). A run that fails throws its error, a stopped one the reason it
 * was stopped (cancellation, deadline, lost lease), so the durable runner records the attempt.
 * @throws `InvalidDefinitionError` when `agent` is not one, or `options` are malformed
 * @example
 * ```ts
 * import { defineDurableTask } from '@agent-core/kits/durable'
 * import { agentRunStep, createAgentRunState, isAgentRunState } from '@agent-core/kits/loop'
 * import type { Agent } from '@agent-core/kits/loop'
 * import type { DurableStore } from '@agent-core/kits/durable'
 * declare const agent: Agent
 * declare const store: DurableStore
 * const task = defineDurableTask(
 *   { id: 'support-agent', revision: '1', isState: isAgentRunState, steps: [agentRunStep(agent)] },
 *   { modelBudget: { maxCalls: 20, maxCallsPerAttempt: 10 } },
 * )
 * const state = await task.run({ taskId: 'ticket-7', store, input: createAgentRunState({ prompt: 'Refund A-17' }) })
 * ```
 */
export function agentRunStep<Answer, App>(
  agent: Agent<Answer, App>,
  options: AgentRunStepOptions<App> = {},
): DurableStep<AgentRunState, App> {
  if (typeof agent !== 'object' || agent === null || typeof (agent as { run?: unknown }).run !== 'function') {
    refuseField(
      'definition',
      'agent',
      `must be an agent from defineAgent, but got ${describeValue(agent)}`,
      agent,
      {
        prefix: 'agentRunStep: ',
      },
    )
  }
  const fields: FieldReader = new FieldReader(
    options,
    'options',
    'agent step options { id?, request? }',
    'definition',
  )
  const id = fields.string('id') ?? 'agent-run'
  const request = fields.get('request') ?? {}
  fields.done()
  const extra = new FieldReader(request, 'options.request', 'run options', 'definition')
  for (const key of ['prompt', 'messages', 'resume', 'outcomes', 'runId', 'toolChoice', 'onProgress']) {
    if (extra.has(key)) extra.fail(key, 'is set by the step for every attempt', extra.get(key))
  }
  const step: DurableStep<AgentRunState, App> = {
    id,
    replayPolicy: 'safe',
    async run(state: AgentRunState, context: DurableStepContext<App, AgentRunState>): Promise<AgentRunState> {
      const attemptBudget =
        context.maxModelCalls === undefined ? context.attemptBudget : new AttemptBudget(context.maxModelCalls)
      const internals = agentInternals(agent)
      // A follow-up task of resumeAgentRunTask starts from the suspended state its claim consumed: it
      // applies the claimed decisions (again after a crash, until the run's progress no longer waits).
      let outcomes: Readonly<Record<string, AgentCallOutcome>> | undefined
      if (internals !== undefined && state.status === 'suspended') {
        const held = await internals.ledger.get(await suspensionKey(state))
        if (held !== undefined) assertSuspensionClaim(held, 'claim', 'output')
        if (held?.taskId === context.taskId) outcomes = held.outcomes
      }
      const runRequest: AgentRunRequest<App> = {
        ...(request as AgentRunRequest<App>),
        resume: state,
        ...(outcomes !== undefined ? { outcomes } : {}),
        onProgress: (progress) => context.checkpoint(progress),
      }
      const runContext = { ...context, attemptBudget }
      const result =
        internals === undefined
          ? await agent.run(runRequest, runContext)
          : await internals.run(
              runRequest as AgentRunRequest<never>,
              runContext,
              outcomes !== undefined ? context.taskId : undefined,
            )
      if (result.reason === 'error') throw result.error
      if (result.reason === 'stopped') {
        const reason: unknown = context.signal.reason
        throw AgentCoreError.isInstance(reason)
          ? reason
          : abortedError(context.signal, `agent run "${result.runId}"`)
      }
      return result.state
    },
  }
  stepAgents.set(step, agent as Agent<unknown, never>)
  return step
}
