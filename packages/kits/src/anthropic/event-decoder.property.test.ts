/**
 * The stream decoder against a simple reference: the non-streamed reader of the same message. Whatever
 * way the server cuts the text, the thinking, the signature and each tool's input JSON into deltas, and
 * however many blocks of each kind arrive, collecting the decoded stream gives the same response as
 * reading the whole message at once.
 */
import { collectModelStream, type ModelStreamEvent } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { emptyFacts, readMessage } from './internal/answer.js'
import { EventDecoder } from './internal/event-decoder.js'

type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }

/** Cuts `text` at the given fractions into consecutive pieces that join back to it. */
function cut(text: string, at: readonly number[]): string[] {
  const points = [...new Set(at.map((f) => Math.floor(f * text.length)))].sort((a, b) => a - b)
  const pieces: string[] = []
  let from = 0
  for (const point of points) {
    if (point <= from) continue
    pieces.push(text.slice(from, point))
    from = point
  }
  pieces.push(text.slice(from))
  return pieces
}

const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 })
const block: fc.Arbitrary<[Block, number[]]> = fc.tuple(
  fc.oneof(
    fc.record({ type: fc.constant('text' as const), text: fc.string({ minLength: 1 }) }),
    fc.record({
      type: fc.constant('thinking' as const),
      thinking: fc.string(),
      signature: fc.string({ minLength: 1 }),
    }),
    fc.record({ type: fc.constant('redacted_thinking' as const), data: fc.string({ minLength: 1 }) }),
    fc.record({
      type: fc.constant('tool_use' as const),
      id: fc.stringMatching(/^toolu_[a-z0-9]{4}$/),
      name: fc.stringMatching(/^[a-z_]{1,10}$/),
      input: fc.dictionary(fc.string(), fc.jsonValue()),
    }),
  ),
  cuts,
)
const stopReason = fc.constantFrom(
  'end_turn',
  'max_tokens',
  'tool_use',
  'stop_sequence',
  'refusal',
  'pause_turn',
)
const usage = fc.record(
  {
    input_tokens: fc.nat(),
    output_tokens: fc.nat(),
    cache_read_input_tokens: fc.nat(),
    cache_creation_input_tokens: fc.nat(),
  },
  { requiredKeys: ['input_tokens', 'output_tokens'] },
)

function streamOf(blocks: [Block, number[]][], reason: string, wire: Record<string, number>): unknown[] {
  const { output_tokens, ...start } = wire
  const events: unknown[] = [
    {
      type: 'message_start',
      message: { id: 'msg_p', model: 'claude-test', content: [], usage: { ...start, output_tokens: 1 } },
    },
    { type: 'ping' },
  ]
  blocks.forEach(([b, at], index) => {
    switch (b.type) {
      case 'text':
        events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
        for (const text of cut(b.text, at))
          events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } })
        break
      case 'thinking':
        events.push({
          type: 'content_block_start',
          index,
          content_block: { type: 'thinking', thinking: '', signature: '' },
        })
        for (const thinking of cut(b.thinking, at))
          events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } })
        for (const signature of cut(b.signature, at.slice(0, 2)))
          events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature } })
        break
      case 'redacted_thinking':
        events.push({ type: 'content_block_start', index, content_block: b })
        break
      case 'tool_use':
        events.push({ type: 'content_block_start', index, content_block: { ...b, input: {} } })
        for (const partial_json of cut(JSON.stringify(b.input), at))
          events.push({
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json },
          })
        break
    }
    events.push({ type: 'content_block_stop', index })
  })
  events.push({ type: 'message_delta', delta: { stop_reason: reason }, usage: { output_tokens } })
  events.push({ type: 'message_stop' })
  return events
}

async function* decode(events: unknown[]): AsyncGenerator<ModelStreamEvent> {
  const decoder = new EventDecoder('anthropic')
  const out: ModelStreamEvent[] = []
  for (const event of events) {
    decoder.read(event, out)
    yield* out.splice(0)
  }
  decoder.end(out)
  yield* out
}

describe('the Messages stream decoder (property)', () => {
  it('agrees with reading the whole message, however the deltas are cut', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(block, { maxLength: 6 }), stopReason, usage, async (blocks, reason, wire) => {
        const streamed = await collectModelStream(decode(streamOf(blocks, reason, wire)))
        const whole = readMessage(
          {
            id: 'msg_p',
            model: 'claude-test',
            content: blocks.map(([b]) => b),
            stop_reason: reason,
            usage: wire,
          },
          'anthropic',
          emptyFacts(),
        )
        expect(streamed).toEqual(whole)
        const cached = (wire.cache_read_input_tokens ?? 0) + (wire.cache_creation_input_tokens ?? 0)
        expect(streamed.usage.inputTokens).toBe(wire.input_tokens + cached)
      }),
      { numRuns: 300 },
    )
  })

  it('refuses a stream cut anywhere before message_stop', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(block, { maxLength: 4 }),
        stopReason,
        usage,
        fc.nat(),
        async (blocks, reason, wire, n) => {
          const events = streamOf(blocks, reason, wire)
          const cutAt = n % (events.length - 1)
          await expect(collectModelStream(decode(events.slice(0, cutAt + 1)))).rejects.toMatchObject({
            code: 'provider-error',
            kind: 'invalid-response',
          })
        },
      ),
      { numRuns: 200 },
    )
  })
})
