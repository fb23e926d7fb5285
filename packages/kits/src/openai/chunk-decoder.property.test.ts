/**
 * The chunk decoder against a reference model: whatever way a server splits and interleaves the fragments
 * of parallel tool calls (and the text and reasoning around them), the events reassemble exactly the calls
 * and text it meant; and a stream cut anywhere before its finish reason is refused.
 */
import { collectModelStream, type ModelStreamEvent, type ToolCall } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ChunkDecoder } from './internal/chunk-decoder.js'

interface Fragment {
  readonly call: number
  readonly first: boolean
  readonly piece: string
}

/** Splits `text` at the given cut points (any of them may fall anywhere, even inside a code point pair). */
function split(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b)
  const pieces: string[] = []
  let from = 0
  for (const point of points) {
    if (point > from) pieces.push(text.slice(from, point))
    from = Math.max(from, point)
  }
  pieces.push(text.slice(from))
  return pieces
}

const callArbitrary = fc.record({
  id: fc.stringMatching(/^call_[A-Za-z0-9]{1,12}$/),
  name: fc.stringMatching(/^[a-z_]{1,20}$/),
  arguments: fc.json(),
  cuts: fc.array(fc.nat(), { maxLength: 8 }),
})

const scenario = fc
  .record({
    calls: fc.uniqueArray(callArbitrary, { minLength: 1, maxLength: 5, selector: (call) => call.id }),
    text: fc.string({ maxLength: 30 }),
    thinking: fc.string({ maxLength: 30 }),
    textCuts: fc.array(fc.nat(), { maxLength: 5 }),
    seed: fc.array(fc.nat(), { minLength: 64, maxLength: 64 }),
    perChunk: fc.integer({ min: 1, max: 3 }),
    usageOnFinishChunk: fc.boolean(),
  })
  .map((s) => {
    // Each call's fragments in order; the first carries id and name (and maybe a first piece of arguments).
    const queues: Fragment[][] = s.calls.map((call, index) =>
      split(call.arguments, call.cuts).map((piece, i) => ({ call: index, first: i === 0, piece })),
    )
    // Interleave: repeatedly take the next fragment of a call picked by the seed, keeping each call's order.
    const interleaved: Fragment[] = []
    let roll = 0
    while (queues.some((queue) => queue.length > 0)) {
      const open = queues.filter((queue) => queue.length > 0)
      const queue = open[(s.seed[roll++ % s.seed.length] ?? 0) % open.length] as Fragment[]
      interleaved.push(queue.shift() as Fragment)
    }
    return { ...s, interleaved }
  })

function chunk(delta: Record<string, unknown> | undefined, finish: string | null = null, usage?: unknown) {
  return {
    id: 'chatcmpl-p',
    object: 'chat.completion.chunk',
    model: 'm',
    choices:
      delta === undefined && finish === null ? [] : [{ index: 0, delta: delta ?? {}, finish_reason: finish }],
    ...(usage === undefined ? {} : { usage }),
  }
}

