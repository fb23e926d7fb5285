import {
  abortedError,
  type ChatMessage,
  describeValue,
  type ModelRequest,
  type ModelUsage,
  type OperationContext,
  type ResponseFormat,
  refuseField,
  ZERO_USAGE,
} from '@agent-core/core'
import type { Agent } from '@agent-core/kits/loop'
import { ModelCalls, type ModelCallsTarget } from '@agent-core/kits/models'
import { ReflectionStepError, type ReflectionStepName } from '../reflection-step-error.js'
import { isRecord } from './fields.js'

/** A drafter, critic or reviser after its checks: a ModelCalls binding or a loop agent. */
export type Step =
  | { readonly kind: 'model'; readonly target: ModelCallsTarget }
  | { readonly kind: 'agent'; readonly agent: Agent<unknown, unknown> }

/** What a step answered, or why it did not; `usage` counts what it spent either way. */
export type StepReply =
  | { readonly ok: true; readonly text: string; readonly usage: ModelUsage }
  | { readonly ok: false; readonly error: unknown; readonly usage: ModelUsage }

const MAX_TIMEOUT_MS = 2_147_483_647

function isAgent(value: Record<string, unknown>): boolean {
  return (
    typeof value.run === 'function' &&
    typeof value.stream === 'function' &&
    Array.isArray(value.tools) &&
    isRecord(value.model)
  )
}

/** Checks a step of a reflection definition. */
export function readStep(value: unknown, field: string): Step {
  if (isRecord(value)) {
    if (value.models instanceof ModelCalls) {
      const { models, modelId, timeoutMs } = value as unknown as ModelCallsTarget
      if (typeof modelId !== 'string' || !models.bindings.has(modelId)) {
        refuseField(
          'definition',
          `${field}.modelId`,
          `must name a binding of ${field}.models (${models.ids().join(', ') || 'none registered'}), but got ${describeValue(modelId)}`,
          modelId,
        )
      }
      if (
        typeof timeoutMs !== 'number' ||
        !Number.isSafeInteger(timeoutMs) ||
        timeoutMs < 1 ||
        timeoutMs > MAX_TIMEOUT_MS
      ) {
        refuseField(
          'definition',
          `${field}.timeoutMs`,
          `must be a safe integer from 1 to ${MAX_TIMEOUT_MS}, but got ${describeValue(timeoutMs)}`,
          timeoutMs,
        )
      }
      return { kind: 'model', target: { models, modelId, timeoutMs } }
    }
    if (isAgent(value)) return { kind: 'agent', agent: value as unknown as Agent<unknown, unknown> }
  }
  return refuseField(
    'definition',
    field,
    `must be a ModelCalls binding { models, modelId, timeoutMs } or a loop agent from defineAgent, but got ${describeValue(value)}`,
    value,
  )
}

function isUsage(value: unknown): value is ModelUsage {
  return (
    isRecord(value) &&
    Number.isFinite(value.inputTokens) &&
    Number.isFinite(value.outputTokens) &&
    Number.isFinite(value.totalTokens)
  )
}

function readBindingReply(value: unknown, modelId: string): { text: string; usage: ModelUsage } {
  if (typeof value === 'string') return { text: value, usage: ZERO_USAGE }
  if (isRecord(value) && isRecord(value.message) && typeof value.message.content === 'string') {
    return { text: value.message.content, usage: isUsage(value.usage) ? value.usage : ZERO_USAGE }
  }
  const hook = `model binding "${modelId}"`
  refuseField(
    'output',
    hook,
    `must answer the reply text or a ModelResponse ({ message: { content }, usage }) to be a reflection step, but answered ${describeValue(value)}`,
    value,
    { details: { hook } },
  )
}

/**
 * Calls a step once with a conversation. A binding gets `{ messages, responseFormat? }` through
 * `ModelCalls.invoke` (which checks the input, takes the attempt and opens the `model-call` span); an
 * agent runs on the conversation (its own system text and tools apply; `responseFormat` is its answer
 * flow's business). Never throws: a failure comes back with what was spent.
 */
export async function callStep(
  step: Step,
  name: ReflectionStepName,
  round: number,
  messages: readonly ChatMessage[],
  responseFormat: ResponseFormat | undefined,
  context: OperationContext<unknown>,
): Promise<StepReply> {
  if (step.kind === 'model') {
    const { models, modelId, timeoutMs } = step.target
    const input: ModelRequest = {
      messages,
      ...(responseFormat === undefined ? {} : { responseFormat }),
    }
    try {
      const { value } = await models.invoke({ modelId, input, timeoutMs }, context)
      return { ok: true, ...readBindingReply(value, modelId) }
    } catch (error) {
      return { ok: false, error, usage: ZERO_USAGE }
    }
  }
  let result: Awaited<ReturnType<Agent<unknown, unknown>['run']>>
  try {
    result = await step.agent.run({ messages }, context)
  } catch (error) {
    return { ok: false, error, usage: ZERO_USAGE }
  }
  const { usage } = result
  switch (result.reason) {
    case 'final':
      return { ok: true, text: typeof result.answer === 'string' ? result.answer : result.text, usage }
    case 'stopped':
      return { ok: false, error: abortedError(context.signal, `during the ${name}'s agent run`), usage }
    case 'error':
      return { ok: false, error: result.error, usage }
    default:
      return {
        ok: false,
        usage,
        error: new ReflectionStepError(
          `The ${name}'s agent run ended with reason "${result.reason}" in round ${round}, without an answer. ${
            result.reason === 'suspended'
              ? 'A reflection step cannot wait for people: give the agent tools that need no approval, or a resolver.'
              : `Raise the agent's ${result.reason === 'turn-limit' ? 'maxTurns' : 'maxTokens'} or simplify its task.`
          }`,
          { details: { step: name, round, reason: result.reason } },
        ),
      }
  }
}
