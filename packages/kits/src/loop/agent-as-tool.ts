import {
  AgentCoreError,
  type AgentCoreErrorOptions,
  assertObject,
  childContext,
  describeValue,
  type ErrorDetails,
  FieldReader,
  InvalidDefinitionError,
  InvalidStateError,
  type MaybePromise,
  refuseField,
} from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { ApprovalRequiredError } from '@agent-core/kits/tools'
import type { Agent } from './agent.js'
import { type AgentTool, type AgentToolOptions, defineAgentTool } from './agent-tool.js'
import type { AgentEvent } from './events.js'
import type { AgentCallOutcome, AgentPendingCall, AgentRunState } from './run-state.js'

/**
 * A budget a caller shares out to the agents it runs as tools: each child run may use at most what is
 * left, and what it used is taken off. Build it with {@link createAgentBudget}.
 * @example
 * ```ts
 * import { createAgentBudget } from '@agent-core/kits/loop'
 * const budget = createAgentBudget({ turns: 6, tokens: 20_000, toolCalls: 12 })
 * console.log(budget.remaining())
 * ```
 */
export interface AgentBudget {
  /** What is left: `undefined` for a kind that is not metered. */
  remaining(): AgentBudgetAmounts
  /** Takes what a child used off the budget (never below 0). */
  take(used: AgentBudgetAmounts): void
}

/**
 * Amounts of an {@link AgentBudget}.
 * @example
 * ```ts
 * import type { AgentBudgetAmounts } from '@agent-core/kits/loop'
 * const amounts: AgentBudgetAmounts = { turns: 3, tokens: 4000 }
 * ```
 */
export interface AgentBudgetAmounts {
  /** Model calls. */
  readonly turns?: number | undefined
  /** Tokens the model reported. */
  readonly tokens?: number | undefined
  /** Tool calls started. */
  readonly toolCalls?: number | undefined
}

function checkAmounts(amounts: unknown, field: string): AgentBudgetAmounts {
  const fields = new FieldReader(amounts, field, 'an object { turns?, tokens?, toolCalls? }', 'definition')
  fields.integer('turns', 0)
  fields.integer('tokens', 0)
  fields.integer('toolCalls', 0)
  fields.done()
  return amounts as AgentBudgetAmounts
}

/**
 * A budget of turns, tokens and tool calls to share out to agents run as tools ({@link agentAsTool}'s `budget`).
 * @throws `InvalidDefinitionError` for an amount that is not a safe integer from 0
 * @example
 * ```ts
 * import { createAgentBudget } from '@agent-core/kits/loop'
 * const budget = createAgentBudget({ turns: 4 })
 * budget.take({ turns: 1 })
 * budget.remaining() // { turns: 3, tokens: undefined, toolCalls: undefined }
 * ```
 */
export function createAgentBudget(limits: AgentBudgetAmounts): AgentBudget {
  checkAmounts(limits, 'limits')
  let turns = limits.turns
  let tokens = limits.tokens
  let toolCalls = limits.toolCalls
  const less = (left: number | undefined, used: number | undefined) =>
    left === undefined ? undefined : Math.max(0, left - (used ?? 0))
  return {
    remaining: () => ({ turns, tokens, toolCalls }),
    take(used) {
      checkAmounts(used, 'used')
      turns = less(turns, used.turns)
      tokens = less(tokens, used.tokens)
      toolCalls = less(toolCalls, used.toolCalls)
    },
  }
}

/**
 * Where {@link agentAsTool} keeps a suspended child's state between the parent's suspension and its resume,
 * keyed by the parent call's invocation id (which a resume keeps). Give a persistent one (a table, a
 * durable store) when the parent resumes in another process.
 * @example
 * ```ts
 * import type { AgentRunState, ChildStateStore } from '@agent-core/kits/loop'
 * const saved = new Map<string, string>()
 * const store: ChildStateStore = {
 *   get: (key) => (saved.has(key) ? (JSON.parse(saved.get(key)!) as AgentRunState) : undefined),
 *   set: (key, state) => void saved.set(key, JSON.stringify(state)),
 *   delete: (key) => void saved.delete(key),
 * }
 * ```
 */
export interface ChildStateStore {
  get(key: string): MaybePromise<AgentRunState | undefined>
  set(key: string, state: AgentRunState): MaybePromise<void>
  delete(key: string): MaybePromise<void>
}

/**
 * Details of an {@link AgentToolBudgetError}.
 * @example
 * ```ts
 * import type { AgentToolBudgetErrorDetails } from '@agent-core/kits/loop'
 * const details: AgentToolBudgetErrorDetails = { toolId: 'researcher', limit: 'turns' }
 * ```
 */
