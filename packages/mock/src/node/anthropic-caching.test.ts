/**
 * The parts of `/v1/messages` that agent clients rely on beyond text and tools, through the official
 * `@anthropic-ai/sdk` over HTTP: prompt caching (breakpoints read and written, the four-breakpoint limit)
 * and thinking blocks sent back (signatures checked, the thinking block a tool turn must start with).
 */
import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type MockGPTServer, startMockGPTServer } from './start-mock-gpt-server.js'

const MODEL = 'claude-sonnet-4-6'
const SYSTEM = 'You are a careful research assistant. '.repeat(40)
const TOOLS: Anthropic.Tool[] = [
  {
    name: 'search',
    description: 'Search the notes',
    input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    cache_control: { type: 'ephemeral' },
  },
]

let server: MockGPTServer
let client: Anthropic
beforeAll(async () => {
  server = await startMockGPTServer({ seed: 3 })
  client = new Anthropic({ baseURL: server.url, apiKey: 'sk-ant-test', maxRetries: 0 })
})
afterAll(async () => {
  await server.close()
})
beforeEach(() => {
  server.mock.reset()
})

function system(): Anthropic.TextBlockParam[] {
  return [{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }]
}

describe('prompt caching on /v1/messages', () => {
  it('writes the prefix up to the last breakpoint, then reads it back on the next turn', async () => {
    server.mock.script(
      { reply: { type: 'text', text: 'First answer.' } },
      { reply: { type: 'text', text: 'Second.' } },
    )
    const question: Anthropic.MessageParam = {
      role: 'user',
      content: [
        { type: 'text', text: 'What do the notes say about tides?', cache_control: { type: 'ephemeral' } },
      ],
    }
    const first = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      system: system(),
      tools: TOOLS,
      messages: [question],
    })
    expect(first.usage.cache_read_input_tokens).toBe(0)
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(200)
    const written = first.usage.cache_creation_input_tokens ?? 0
    // The next turn moves the breakpoint to its own last block; the earlier one is found by the lookback.
    const second = await client.messages
      .stream({
        model: MODEL,
        max_tokens: 100,
        system: system(),
        tools: TOOLS,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'What do the notes say about tides?' }] },
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: [{ type: 'text', text: 'And currents?', cache_control: { type: 'ephemeral' } }],
          },
        ],
      })
      .finalMessage()
    expect(second.usage.cache_read_input_tokens).toBe(written)
    expect(second.usage.cache_creation_input_tokens).toBeGreaterThan(0)
    expect(second.usage.input_tokens).toBeGreaterThanOrEqual(0)
  })

  it('reports no cache use without breakpoints, and a changed system prompt misses', async () => {
    const plain = await client.messages.create({
      model: MODEL,
      max_tokens: 20,
      system: SYSTEM,
      messages: [{ role: 'user', content: 'x' }],
    })
    expect(plain.usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 })
    const ask = (text: string) =>
      client.messages.create({
        model: MODEL,
        max_tokens: 20,
        system: [{ type: 'text', text, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'x' }],
      })
    expect((await ask(SYSTEM)).usage.cache_read_input_tokens).toBe(0)
    expect((await ask(SYSTEM)).usage.cache_read_input_tokens).toBeGreaterThan(0)
    const changed = await ask(`${SYSTEM} Changed.`)
    expect(changed.usage.cache_read_input_tokens).toBe(0)
    expect(changed.usage.cache_creation_input_tokens).toBeGreaterThan(0)
  })

  it('refuses a fifth breakpoint and a marker of an unknown type, as the API does', async () => {
    const marked = (text: string): Anthropic.TextBlockParam => ({
      type: 'text',
      text,
      cache_control: { type: 'ephemeral' },
    })
    const error = await client.messages
      .create({
        model: MODEL,
        max_tokens: 20,
        system: [marked('a'), marked('b')],
        tools: TOOLS,
        messages: [{ role: 'user', content: [marked('c'), marked('d')] }],
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect((error as Error).message).toContain(
      'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    )
    const wrongType = await client.messages
      .create({
        model: MODEL,
        max_tokens: 20,
        system: [{ type: 'text', text: 'a', cache_control: { type: 'persistent' } as never }],
        messages: [{ role: 'user', content: 'x' }],
      })
      .catch((e: unknown) => e)
    expect(wrongType).toBeInstanceOf(Anthropic.BadRequestError)
    expect((wrongType as Error).message).toContain("system.0.cache_control.type: Input should be 'ephemeral'")
  })
})

describe('thinking blocks sent back on /v1/messages', () => {
  const tools: Anthropic.Tool[] = [{ name: 'search', input_schema: { type: 'object', properties: {} } }]
  const thinking = { type: 'enabled', budget_tokens: 1024 } as const

  async function toolTurn(): Promise<Anthropic.Message> {
    server.mock.script({
      reply: { type: 'tool-calls', calls: [{ name: 'search', arguments: {} }], reasoning: 'Search first.' },
    })
    return client.messages.create({
      model: MODEL,
      max_tokens: 2048,
      thinking,
      tools,
      messages: [{ role: 'user', content: 'Find it' }],
    })
  }

  function resultTurn(assistant: Anthropic.ContentBlockParam[], id: string) {
    return client.messages.create({
      model: MODEL,
      max_tokens: 2048,
      thinking,
      tools,
      messages: [
        { role: 'user', content: 'Find it' },
        { role: 'assistant', content: assistant },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'found' }] },
      ],
    })
  }

  it('accepts the signed thinking block back, and refuses a changed one or a tool turn without it', async () => {
    const first = await toolTurn()
    const [block, use] = first.content
    expect(block?.type).toBe('thinking')
    if (block?.type !== 'thinking' || use?.type !== 'tool_use')
      throw new Error('expected thinking and tool_use')
    expect(block.signature).toMatch(/^mockgpt-sig-/)
    server.mock.script({ reply: { type: 'text', text: 'Found it.' } })
    const answer = await resultTurn([block, use], use.id)
    expect(answer.content.at(-1)).toMatchObject({ type: 'text', text: 'Found it.' })

    const changed = await resultTurn([{ ...block, thinking: 'Something else.' }, use], use.id).catch(
      (e: unknown) => e,
    )
    expect(changed).toBeInstanceOf(Anthropic.BadRequestError)
    expect((changed as Error).message).toContain(
      'messages.1.content.0: Invalid `signature` in `thinking` block.',
    )

    const dropped = await resultTurn([use], use.id).catch((e: unknown) => e)
    expect(dropped).toBeInstanceOf(Anthropic.BadRequestError)
    expect((dropped as Error).message).toContain(
      'Expected `thinking` or `redacted_thinking`, but found `tool_use`',
    )
  })

  it('checks the thinking budget against max_tokens', async () => {
    const error = await client.messages
      .create({
        model: MODEL,
        max_tokens: 1000,
        thinking: { type: 'enabled', budget_tokens: 1024 },
        messages: [{ role: 'user', content: 'x' }],
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect((error as Error).message).toContain('`max_tokens` must be greater than `thinking.budget_tokens`.')
  })
})

describe('faults on a /v1/messages stream', () => {
  it('a malformed-chunk fault is a named event the SDK cannot parse (it skips unnamed frames)', async () => {
    server.mock.script({
      reply: { type: 'text', text: 'A long enough answer to cut.' },
      faults: [{ type: 'malformed-chunk', afterChunks: 3 }],
    })
    const quiet = new Anthropic({
      baseURL: server.url,
      apiKey: 'sk-ant-test',
      maxRetries: 0,
      logLevel: 'off',
    })
    const stream = await quiet.messages.create({
      model: MODEL,
      max_tokens: 50,
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    })
    const types: string[] = []
    const error = await (async () => {
      for await (const event of stream) types.push(event.type)
    })().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SyntaxError)
    expect(types[0]).toBe('message_start')
    expect(types).not.toContain('message_stop')
  })
})
