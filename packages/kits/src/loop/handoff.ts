import {
  AgentCoreError,
  type AgentCoreErrorOptions,
  assertObject,
  type ChatMessage,
  describeValue,
  type ErrorDetails,
  InvalidDefinitionError,
  InvalidInputError,
  type OperationContext,
  type OperationContextInit,
  refuseField,
} from '@agent-core/core'
import {
  type Agent,
  type AgentDefinition,
  type AgentResult,
  type AgentRunRequest,
  defineAgent,
} from './agent.js'
import { defineExternalTool } from './agent-tool.js'
import { type CustomInput, runHistory } from './custom-inputs.js'
import type { AgentEvent } from './events.js'
import type { AgentRunState } from './run-state.js'

const NAME = /^[A-Za-z0-9_-]{1,50}$/

/**
 * A conversation filter applied when a run passes to another agent: it gets the history so far (the
 * transfer call's result included) and returns what the next agent reads. It reads chat messages only:
 * the run's custom inputs go along as data, before the messages it returns.
 * @example
 * ```ts
 * import type { HandoffInputFilter } from '@agent-core/kits/loop'
 * const lastFour: HandoffInputFilter = (messages) => messages.slice(-4)
 * ```
 */
export type HandoffInputFilter = (messages: readonly ChatMessage[]) => readonly ChatMessage[]

/**
 * A handoff as an agent declares it: the agent to pass to and how.
 * @example
 * ```ts
 * import { handoff, type HandoffAgent, removeToolCalls } from '@agent-core/kits/loop'
 * declare const billing: HandoffAgent
 * const toBilling = handoff(billing, { inputFilter: removeToolCalls, description: 'Invoices and refunds' })
 * ```
 */
export interface Handoff {
  /** The agent the run passes to. */
  readonly agent: HandoffAgent
  /** The tool name is `transfer_to_<name>`. Default: the agent's name. */
  readonly name: string
  /** What the model reads about the transfer tool. */
  readonly description: string
  /** What the next agent reads of the conversation. Default: all of it. */
  readonly inputFilter: HandoffInputFilter | undefined
}

/**
 * What {@link defineHandoffAgent} takes: an agent definition with a name and the agents it may pass to.
 * @example
 * ```ts
 * import type { HandoffAgentDefinition } from '@agent-core/kits/loop'
 * import type { ChatModel } from '@agent-core/core'
 * declare const model: ChatModel
 * const definition: HandoffAgentDefinition = { name: 'triage', model, system: 'Route the user.' }
 * ```
 */
export interface HandoffAgentDefinition<App = unknown> extends AgentDefinition<string, App> {
  /** The agent's name: letters, digits, `_` and `-` (at most 50). Saved states name the active agent by it. */
  readonly name: string
  /** One sentence on what the agent does: the default description of a transfer to it. */
  readonly description?: string | undefined
  /**
   * The agents this one may pass the run to: agents or {@link handoff}s, or a function returning them
   * (read at the first run, so two agents may hand off to each other).
   */
  readonly handoffs?:
    | readonly (HandoffAgent | Handoff)[]
    | (() => readonly (HandoffAgent | Handoff)[])
    | undefined
}

/**
 * An event of a handoff run: the loop's own events, and `agent-handoff` when the run passes to another agent.
 * @example
 * ```ts
 * import type { HandoffEvent } from '@agent-core/kits/loop'
 * const show = (event: HandoffEvent) => (event.type === 'agent-handoff' ? `${event.from} -> ${event.to}` : event.type)
 * ```
 */
export type HandoffEvent =
  | AgentEvent
  | {
      readonly type: 'agent-handoff'
      readonly runId: string
      /** The agent that called the transfer tool. */
      readonly from: string
      /** The agent that continues. */
      readonly to: string
      /** The transfer call's id. */
      readonly toolCallId: string
    }

