import { type ChatMessage, describeValue, refuseField } from '@agent-core/core'
import type { AgentResult } from './agent.js'
import { isRecord } from './internal/check.js'
import type { AgentPendingCall } from './run-state.js'

const MAX_SHOWN = 160

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= MAX_SHOWN ? flat : `${flat.slice(0, MAX_SHOWN - 1)}…`
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`
  try {
    return String(error)
  } catch {
    return 'an unprintable value'
  }
}

/** The sentence that says why a run stopped (and, for a suspension, on what). */
export function stopSentence(result: AgentResult<unknown>): string {
  switch (result.reason) {
    case 'final':
      return 'the model answered and the answer was accepted'
    case 'suspended':
      return `suspended, waiting on ${result.pending.length} call(s): ${result.pending.map(pendingText).join('; ')}`
    case 'turn-limit':
      return `the turn limit was reached after ${result.turns} model call(s)`
    case 'token-limit':
      return `the token limit was reached (${result.usage.totalTokens} tokens used)`
    case 'stopped':
      return "the run's signal stopped it"
    case 'error':
      return `it failed: ${errorText(result.error)}`
    case 'guardrail':
      return `the ${result.guardrail.kind} guardrail "${result.guardrail.guardrail}" tripped${
        result.guardrail.info === undefined ? '' : ` (${JSON.stringify(result.guardrail.info)})`
      }`
  }
}

/** One pending call in words. */
export function pendingText(call: AgentPendingCall): string {
  const what =
    call.waitingFor === 'approval'
      ? 'approval'
      : call.waitingFor === 'question'
        ? 'an answer'
        : call.waitingFor === 'external'
          ? "the host's result"
          : 'a restart (it was running)'
  return `${call.toolId} (${call.toolCallId}) waits for ${what}: ${call.reason}`
}

/**
 * A readable trace of a run: one line per model reply that called tools and one per tool call (its input,
 * and its result, failure or refusal as the model read it, or what it still waits for), then why the run
 * stopped. Meant for logs, test failures and a developer's console; it reads only the result (its history
 * and pending calls), so it works as well on a run resumed in another process.
 * @throws `InvalidInputError` when `result` is not an agent result
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { agentTrace, createScriptedModel, defineAgent } from '@agent-core/kits/loop'
 * const clock = defineModelTool({ id: 'clock', description: 'The time', inputSchema: {}, execute: () => '12:00' })
 * const agent = defineAgent({
 *   model: createScriptedModel([{ toolCalls: [{ name: 'clock', input: {} }] }, { text: 'Noon.' }]),
 *   tools: [clock],
 * })
 * console.log(agentTrace(await agent.run({ prompt: 'Time?' })))
 * // run run_…: 2 model call(s), 0 tokens
 * // step 1: the model called 1 tool(s)
 * //   clock {} -> 12:00
 * // stopped: the model answered and the answer was accepted
 * ```
 */
export function agentTrace(result: AgentResult<unknown>): string {
  if (
    !isRecord(result) ||
    typeof result.reason !== 'string' ||
    !Array.isArray(result.messages) ||
    !isRecord(result.usage)
  ) {
    refuseField(
      'input',
      'result',
      `must be the result of agent.run (or await stream.result), but got ${describeValue(result)}`,
      result,
      { prefix: 'agentTrace: ' },
    )
  }
  const lines = [`run ${result.runId}: ${result.turns} model call(s), ${result.usage.totalTokens} tokens`]
  const results = new Map<string, ChatMessage & { role: 'tool' }>()
  for (const message of result.messages) if (message.role === 'tool') results.set(message.toolCallId, message)
  const pending = new Map(
    (result.reason === 'suspended' ? result.pending : []).map((call) => [call.toolCallId, call]),
  )
  let step = 0
  for (const message of result.messages) {
    if (message.role !== 'assistant' || !message.toolCalls?.length) continue
    step += 1
    const said = message.content.trim() === '' ? '' : ` after saying "${shorten(message.content)}"`
    lines.push(`step ${step}: the model called ${message.toolCalls.length} tool(s)${said}`)
    for (const call of message.toolCalls) {
      const settled = results.get(call.id)
      const waiting = pending.get(call.id)
      const outcome = settled
        ? `${settled.isError ? 'error: ' : ''}${shorten(settled.content)}`
        : waiting
          ? `waiting for ${waiting.waitingFor}: ${shorten(waiting.reason)}`
          : 'no result'
      lines.push(`  ${call.name} ${shorten(call.arguments)} -> ${outcome}`)
    }
  }
  if (step === 0) lines.push('no tool calls')
  lines.push(`stopped: ${stopSentence(result)}`)
  return lines.join('\n')
}