export interface AgentToolBudgetErrorDetails extends ErrorDetails {
  readonly toolId: string
  /** The kind of budget that ran out. */
  readonly limit: 'turns' | 'tokens' | 'toolCalls'
}

/**
 * An agent run as a tool ran out of the budget it was given (the model reads it as a failed call).
 * @example
 * ```ts
 * import { AgentToolBudgetError } from '@agent-core/kits/loop'
 * declare const error: unknown
 * if (AgentToolBudgetError.isInstance(error)) console.log(error.details.limit)
 * ```
 */
export class AgentToolBudgetError extends AgentCoreError<AgentToolBudgetErrorDetails> {
  static override readonly code = 'agent-tool-budget'
  declare readonly code: 'agent-tool-budget'
  constructor(message: string, options?: AgentCoreErrorOptions<AgentToolBudgetErrorDetails>) {
    super('agent-tool-budget', message, options)
  }
}

/**
 * What {@link agentAsTool} takes.
 * @example
 * ```ts
 * import { type AgentAsToolOptions, createAgentBudget } from '@agent-core/kits/loop'
 * const options: AgentAsToolOptions = { id: 'researcher', description: 'Finds sources', budget: createAgentBudget({ turns: 5 }) }
 * ```
 */
export interface AgentAsToolOptions extends AgentToolOptions<{ prompt: string }, string> {
  /** The tool's id. */
  readonly id: string
  /** What the tool does, for the calling model. */
  readonly description: string
  /** The caller's budget each child run takes from (it may use at most what is left). Default: none. */
  readonly budget?: AgentBudget | undefined
  /** Caps of each child run on top of the budget. */
  readonly limits?: AgentBudgetAmounts | undefined
  /** Time limit of each child run in ms (the caller's signal and deadline apply as well). */
  readonly timeoutMs?: number | undefined
  /** Where a suspended child's state waits. Default: this tool's memory (one process). */
  readonly store?: ChildStateStore | undefined
}

function memoryStore(): ChildStateStore {
  const states = new Map<string, string>()
  return {
    get: (key) => {
      const text = states.get(key)
      return text === undefined ? undefined : (JSON.parse(text) as AgentRunState)
    },
    set: (key, state) => void states.set(key, JSON.stringify(state)),
    delete: (key) => void states.delete(key),
  }
}

function smaller(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b
  if (b === undefined) return a
  return Math.min(a, b)
}

/**
 * An agent as a tool of another agent: the calling model gives a `prompt`; the child runs with its own
 * history (a new conversation), under the caller's signal, with diagnostics nested under the tool call,
 * and its answer text is the tool's output. Its events reach the caller as `tool-progress` reports of the
 * call (`data` is the child's event). Its turns, tokens and tool calls come out of `budget` (it may use at
 * most what is left, then the call fails with {@link AgentToolBudgetError}; tokens are checked before it starts
 * and taken off when it ends). When the child suspends on
 * approvals, the parent's call waits for an approval (the reason lists the child's); approving it
 * approves the child's calls and the child resumes from its saved state (in `store`).
 * @throws `InvalidDefinitionError` for a malformed option
 * @example
 * ```ts
 * import { agentAsTool, createAgentBudget, createScriptedModel, defineAgent } from '@agent-core/kits/loop'
 * const researcher = defineAgent({ model: createScriptedModel([{ text: 'Three sources agree.' }]) })
 * const budget = createAgentBudget({ turns: 8 })
 * const lead = defineAgent({
 *   model: createScriptedModel([
 *     { toolCalls: [{ name: 'research', input: { prompt: 'Check the claim.' } }] },
 *     { text: 'The claim holds.' },
 *   ]),
 *   tools: [agentAsTool(researcher, { id: 'research', description: 'Researches a question', budget })],
 * })
 * const result = await lead.run({ prompt: 'Does the claim hold?' })
 * // budget.remaining().turns === 7
 * ```
 */