/**
 * A handoff run as plain JSON: the active agent's name and its loop state.
 * @example
 * ```ts
 * import type { HandoffRunState } from '@agent-core/kits/loop'
 * declare const saved: HandoffRunState
 * console.log(`waiting in ${saved.activeAgent}`)
 * ```
 */
export interface HandoffRunState {
  readonly version: 1
  readonly kind: 'handoff'
  /** The agent the run is with. */
  readonly activeAgent: string
  /** Model calls made by all the agents of the run so far. */
  readonly turns: number
  /** The active agent's loop state. */
  readonly state: AgentRunState
}

/**
 * One run of a handoff agent: a loop request whose `resume` is a {@link HandoffRunState}.
 * @example
 * ```ts
 * import type { HandoffRunRequest } from '@agent-core/kits/loop'
 * const request: HandoffRunRequest = { prompt: 'I was charged twice.', defer: true }
 * ```
 */
export interface HandoffRunRequest<App = unknown>
  extends Omit<AgentRunRequest<App>, 'resume' | 'onEvent' | 'session' | 'concurrency'> {
  /** A state a handoff run returned: the run continues with its active agent. */
  readonly resume?: HandoffRunState | undefined
  /** Every event, the handoffs included. */
  readonly onEvent?: ((event: HandoffEvent) => void) | undefined
  /** Model calls over all the agents of the run (cycles of handoffs stop here). Default 10. Each agent's own `maxTurns` caps each of its stints too. */
  readonly maxTurns?: number | undefined
}

/**
 * What a handoff run ends with: the loop result of the agent that answered (or suspended, or stopped),
 * which agent that was, and the run as a {@link HandoffRunState}.
 * @example
 * ```ts
 * import type { HandoffResult } from '@agent-core/kits/loop'
 * const who = (result: HandoffResult) => `${result.lastAgent}: ${result.text}`
 * ```
 */
export type HandoffResult = AgentResult<string> & {
  /** The name of the agent the run ended with. */
  readonly lastAgent: string
  /** Resume a suspended handoff run from this (JSON). */
  readonly handoffState: HandoffRunState
  /** Model calls over all agents. */
  readonly totalTurns: number
}

/**
 * An agent that may pass its run to other agents. Built by {@link defineHandoffAgent}.
 * @example
 * ```ts
 * import { createScriptedModel, defineHandoffAgent } from '@agent-core/kits/loop'
 * const agent = defineHandoffAgent({ name: 'solo', model: createScriptedModel([{ text: 'Hi' }]) })
 * const result = await agent.run({ prompt: 'Hello' })
 * ```
 */
export interface HandoffAgent<App = unknown> {
  readonly name: string
  readonly description: string
  /** The loop agent it runs (with its transfer tools). */
  readonly agent: Agent<string, App>
  /** Runs the agent and the agents it passes to, until one answers, a cap is reached or the run suspends. */
  run(
    request: HandoffRunRequest<App>,
    context?: OperationContext<App> | OperationContextInit<App>,
  ): Promise<HandoffResult>
}

/**
 * Details of an {@link UnknownAgentError}.
 * @example
 * ```ts
 * import type { UnknownAgentErrorDetails } from '@agent-core/kits/loop'
 * const details: UnknownAgentErrorDetails = { id: 'billing', known: ['triage'] }
 * ```
 */
export interface UnknownAgentErrorDetails extends ErrorDetails {
  /** The agent name the state gives. */
  readonly id: string
  /** The names the agent graph has. */
  readonly known: readonly string[]
}

/**
 * A resumed handoff state names an agent the graph it is resumed with does not have.
 * @example
 * ```ts
 * import { UnknownAgentError } from '@agent-core/kits/loop'
 * declare const error: unknown
 * if (UnknownAgentError.isInstance(error)) console.log(error.details.known)
 * ```
 */
