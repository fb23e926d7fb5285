import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { collectModelStream, ModelStreamAccumulator, type ModelStreamEvent, type ToolCall } from './chat.js'

/** The reference: the reply a stream describes, computed from the whole list at once. */
function reference(events: readonly ModelStreamEvent[]) {
  const text = events.flatMap((e) => (e.type === 'text-delta' ? [e.text] : [])).join('')
  const thinking = events.flatMap((e) => (e.type === 'thinking-delta' ? [e.text] : [])).join('')
  const blocks = events.flatMap((e) => (e.type === 'thinking-end' ? [e.block] : []))
  // A call opens with its start (or an end that gives it whole).
  const opened = events.flatMap((e) =>
    e.type === 'tool-call-start' || e.type === 'tool-call-end' ? [e.index] : [],
  )
  const indexes = [...new Set(opened)].sort((a, b) => a - b)
  const calls: ToolCall[] = indexes.map((index) => {
    // The last start of an index opens the call; its later deltas join; an end replaces it.
    let call: ToolCall | undefined
    for (const e of events) {
      if (e.type === 'tool-call-start' && e.index === index) call = { id: e.id, name: e.name, arguments: '' }
      if (e.type === 'tool-call-delta' && e.index === index && call)
        call = { ...call, arguments: call.arguments + e.argumentsDelta }
      if (e.type === 'tool-call-end' && e.index === index) call = { ...e.call }
    }
    return call as ToolCall
  })
  const finish = events.filter((e) => e.type === 'finish').at(-1)
  return { text, thinking, blocks, calls, finish }
}

const index = fc.integer({ min: 0, max: 3 })
const event: fc.Arbitrary<ModelStreamEvent> = fc.oneof(
  fc.record({ type: fc.constant('text-delta' as const), text: fc.string({ maxLength: 4 }) }),
  fc.record({ type: fc.constant('thinking-delta' as const), text: fc.string({ maxLength: 4 }) }),
  fc.record({
    type: fc.constant('thinking-end' as const),
    block: fc.record({ text: fc.string({ maxLength: 4 }) }),
  }),
  fc.record({
    type: fc.constant('tool-call-start' as const),
    index,
    id: fc.string({ maxLength: 3 }),
    name: fc.constantFrom('a', 'b'),
  }),
  fc.record({
    type: fc.constant('tool-call-delta' as const),
    index,
    argumentsDelta: fc.string({ maxLength: 4 }),
  }),
  fc.record({
    type: fc.constant('tool-call-end' as const),
    index,
    call: fc.record({
      id: fc.string({ maxLength: 3 }),
      name: fc.constantFrom('a', 'b'),
      arguments: fc.string({ maxLength: 6 }),
    }),
  }),
  fc.record({
    type: fc.constant('finish' as const),
    finishReason: fc.constantFrom('stop' as const, 'tool-calls' as const, 'length' as const),
    usage: fc.record({ inputTokens: fc.nat(9), outputTokens: fc.nat(9), totalTokens: fc.nat(18) }),
  }),
)

describe('ModelStreamAccumulator', () => {
  it('folds any sequence of events, one at a time, into the reply the whole sequence describes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(event, { maxLength: 30 }), async (events) => {
        const reply = new ModelStreamAccumulator()
        for (const e of events) reply.add(e)
        const expected = reference(events)
        expect(reply.text).toBe(expected.text)
        expect(reply.thinking).toBe(expected.thinking)
        expect(reply.thinkingBlocks).toEqual(expected.blocks)
        expect(reply.toolCalls).toEqual(expected.calls)
        expect(reply.callCount).toBe(expected.calls.length)
        expect(reply.finish).toEqual(expected.finish)
        const response = reply.response()
        expect(response.message.content).toBe(expected.text)
        expect(response.message.toolCalls ?? []).toEqual(expected.calls)
        expect(response.finishReason).toBe(
          expected.finish?.finishReason ?? (expected.calls.length ? 'tool-calls' : 'stop'),
        )
        // collectModelStream is the same fold over the whole stream.
        async function* stream() {
          yield* events
        }
        expect(await collectModelStream(stream())).toEqual(response)
      }),
      { numRuns: 300 },
    )
  })

  it('gives a call as assembled so far, and its final form once it ended', () => {
    const reply = new ModelStreamAccumulator()
    reply.add({ type: 'tool-call-start', index: 1, id: 'call_b', name: 'b' })
    reply.add({ type: 'tool-call-start', index: 0, id: 'call_a', name: 'a' })
    reply.add({ type: 'tool-call-delta', index: 0, argumentsDelta: '{"x":' })
    expect(reply.hasCall(0)).toBe(true)
    expect(reply.hasCall(2)).toBe(false)
    expect(reply.call(0)).toEqual({ id: 'call_a', name: 'a', arguments: '{"x":' })
    reply.add({ type: 'tool-call-end', index: 0, call: { id: 'call_a', name: 'a', arguments: '{"x":1}' } })
    expect(reply.indexedCalls()).toEqual([
      { index: 0, call: { id: 'call_a', name: 'a', arguments: '{"x":1}' } },
      { index: 1, call: { id: 'call_b', name: 'b', arguments: '' } },
    ])
    // A copy: changing what it returned changes nothing inside.
    ;(reply.call(0) as { arguments: string }).arguments = 'changed'
    expect(reply.call(0)?.arguments).toBe('{"x":1}')
    expect(reply.finish).toBeUndefined()
  })
})
