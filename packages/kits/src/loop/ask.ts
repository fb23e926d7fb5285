import {
  AgentCoreError,
  describeValue,
  type ErrorDetails,
  type OperationContext,
  type OperationContextInit,
  refuseField,
} from '@agent-core/core'
import type { Agent, AgentResult, AgentRunRequest } from './agent.js'
import { pendingText, stopSentence } from './agent-trace.js'
import type { GuardrailTrip } from './guardrails.js'
import { isRecord } from './internal/check.js'
import type { StopReason, WaitingFor } from './run-state.js'

/**
 * Details of an {@link AgentRunError}: why the run ended, which run, how many model calls it made, and
 * the calls it waits on when it suspended.
 * @example
 * ```ts
 * import { AgentRunError } from '@agent-core/kits/loop'
 * declare const error: unknown // a caught error
 * if (AgentRunError.isInstance(error) && error.details.reason === 'suspended') console.log(error.details.pending)
 * ```
 */
export interface AgentRunErrorDetails extends ErrorDetails {
  readonly reason: Exclude<StopReason, 'final'>
  readonly runId: string
  readonly turns: number
  /** The calls a suspended run waits on (empty otherwise). */
  readonly pending: readonly {
    readonly toolCallId: string
    readonly toolId: string
    readonly waitingFor: WaitingFor
  }[]
  /** Reason `guardrail`: which guardrail stopped the run and why. */
  readonly guardrail?: GuardrailTrip | undefined
}

/**
 * What {@link ask} throws when a run ends without an accepted answer. The message says what happened
 * (suspended on which calls, which limit, which failure) and what to do; `result` is the whole result
 * (its `state` resumes a suspended run), and `cause` the run's error when it failed.
 * @example
 * ```ts
 * import { AgentRunError, ask } from '@agent-core/kits/loop'
 * import type { Agent } from '@agent-core/kits/loop'
 * import type { AgentRunState } from '@agent-core/kits/loop'
 * declare const agent: Agent
 * declare function save(state: AgentRunState): Promise<void> // the App's store
 * try {
 *   await ask(agent, 'Refund order 7')
 * } catch (error) {
 *   if (AgentRunError.isInstance(error) && error.details.reason === 'suspended') await save(error.result.state)
 *   else throw error
 * }
 * ```
 */
export class AgentRunError extends AgentCoreError<AgentRunErrorDetails> {
  static override readonly code = 'agent-run'
  declare readonly code: 'agent-run'
  /** The run's result, as `agent.run` returned it. */
  readonly result: AgentResult<unknown>
  constructor(message: string, result: AgentResult<unknown>, details: AgentRunErrorDetails, cause?: unknown) {
    super('agent-run', message, cause === undefined ? { details } : { details, cause })
    this.result = result
  }
}

function advice(result: AgentResult<unknown>): string {
  switch (result.reason) {
    case 'suspended':
      return 'Resume it with agent.run({ resume: error.result.state, outcomes }) once they are decided, or pass resolveApproval / answerQuestion to answer them in this process.'
    case 'turn-limit':
      return "Raise the agent's maxTurns, narrow its tools, or make the prompt more precise; error.result.text is the best text so far."
    case 'token-limit':
      return "Raise the agent's maxTokens, trim the history (beforeTurn with trimMessages), or shorten the prompt."
    case 'stopped':
      return 'It was cancelled through context.signal; run again without aborting it to get an answer.'
    case 'guardrail':
      return `The ${result.guardrail.kind} guardrail "${result.guardrail.guardrail}" stopped it (error.details.guardrail has its info); change the input, or the guardrail if it was wrong to trip.`
    case 'error':
      return 'See the cause: fix what it names (a model or provider failure is retried with the models kit withRetry).'
    default:
      return ''
  }
}

const ASK = Object.freeze({ prefix: 'ask: ' })

/**
 * Asks an agent one question and returns its accepted answer, or throws an {@link AgentRunError} that
 * says what happened and what to do. For scripts, tests and one-shot calls where a suspension or a limit
 * is a failure; use `agent.run` to handle every outcome as a value.
 * @param request - further fields of the run (`messages` before the question, resolvers, `onEvent`, ...)
 * @throws `AgentRunError` when the run suspends, reaches a limit, is stopped or fails
 * @throws `InvalidInputError` for a text that is not a non-empty string, or an agent that is not one
 * @example
 * ```ts
 * import { ask, createScriptedModel, defineAgent } from '@agent-core/kits/loop'
 * const agent = defineAgent({ model: createScriptedModel([{ text: 'Paris.' }]) })
 * const answer = await ask(agent, 'Capital of France?') // 'Paris.'
 * ```
 */
export async function ask<Answer, App>(
  agent: Agent<Answer, App>,
  text: string,
  request: Omit<AgentRunRequest<App>, 'prompt' | 'resume' | 'outcomes'> = {},
  context?: OperationContext<App> | OperationContextInit<App>,
): Promise<Answer> {
  if (!isRecord(agent) || typeof (agent as { run?: unknown }).run !== 'function')
    refuseField(
      'input',
      'agent',
      `must be an agent from defineAgent, but got ${describeValue(agent)}`,
      agent,
      ASK,
    )
  if (typeof text !== 'string' || text.trim() === '')
    refuseField(
      'input',
      'text',
      `must be the question as a non-empty string, but got ${describeValue(text)}`,
      text,
      ASK,
    )
  if (!isRecord(request))
    refuseField(
      'input',
      'request',
      `must be an object of run fields, but got ${describeValue(request)}`,
      request,
      ASK,
    )
  for (const key of ['prompt', 'resume', 'outcomes']) {
    if (key in request) {
      refuseField(
        'input',
        `request.${key}`,
        'cannot be given: ask sends the text as the prompt of a new run. Use agent.run to resume',
        (request as Record<string, unknown>)[key],
        ASK,
      )
    }
  }
  const result = await agent.run({ ...request, prompt: text } as AgentRunRequest<App>, context)
  if (result.reason === 'final') return result.answer
  const pending = result.reason === 'suspended' ? result.pending : []
  const what =
    result.reason === 'suspended'
      ? `The run suspended on ${pending.length} call(s): ${pending.map(pendingText).join('; ')}.`
      : `The run ended without an answer: ${stopSentence(result as AgentResult<unknown>)}.`
  throw new AgentRunError(
    `${what} ${advice(result as AgentResult<unknown>)}`,
    result as AgentResult<unknown>,
    {
      reason: result.reason,
      runId: result.runId,
      turns: result.turns,
      pending: Object.freeze(
        pending.map((call) =>
          Object.freeze({ toolCallId: call.toolCallId, toolId: call.toolId, waitingFor: call.waitingFor }),
        ),
      ),
      ...(result.reason === 'guardrail' ? { guardrail: result.guardrail } : {}),
    },
    result.reason === 'error' ? result.error : undefined,
  )
}