export class UnknownAgentError extends AgentCoreError<UnknownAgentErrorDetails> {
  static override readonly code = 'unknown-agent'
  declare readonly code: 'unknown-agent'
  constructor(message: string, options?: AgentCoreErrorOptions<UnknownAgentErrorDetails>) {
    super('unknown-agent', message, options)
  }
}

/**
 * A handoff filter that drops tool calls and tool results, so the next agent reads only what the user and
 * the agents said (assistant messages that only called tools are dropped).
 * @example
 * ```ts
 * import { removeToolCalls } from '@agent-core/kits/loop'
 * removeToolCalls([{ role: 'user', content: 'Hi' }]) // the same user message
 * ```
 */
export function removeToolCalls(messages: readonly ChatMessage[]): readonly ChatMessage[] {
  const kept: ChatMessage[] = []
  for (const message of messages) {
    if (message.role === 'tool') continue
    if (message.role === 'assistant' && message.toolCalls !== undefined && message.toolCalls.length > 0) {
      if (message.content === '') continue
      kept.push({ role: 'assistant', content: message.content })
      continue
    }
    kept.push(message)
  }
  return kept
}

const handoffAgents = new WeakSet<object>()

function isHandoffAgent(value: unknown): value is HandoffAgent {
  return typeof value === 'object' && value !== null && handoffAgents.has(value)
}

/**
 * A handoff to `agent` with its own tool name, description or input filter.
 * @throws `InvalidDefinitionError` when `agent` is not a handoff agent or the name is malformed
 * @example
 * ```ts
 * import { handoff, type HandoffAgent, removeToolCalls } from '@agent-core/kits/loop'
 * declare const refunds: HandoffAgent
 * const toRefunds = handoff(refunds, { name: 'refunds', inputFilter: removeToolCalls })
 * ```
 */
export function handoff(
  agent: HandoffAgent,
  options: {
    readonly name?: string
    readonly description?: string
    readonly inputFilter?: HandoffInputFilter
  } = {},
): Handoff {
  if (!isHandoffAgent(agent)) {
    refuseField(
      'definition',
      'agent',
      `must be an agent built by defineHandoffAgent, but got ${describeValue(agent)}`,
      agent,
      { prefix: 'handoff: ' },
    )
  }
  const name = options.name ?? agent.name
  if (!NAME.test(name))
    refuseField(
      'definition',
      'name',
      `must be 1 to 50 letters, digits, "_" or "-", but got ${JSON.stringify(name)}`,
      name,
    )
  if (options.inputFilter !== undefined && typeof options.inputFilter !== 'function') {
    refuseField(
      'definition',
      'inputFilter',
      `must be a function of the messages or be left out, but got ${describeValue(options.inputFilter)}`,
      options.inputFilter,
    )
  }
  return {
    agent,
    name,
    description: options.description ?? `Transfer the conversation to ${agent.name}: ${agent.description}`,
    inputFilter: options.inputFilter,
  }
}

interface Node {
  readonly handoff: HandoffAgent
  readonly agent: Agent
  readonly transfers: Map<string, Handoff>
}

/**
 * An agent that may pass its run to other agents: for each of its `handoffs` the model sees a
 * `transfer_to_<name>` tool; calling it passes the conversation (through the handoff's input filter) to
 * that agent, which continues the run. The result says which agent answered (`lastAgent`); a suspended run
 * saves the active agent by name, so a resume in another process, given the same agent graph, continues
 * with it. Model calls over all agents are capped by the run's `maxTurns`, which bounds cycles.
 * @throws `InvalidDefinitionError` for a malformed name or handoff
 * @example
 * ```ts
 * import { createScriptedModel, defineHandoffAgent } from '@agent-core/kits/loop'
 * const billing = defineHandoffAgent({
 *   name: 'billing',
 *   description: 'Invoices and refunds',
 *   model: createScriptedModel([{ text: 'Your refund is on its way.' }]),
 * })
 * const triage = defineHandoffAgent({
 *   name: 'triage',
 *   model: createScriptedModel([{ toolCalls: [{ name: 'transfer_to_billing', input: {} }] }]),
 *   handoffs: [billing],
 * })
 * const result = await triage.run({ prompt: 'I was charged twice.' })
 * // result.lastAgent === 'billing'; result.text === 'Your refund is on its way.'
 * ```
 */
