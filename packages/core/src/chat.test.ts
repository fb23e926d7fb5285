import { describe, expect, it } from 'vitest'
import { addUsage, collectModelStream, type ModelStreamEvent, ZERO_USAGE } from './chat.js'

async function* events(list: ModelStreamEvent[]) {
  for (const e of list) yield e
}

describe('chat helpers', () => {
  it('collectModelStream joins text, thinking and interleaved tool-call fragments by index', async () => {
    const response = await collectModelStream(
      events([
        { type: 'thinking-delta', text: 'hm' },
        { type: 'text-delta', text: 'Hel' },
        { type: 'text-delta', text: 'lo' },
        { type: 'tool-call-start', index: 1, id: 'c2', name: 'b' },
        { type: 'tool-call-start', index: 0, id: 'c1', name: 'a' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{"x":' },
        { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '1}' },
        {
          type: 'finish',
          finishReason: 'tool-calls',
          usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
          model: 'm',
        },
      ]),
    )
    expect(response).toEqual({
      message: {
        role: 'assistant',
        content: 'Hello',
        thinking: 'hm',
        toolCalls: [
          { id: 'c1', name: 'a', arguments: '{"x":1}' },
          { id: 'c2', name: 'b', arguments: '{}' },
        ],
      },
      finishReason: 'tool-calls',
      usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
      model: 'm',
    })
  })

  it('defaults finish reason and usage when the stream has no finish event', async () => {
    const response = await collectModelStream(events([{ type: 'text-delta', text: 'x' }]))
    expect(response.finishReason).toBe('stop')
    expect(response.usage).toEqual(ZERO_USAGE)
  })

  it('adds usage', () => {
    expect(
      addUsage(
        { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
        { inputTokens: 4, outputTokens: 5, totalTokens: 9 },
      ),
    ).toEqual({
      inputTokens: 5,
      outputTokens: 7,
      totalTokens: 12,
    })
  })
  it('adds cache usage when either side reports it, and leaves it out when neither does', () => {
    expect(
      addUsage(
        { inputTokens: 10, outputTokens: 2, totalTokens: 12, cacheReadTokens: 8 },
        { inputTokens: 4, outputTokens: 5, totalTokens: 9, cacheWriteTokens: 3 },
      ),
    ).toEqual({
      inputTokens: 14,
      outputTokens: 7,
      totalTokens: 21,
      cacheReadTokens: 8,
      cacheWriteTokens: 3,
    })
    expect(Object.keys(addUsage(ZERO_USAGE, ZERO_USAGE))).toEqual([
      'inputTokens',
      'outputTokens',
      'totalTokens',
    ])
  })

  it('keeps thinking blocks (signatures and redacted data) in order beside the joined thinking text', async () => {
    const response = await collectModelStream(
      events([
        { type: 'thinking-delta', text: 'Look ' },
        { type: 'thinking-delta', text: 'it up.' },
        { type: 'thinking-end', block: { text: 'Look it up.', signature: 'sig-1' } },
        { type: 'thinking-end', block: { text: '', redacted: 'opaque' } },
        { type: 'text-delta', text: 'Done.' },
        { type: 'finish', finishReason: 'stop', usage: ZERO_USAGE },
      ]),
    )
    expect(response.message).toEqual({
      role: 'assistant',
      content: 'Done.',
      thinking: 'Look it up.',
      thinkingBlocks: [
        { text: 'Look it up.', signature: 'sig-1' },
        { text: '', redacted: 'opaque' },
      ],
    })
  })
})
