import type { ChatMessage } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { estimateTokens, trimMessages } from './index.js'

/** A conversation: system messages anywhere, user turns, assistant replies with or without calls and their results. */
const conversation: fc.Arbitrary<ChatMessage[]> = fc
  .array(
    fc.oneof(
      fc.record({ kind: fc.constant('system' as const), text: fc.string({ maxLength: 30 }) }),
      fc.record({ kind: fc.constant('user' as const), text: fc.string({ maxLength: 60 }) }),
      fc.record({ kind: fc.constant('reply' as const), text: fc.string({ maxLength: 60 }) }),
      fc.record({
        kind: fc.constant('calls' as const),
        count: fc.integer({ min: 1, max: 3 }),
        text: fc.string({ maxLength: 40 }),
      }),
    ),
    { maxLength: 14 },
  )
  .map((items) => {
    const out: ChatMessage[] = []
    items.forEach((item, index) => {
      if (item.kind === 'system') out.push({ role: 'system', content: item.text })
      else if (item.kind === 'user') out.push({ role: 'user', content: item.text })
      else if (item.kind === 'reply') out.push({ role: 'assistant', content: item.text })
      else {
        const ids = Array.from({ length: item.count }, (_, at) => `c${index}_${at}`)
        out.push({
          role: 'assistant',
          content: '',
          toolCalls: ids.map((id) => ({ id, name: 'tool', arguments: '{}' })),
        })
        for (const id of ids) out.push({ role: 'tool', toolCallId: id, content: item.text })
      }
    })
    return out
  })

/** The reference: drop the oldest k turns for the smallest k that fits (never the newest turn). */
function reference(messages: readonly ChatMessage[], maxTokens: number): ChatMessage[] {
  const groups: { system: boolean; messages: ChatMessage[] }[] = []
  for (const message of messages) {
    const lastTurn = [...groups].reverse().find((group) => !group.system)
    if (message.role === 'system') groups.push({ system: true, messages: [message] })
    else if (message.role === 'tool' && lastTurn) lastTurn.messages.push(message)
    else groups.push({ system: false, messages: [message] })
  }
  const turns = groups.filter((group) => !group.system)
  for (let dropped = 0; ; dropped++) {
    const gone = new Set(turns.slice(0, dropped))
    const kept = groups.filter((group) => !gone.has(group)).flatMap((group) => group.messages)
    if (estimateTokens(kept) <= maxTokens || dropped >= turns.length - 1) return kept
  }
}

describe('trimMessages', () => {
  it('keeps system messages, drops the oldest turns first and never separates a call from its results', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'a'.repeat(400) },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'search', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c1', content: 'b'.repeat(400) },
      { role: 'assistant', content: 'Found it.' },
      { role: 'user', content: 'Thanks, and now?' },
    ]
    expect(trimMessages(messages, { maxTokens: 10_000 })).toEqual(messages)
    expect(trimMessages(messages, { maxTokens: 140 })).toEqual([messages[0], ...messages.slice(2)])
    expect(trimMessages(messages, { maxTokens: 30 })).toEqual([messages[0], messages[4], messages[5]])
    // The newest turn stays even when it alone is over the budget.
    expect(trimMessages(messages, { maxTokens: 1 })).toEqual([messages[0], messages[5]])
  })

  it('property: matches the reference, keeps order and system messages, orphans no tool result', () => {
    fc.assert(
      fc.property(conversation, fc.integer({ min: 1, max: 200 }), (messages, maxTokens) => {
        const trimmed = trimMessages(messages, { maxTokens })
        expect(trimmed).toEqual(reference(messages, maxTokens))
        // A subsequence of the input, with every system message.
        let at = 0
        for (const message of trimmed) {
          while (messages[at] !== message) at++
          at++
        }
        expect(trimmed.filter((m) => m.role === 'system')).toEqual(
          messages.filter((m) => m.role === 'system'),
        )
        // Every tool result keeps its call, and every kept call keeps its results.
        const calls = new Set(
          trimmed.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : [])),
        )
        const results = new Set(trimmed.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])))
        expect([...results].every((id) => calls.has(id))).toBe(true)
        expect([...calls].every((id) => results.has(id))).toBe(true)
      }),
      { numRuns: 300 },
    )
  })

  it('uses a custom estimate, and refuses bad options and estimates with typed errors', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'one' },
      { role: 'user', content: 'two' },
      { role: 'user', content: 'three' },
    ]
    expect(trimMessages(messages, { maxTokens: 2, estimate: (list) => list.length })).toEqual(
      messages.slice(1),
    )
    expect(() => trimMessages(messages, { maxTokens: 0 })).toThrow(
      expect.objectContaining({ code: 'invalid-input' }),
    )
    expect(() => trimMessages(messages, { maxTokens: 5, estimate: () => Number.NaN })).toThrow(
      expect.objectContaining({ code: 'invalid-output' }),
    )
    expect(() => trimMessages([{ role: 'robot' } as never], { maxTokens: 5 })).toThrow(
      expect.objectContaining({
        code: 'invalid-input',
        details: expect.objectContaining({ field: 'messages[0].role' }),
      }),
    )
  })

  it('estimates about four characters per token plus a little per message', () => {
    expect(estimateTokens('')).toBe(0)
    expect(estimateTokens('abcd')).toBe(1)
    expect(estimateTokens({ role: 'user', content: 'abcdefgh' })).toBe(6)
    expect(estimateTokens([{ role: 'user', content: [{ type: 'image', url: 'https://x/y.png' }] }])).toBe(89)
  })
})