export function defineHandoffAgent<App = unknown>(
  definition: HandoffAgentDefinition<App>,
): HandoffAgent<App> {
  assertObject(definition as unknown, 'definition', {
    where: 'defineHandoffAgent',
    hint: 'Give a handoff agent definition { name, description?, handoffs?, ... }.',
    error: InvalidDefinitionError,
  })
  const { name, description, handoffs, ...rest } = definition
  if (typeof name !== 'string' || !NAME.test(name))
    refuseField(
      'definition',
      'name',
      `must be 1 to 50 letters, digits, "_" or "-", but got ${describeValue(name)}`,
      name,
    )
  let node: Node | undefined
  const nodeOf = (): Node => {
    if (node !== undefined) return node
    const listed = typeof handoffs === 'function' ? handoffs() : (handoffs ?? [])
    const transfers = new Map<string, Handoff>()
    listed.forEach((entry, index) => {
      const item = isHandoffAgent(entry) ? handoff(entry) : entry
      if (typeof item !== 'object' || item === null || !isHandoffAgent((item as Handoff).agent)) {
        refuseField(
          'definition',
          `handoffs[${index}]`,
          `must be a handoff agent or handoff(agent), but got ${describeValue(entry)}`,
          entry,
          { prefix: `${name}.` },
        )
      }
      const toolId = `transfer_to_${item.name}`
      if (transfers.has(toolId)) {
        refuseField(
          'definition',
          `handoffs[${index}]`,
          `is named ${JSON.stringify(item.name)}, like another handoff; give one another name`,
          item,
          { prefix: `${name}.`, received: item.name },
        )
      }
      transfers.set(toolId, item)
    })
    const tools = [
      ...(rest.tools ?? []),
      ...[...transfers].map(([id, item]) =>
        defineExternalTool<Record<string, never>>({
          id,
          description: item.description,
          inputSchema: { type: 'object', properties: {} },
        }),
      ),
    ]
    node = { handoff: self, agent: defineAgent<string, App>({ ...rest, tools }) as Agent, transfers }
    return node
  }
  const self: HandoffAgent<App> = {
    name,
    description: description ?? name,
    get agent() {
      return nodeOf().agent as Agent<string, App>
    },
    run: (request, context) =>
      runHandoffs(self as HandoffAgent, nodeOf, request as HandoffRunRequest, context),
  }
  handoffAgents.add(self)
  nodes.set(self, nodeOf)
  return self
}

const nodes = new WeakMap<HandoffAgent, () => Node>()

/** Every agent reachable from `start`, by name. */
function graphOf(start: HandoffAgent): Map<string, Node> {
  const found = new Map<string, Node>()
  const queue = [start]
  while (queue.length > 0) {
    const next = queue.shift() as HandoffAgent
    if (found.has(next.name)) continue
    const node = (nodes.get(next) as () => Node)()
    found.set(next.name, node)
    for (const item of node.transfers.values()) queue.push(item.agent)
  }
  return found
}

function isHandoffState(value: unknown): value is HandoffRunState {
  const record = value as Partial<HandoffRunState> | null
  return (
    typeof record === 'object' &&
    record !== null &&
    record.kind === 'handoff' &&
    record.version === 1 &&
    typeof record.activeAgent === 'string' &&
    typeof record.turns === 'number' &&
    typeof record.state === 'object'
  )
}