describe('chunk decoder (property)', () => {
  it('reassembles interleaved tool-call fragments, text and reasoning exactly', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })]
        for (const piece of split(s.thinking, s.textCuts))
          if (piece) chunks.push(chunk({ reasoning_content: piece }))
        for (const piece of split(s.text, s.textCuts)) if (piece) chunks.push(chunk({ content: piece }))
        for (let i = 0; i < s.interleaved.length; i += s.perChunk) {
          const group = s.interleaved.slice(i, i + s.perChunk).map((fragment) => {
            const call = s.calls[fragment.call] as (typeof s.calls)[number]
            return {
              index: fragment.call,
              ...(fragment.first ? { id: call.id, type: 'function' } : {}),
              function: { ...(fragment.first ? { name: call.name } : {}), arguments: fragment.piece },
            }
          })
          chunks.push(chunk({ tool_calls: group }))
        }
        const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }
        if (s.usageOnFinishChunk) chunks.push(chunk({}, 'tool_calls', usage))
        else chunks.push(chunk({}, 'tool_calls'), chunk(undefined, null, usage))

        const decoder = new ChunkDecoder('test')
        const events: ModelStreamEvent[] = []
        for (const c of chunks) decoder.read(c, events)
        decoder.end(events)

        const expected: ToolCall[] = s.calls.map(({ id, name, arguments: args }) => ({
          id,
          name,
          arguments: args,
        }))
        // Starts come once per call, each before any of its deltas; ends come by index after all deltas.
        const starts = events.filter((event) => event.type === 'tool-call-start')
        expect(starts.map((event) => event.index).sort((a, b) => a - b)).toEqual(expected.map((_, i) => i))
        for (const start of starts) {
          const firstDelta = events.findIndex(
            (event) => event.type === 'tool-call-delta' && event.index === start.index,
          )
          if (firstDelta !== -1) expect(events.indexOf(start)).toBeLessThan(firstDelta)
        }
        const ends = events.flatMap((event) => (event.type === 'tool-call-end' ? [event] : []))
        expect(ends.map((event) => event.call)).toEqual(expected)
        const lastDelta = events.findLastIndex((event) => event.type === 'tool-call-delta')
        expect(events.indexOf(ends[0] as ModelStreamEvent)).toBeGreaterThan(lastDelta)
        for (const end of ends) {
          const joined = events
            .flatMap((event) =>
              event.type === 'tool-call-delta' && event.index === end.index ? [event.argumentsDelta] : [],
            )
            .join('')
          expect(joined).toBe(end.call.arguments)
        }
        // The whole stream folds into the answer the reference describes.
        async function* replay() {
          yield* events
        }
        const response = await collectModelStream(replay())
        expect(response).toEqual({
          message: {
            role: 'assistant',
            content: s.text,
            toolCalls: expected,
            ...(s.thinking ? { thinking: s.thinking } : {}),
          },
          finishReason: 'tool-calls',
          usage: { inputTokens: 11, outputTokens: 7, totalTokens: 18 },
          model: 'm',
        })
      }),
      { numRuns: 300 },
    )
  })

  it('a stream cut anywhere before the finish reason is refused, after whatever it delivered', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.nat(),
        (text, cuts, at) => {
          const chunks = [
            chunk({ role: 'assistant', content: '' }),
            ...split(text, cuts).map((piece) => chunk({ content: piece })),
            chunk({}, 'stop'),
          ]
          const keep = at % (chunks.length - 1) // every prefix that stops before the finish chunk
          const decoder = new ChunkDecoder('test')
          const events: ModelStreamEvent[] = []
          for (const c of chunks.slice(0, keep + 1)) decoder.read(c, events)
          expect(() => decoder.end(events)).toThrow(/without a finish reason/)
          expect(events.every((event) => event.type === 'text-delta')).toBe(true)
        },
      ),
      { numRuns: 200 },
    )
  })

  it('a server that leaves out index: a new id opens the next call, no id continues the last one', () => {
    const decoder = new ChunkDecoder('test')
    const events: ModelStreamEvent[] = []
    decoder.read(chunk({ tool_calls: [{ id: 'a', function: { name: 'first', arguments: '{"x"' } }] }), events)
    decoder.read(chunk({ tool_calls: [{ function: { arguments: ':1}' } }] }), events)
    decoder.read(chunk({ tool_calls: [{ id: 'b', function: { name: 'second', arguments: '{}' } }] }), events)
    decoder.read(chunk({}, 'tool_calls'), events)
    expect(decoder.toolCalls).toEqual([
      { id: 'a', name: 'first', arguments: '{"x":1}' },
      { id: 'b', name: 'second', arguments: '{}' },
    ])
  })

  it('a call sent without an id gets a unique one, and content after the finish is refused', () => {
    const ids = new Set<string>()
    for (let i = 0; i < 3; i++) {
      const decoder = new ChunkDecoder('test')
      const events: ModelStreamEvent[] = []
      decoder.read(chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: '{}' } }] }), events)
      decoder.read(chunk({}, 'stop'), events)
      decoder.end(events)
      const end = events.find((event) => event.type === 'tool-call-end')
      ids.add(end?.type === 'tool-call-end' ? end.call.id : '')
      // A plain stop with calls present is a tool-calls finish.
      expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' })
      expect(() => decoder.read(chunk({ content: 'late' }), events)).toThrow(
        /nothing more after the finish reason/,
      )
    }
    expect(ids.size).toBe(3)
    expect([...ids].every((id) => /^call_[0-9a-f]{24}$/.test(id))).toBe(true)
  })
})
