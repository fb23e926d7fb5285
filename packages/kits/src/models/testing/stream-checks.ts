import type { ModelResponse, ModelStreamEvent, ModelUsage } from '@agent-core/core'
import { assert } from './assert.js'

const FINISH_REASONS = new Set(['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other'])

/**
 * Asserts that `usage` is a token count core can add up: three non-negative safe integers, the total at
 * least the sum of input and output (a provider may count more, such as cached or reasoning tokens).
 * Throws the `node:assert` `AssertionError` naming the field otherwise.
 * @example
 * ```ts
 * import { assertValidUsage } from '@agent-core/kits/models/testing'
 * assertValidUsage({ inputTokens: 12, outputTokens: 3, totalTokens: 15 })
 * ```
 */
export function assertValidUsage(usage: ModelUsage, where = 'usage'): void {
  assert.ok(typeof usage === 'object' && usage !== null, `${where} must be an object`)
  for (const field of ['inputTokens', 'outputTokens', 'totalTokens'] as const) {
    const value = usage[field]
    assert.ok(
      Number.isSafeInteger(value) && value >= 0,
      `${where}.${field} must be a non-negative safe integer, but is ${String(value)}`,
    )
  }
  assert.ok(
    usage.totalTokens >= usage.inputTokens + usage.outputTokens,
    `${where}.totalTokens (${usage.totalTokens}) must be at least inputTokens + outputTokens (${usage.inputTokens} + ${usage.outputTokens})`,
  )
}

interface OpenCall {
  readonly id: string
  readonly name: string
  deltas: string
  sawDelta: boolean
  ended: boolean
}

/**
 * Asserts that a recorded stream keeps the `ModelStreamEvent` contract: known event types; every tool call
 * opened once by `tool-call-start` (a fresh `index`, a non-empty id and name), its deltas and its one
 * `tool-call-end` (same id and name, the arguments its deltas joined, when it had deltas) before the end;
 * exactly one `finish`, last, with a known finish reason and a valid usage. Throws the `node:assert`
 * `AssertionError` saying which event broke it.
 * @example
 * ```ts
 * import { assertWellFormedStream } from '@agent-core/kits/models/testing'
 * assertWellFormedStream([
 *   { type: 'text-delta', text: 'Hi' },
 *   { type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } },
 * ])
 * ```
 */
export function assertWellFormedStream(events: readonly ModelStreamEvent[]): void {
  assert.ok(Array.isArray(events) && events.length > 0, 'a stream must yield at least its finish event')
  const calls = new Map<number, OpenCall>()
  events.forEach((event, at) => {
    const where = `event ${at} (${String((event as { type?: unknown })?.type)})`
    assert.ok(typeof event === 'object' && event !== null, `${where} must be an object`)
    if (at < events.length - 1)
      assert.notEqual(event.type, 'finish', `${where}: finish must be the last event`)
    switch (event.type) {
      case 'text-delta':
      case 'thinking-delta':
        assert.equal(typeof event.text, 'string', `${where}: text must be a string`)
        break
      case 'thinking-end': {
        const block = event.block
        assert.ok(typeof block === 'object' && block !== null, `${where}: block must be an object`)
        assert.equal(typeof block.text, 'string', `${where}: block.text must be a string`)
        for (const field of ['signature', 'redacted'] as const)
          assert.ok(
            block[field] === undefined || typeof block[field] === 'string',
            `${where}: block.${field} must be a string when present`,
          )
        break
      }
      case 'tool-call-start':
        assert.ok(Number.isSafeInteger(event.index) && event.index >= 0, `${where}: index must be >= 0`)
        assert.ok(!calls.has(event.index), `${where}: tool call ${event.index} was already started`)
        assert.ok(typeof event.id === 'string' && event.id !== '', `${where}: id must be a non-empty string`)
        assert.ok(
          typeof event.name === 'string' && event.name !== '',
          `${where}: name must be a non-empty string`,
        )
        calls.set(event.index, { id: event.id, name: event.name, deltas: '', sawDelta: false, ended: false })
        break
      case 'tool-call-delta': {
        const call = calls.get(event.index)
        assert.ok(call && !call.ended, `${where}: tool call ${event.index} is not open`)
        assert.equal(typeof event.argumentsDelta, 'string', `${where}: argumentsDelta must be a string`)
        call.deltas += event.argumentsDelta
        call.sawDelta = true
        break
      }
      case 'tool-call-end': {
        const call = calls.get(event.index)
        assert.ok(call && !call.ended, `${where}: tool call ${event.index} is not open`)
        assert.equal(event.call.id, call.id, `${where}: the call's id differs from its start`)
        assert.equal(event.call.name, call.name, `${where}: the call's name differs from its start`)
        assert.equal(typeof event.call.arguments, 'string', `${where}: arguments must be a string`)
        if (call.sawDelta)
          assert.equal(event.call.arguments, call.deltas, `${where}: arguments differ from the joined deltas`)
        call.ended = true
        break
      }
      case 'finish':
        assert.ok(FINISH_REASONS.has(event.finishReason), `${where}: unknown finish reason`)
        assertValidUsage(event.usage, `${where}: usage`)
        break
      default:
        assert.fail(`${where}: unknown event type`)
    }
  })
  assert.equal(events.at(-1)?.type, 'finish', 'the last event must be finish')
  for (const [index, call] of calls) assert.ok(call.ended, `tool call ${index} was never ended`)
}

/**
 * Asserts that a whole answer keeps the `ModelResponse` contract: an assistant message with string
 * content, tool calls (when any) with non-empty ids and names and string arguments, a known finish reason
 * and a valid usage.
 * @example
 * ```ts
 * import { assertWellFormedResponse } from '@agent-core/kits/models/testing'
 * assertWellFormedResponse({
 *   message: { role: 'assistant', content: 'Hi' },
 *   finishReason: 'stop',
 *   usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
 * })
 * ```
 */
export function assertWellFormedResponse(response: ModelResponse): void {
  assert.ok(typeof response === 'object' && response !== null, 'a response must be an object')
  assert.equal(response.message?.role, 'assistant', 'message.role must be assistant')
  assert.equal(typeof response.message.content, 'string', 'message.content must be a string')
  for (const [at, call] of (response.message.toolCalls ?? []).entries()) {
    assert.ok(typeof call.id === 'string' && call.id !== '', `toolCalls[${at}].id must be non-empty`)
    assert.ok(typeof call.name === 'string' && call.name !== '', `toolCalls[${at}].name must be non-empty`)
    assert.equal(typeof call.arguments, 'string', `toolCalls[${at}].arguments must be a string`)
  }
  assert.ok(FINISH_REASONS.has(response.finishReason), 'unknown finish reason')
  assertValidUsage(response.usage)
}