async function runHandoffs(
  start: HandoffAgent,
  startNode: () => Node,
  request: HandoffRunRequest,
  context: OperationContext | OperationContextInit | undefined,
): Promise<HandoffResult> {
  const graph = graphOf(start)
  const { resume, onEvent, maxTurns: cap, prompt, messages, outcomes, ...shared } = request
  const maxTurns = cap ?? 10
  if (!Number.isSafeInteger(maxTurns) || maxTurns < 1) {
    refuseField('input', 'maxTurns', `must be a safe integer from 1, but got ${describeValue(cap)}`, cap)
  }
  let node = startNode()
  let turns = 0
  let next: AgentRunRequest
  if (resume !== undefined) {
    if (!isHandoffState(resume)) {
      refuseField(
        'input',
        'resume',
        'must be the handoffState a handoff run returned ({ version: 1, kind: "handoff", activeAgent, turns, state })',
        resume,
      )
    }
    const found = graph.get(resume.activeAgent)
    if (found === undefined) {
      throw new UnknownAgentError(
        `The saved run is with agent ${JSON.stringify(resume.activeAgent)}, which the agent graph of ${JSON.stringify(start.name)} does not have; resume it with the same agents it was started with.`,
        { details: { id: resume.activeAgent, known: [...graph.keys()] } },
      )
    }
    node = found
    turns = resume.turns
    next = { ...shared, resume: resume.state, outcomes }
  } else {
    next = { ...shared, prompt, messages }
  }
  const emit = (event: HandoffEvent) => onEvent?.(event)
  for (;;) {
    const userDefer = shared.defer === true
    const before = next.resume?.turns ?? 0
    const result = await node.agent.run({ ...next, defer: true, onEvent: emit }, context)
    turns += result.turns - before
    const transfers =
      result.reason === 'suspended' ? result.pending.filter((call) => node.transfers.has(call.toolId)) : []
    const others =
      result.reason === 'suspended' ? result.pending.filter((call) => !node.transfers.has(call.toolId)) : []
    const finish = (): HandoffResult => {
      const handoffState: HandoffRunState = {
        version: 1,
        kind: 'handoff',
        activeAgent: node.handoff.name,
        turns,
        state: result.state,
      }
      const base = { ...result, lastAgent: node.handoff.name, handoffState, totalTurns: turns }
      if (result.reason === 'suspended') {
        if (!userDefer && others.length > 0) {
          return {
            ...base,
            reason: 'error',
            error: new InvalidInputError(
              `Agent ${node.handoff.name} waits for ${others.map((call) => call.toolId).join(', ')}; run with defer: true (or resolvers) to suspend instead.`,
              { details: { field: 'defer', received: 'false' } },
            ),
          } as HandoffResult
        }
        return { ...base, pending: others } as HandoffResult
      }
      return base as HandoffResult
    }
    if (result.reason !== 'suspended' || others.length > 0 || transfers.length === 0) return finish()
    const call = transfers[0] as (typeof transfers)[number]
    const item = node.transfers.get(call.toolId) as Handoff
    if (turns >= maxTurns) return { ...finish(), reason: 'turn-limit' } as HandoffResult
    const answered: ChatMessage[] = [...result.messages]
    for (const transfer of transfers) {
      answered.push({
        role: 'tool',
        toolCallId: transfer.toolCallId,
        content:
          transfer === call
            ? `Transferred to ${item.agent.name}.`
            : `Not transferred: the conversation went to ${item.agent.name}.`,
      })
    }
    // Custom inputs go along as data: in their places without a filter; before the filtered messages
    // with one (a filter reads chat messages only).
    const inputs = result.state.customInputs
    const passed: (ChatMessage | CustomInput)[] =
      item.inputFilter === undefined
        ? [...runHistory({ messages: answered, customInputs: inputs })]
        : [...(inputs ?? []).map((placed) => placed.input), ...item.inputFilter(answered)]
    emit({
      type: 'agent-handoff',
      runId: result.runId,
      from: node.handoff.name,
      to: item.agent.name,
      toolCallId: call.toolCallId,
    })
    node = graph.get(item.agent.name) as Node
    next = { ...shared, runId: result.runId, messages: passed }
  }
}
