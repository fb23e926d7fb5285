import { InvalidInputError } from '@agent-core/core'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { createMockGPTFetchHandler } from './create-mock-gpt-fetch-handler.js'

describe('the official openai SDK through the fetch handler (no port)', () => {
  it('creates and streams completions in process', async () => {
    const handler = createMockGPTFetchHandler({
      seed: 11,
      script: [{ reply: { type: 'text', text: 'In process.' } }],
    })
    const client = new OpenAI({
      baseURL: 'http://mockgpt.local/v1',
      apiKey: 'unused',
      fetch: handler.fetch,
      maxRetries: 0,
    })
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Hi' }],
    })
    expect(completion.choices[0]?.message.content).toBe('In process.')
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'Stream in process' }],
      stream: true,
    })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
    expect(text).toContain('Stream in process')
    expect(handler.mock.requests.map((r) => r.status)).toEqual([200, 200])
  })

  it('rejects bad options with InvalidInputError', () => {
    expect(() => createMockGPTFetchHandler({ seed: Number.NaN })).toThrow(InvalidInputError)
    expect(() => createMockGPTFetchHandler({ chaos: { rate: -1 } })).toThrow(InvalidInputError)
  })

  it('close() ends a hung request and a slow stream, and later requests still work', async () => {
    const handler = createMockGPTFetchHandler({
      script: [{ faults: [{ type: 'hang' }] }, { faults: [{ type: 'slow-chunks', delayMs: 60_000 }] }],
    })
    const body = (stream: boolean) =>
      JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'x' }] })
    const hung = handler.fetch('http://mockgpt.local/v1/chat/completions', {
      method: 'POST',
      body: body(false),
    })
    const slow = await handler.fetch('http://mockgpt.local/v1/chat/completions', {
      method: 'POST',
      body: body(true),
    })
    const reading = slow.text()
    // The hung request may still be reading its body: close() must end it all the same.
    handler.close()
    await expect(hung).rejects.toMatchObject({ name: 'AbortError' })
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' })
    const after = await handler.fetch('http://mockgpt.local/v1/models')
    expect(after.status).toBe(200)
  })
  it('close() also ends a request whose body was still being read', async () => {
    const handler = createMockGPTFetchHandler({ script: [{ faults: [{ type: 'hang' }] }] })
    let finish!: () => void
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(
          new TextEncoder().encode(
            JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
          ),
        )
        finish = () => controller.close()
      },
    })
    const pending = handler(
      new Request('http://mockgpt.local/v1/chat/completions', {
        method: 'POST',
        body,
        duplex: 'half',
      } as RequestInit),
    )
    handler.close()
    finish()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
    expect(handler.mock.requests.length).toBe(1)
  })
})