export function agentAsTool<App = unknown>(
  agent: Agent<string, App>,
  options: AgentAsToolOptions,
): AgentTool<{ prompt: string }, string, App> {
  if (typeof agent !== 'object' || agent === null || typeof (agent as { run?: unknown }).run !== 'function') {
    refuseField(
      'definition',
      'agent',
      `must be an agent built by defineAgent, but got ${describeValue(agent)}`,
      agent,
      {
        prefix: 'agentAsTool: ',
      },
    )
  }
  assertObject(options as unknown, 'options', {
    where: 'agentAsTool',
    hint: 'Give options { id, description, ... }.',
    error: InvalidDefinitionError,
  })
  const { id, description, budget, limits, timeoutMs, store = memoryStore(), ...toolOptions } = options
  if (limits !== undefined) checkAmounts(limits, 'limits')
  if (timeoutMs !== undefined && (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1))
    refuseField(
      'definition',
      'timeoutMs',
      `must be a safe integer from 1, but got ${describeValue(timeoutMs)}`,
      timeoutMs,
    )
  const tool = defineModelTool<{ prompt: string }, string, App>({
    id,
    description,
    inputSchema: {
      type: 'object',
      required: ['prompt'],
      properties: { prompt: { type: 'string', description: 'What to ask the agent' } },
    },
    async execute({ prompt }, context) {
      const left = budget?.remaining() ?? {}
      const cap = {
        turns: smaller(left.turns, limits?.turns),
        tokens: smaller(left.tokens, limits?.tokens),
        toolCalls: smaller(left.toolCalls, limits?.toolCalls),
      }
      for (const kind of ['turns', 'tokens', 'toolCalls'] as const) {
        if (cap[kind] === 0) {
          throw new AgentToolBudgetError(`${id} has no ${kind} left in its budget; answer without it.`, {
            details: { toolId: id, limit: kind },
          })
        }
      }
      const controller = new AbortController()
      const signals = [context.signal, controller.signal]
      if (timeoutMs !== undefined) signals.push(AbortSignal.timeout(timeoutMs))
      const child = { ...childContext(context, `agent-tool:${id}`), signal: AbortSignal.any(signals) }
      let turns = 0
      let toolCalls = 0
      let exceeded: 'turns' | 'toolCalls' | undefined
      const onEvent = (event: AgentEvent) => {
        if (event.type === 'turn-start') turns += 1
        if (event.type === 'tool-start') toolCalls += 1
        if (cap.turns !== undefined && turns > cap.turns) exceeded ??= 'turns'
        if (cap.toolCalls !== undefined && toolCalls > cap.toolCalls) exceeded ??= 'toolCalls'
        if (exceeded !== undefined) controller.abort()
        else context.progress({ data: event as never })
      }
      const saved = await store.get(context.invocationId)
      const outcomes: Record<string, AgentCallOutcome> = {}
      for (const call of saved?.pending ?? []) {
        if (call.waitingFor === 'approval')
          outcomes[call.toolCallId] = { type: 'approve', toolCallId: call.toolCallId, by: 'person' }
      }
      const before = saved?.usage.totalTokens ?? 0
      const result = await agent.run(
        saved === undefined
          ? { prompt, defer: true, onEvent: onEvent as never }
          : { resume: saved, outcomes, defer: true, onEvent: onEvent as never },
        child,
      )
      const tokens = result.usage.totalTokens - before
      budget?.take({
        turns: Math.min(turns, cap.turns ?? turns),
        tokens,
        toolCalls: Math.min(toolCalls, cap.toolCalls ?? toolCalls),
      })
      if (exceeded !== undefined) {
        await store.delete(context.invocationId)
        throw new AgentToolBudgetError(
          `${id} used up its ${exceeded === 'turns' ? cap.turns : cap.toolCalls} ${exceeded} before it answered; answer without it or ask for less.`,
          { details: { toolId: id, limit: exceeded } },
        )
      }
      if (result.reason === 'suspended') {
        const waiting: AgentPendingCall[] = [...result.pending]
        const unsupported = waiting.filter((call) => call.waitingFor !== 'approval')
        if (unsupported.length > 0) {
          await store.delete(context.invocationId)
          throw new InvalidStateError(
            `${id} waits for ${unsupported.map((call) => `${call.toolId} (${call.waitingFor})`).join(', ')}; an agent run as a tool can only wait for approvals: give its question and external tools to the caller instead.`,
            {
              details: { field: 'pending', received: unsupported.map((call) => call.waitingFor).join(', ') },
            },
          )
        }
        await store.set(context.invocationId, result.state)
        throw new ApprovalRequiredError(
          `${id} needs approval: ${waiting.map((call) => `${call.toolId} (${call.reason})`).join('; ')}`,
        )
      }
      await store.delete(context.invocationId)
      if (result.reason === 'final') return result.answer
      if (result.reason === 'error') throw result.error
      return result.text === '' ? `${id} stopped (${result.reason}) without an answer.` : result.text
    },
  })
  return defineAgentTool(tool, toolOptions as AgentToolOptions<{ prompt: string }, string, App>)
}
