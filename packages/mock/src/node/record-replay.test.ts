/**
 * Record and replay: a MockGPT in record mode forwards to an upstream (here a second MockGPT, since nothing
 * else is reachable), writes the exchanges to a fixture file with every credential stripped, and a third
 * MockGPT replays the file with no upstream at all; in strict mode a request the fixture does not hold is
 * an error.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterAll, describe, expect, it } from 'vitest'
import { parseMockFixtures } from '../parse-mock-fixtures.js'
import { startMockGPTServer } from './start-mock-gpt-server.js'

const UPSTREAM_KEY = 'sk-upstream-secret-42'
const CLIENT_KEY = 'sk-client-secret-77'
const dir = mkdtempSync(join(tmpdir(), 'mockgpt-fixtures-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function collect(stream: AsyncIterable<OpenAI.ChatCompletionChunk>): Promise<string> {
  let text = ''
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ''
  return text
}

describe('record mode, then replay', () => {
  it('records JSON, streamed and Anthropic exchanges without secrets, and replays them offline', async () => {
    const file = join(dir, 'chat.json')
    const upstream = await startMockGPTServer({
      seed: 9,
      apiKey: UPSTREAM_KEY,
      script: [
        { reply: { type: 'text', text: 'Recorded answer.' }, match: { lastUserMessageIncludes: 'json' } },
        {
          reply: { type: 'error', status: 429, retryAfterMs: 5 },
          match: { lastUserMessageIncludes: 'limit' },
        },
      ],
    })
    const recorder = await startMockGPTServer({
      record: { upstream: upstream.baseURL, apiKey: UPSTREAM_KEY, file },
    })
    const openai = new OpenAI({ baseURL: recorder.baseURL, apiKey: CLIENT_KEY, maxRetries: 0 })
    const anthropic = new Anthropic({ baseURL: recorder.url, apiKey: CLIENT_KEY, maxRetries: 0 })
    const ask = (content: string) =>
      openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] })
    const streamed = (content: string) =>
      openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content }],
        stream: true,
      })
    const message = () =>
      anthropic.messages.create({
        model: 'claude-haiku-4-5',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hello claude' }],
      })

    let recorded: { json: string | null; stream: string; claude: unknown; limited: unknown }
    try {
      recorded = {
        json: (await ask('json please')).choices[0]?.message.content ?? null,
        stream: await collect(await streamed('stream please')),
        claude: (await message()).content,
        limited: await ask('limit me').catch((e: unknown) => (e as { status?: number }).status),
      }
      expect(recorded.json).toBe('Recorded answer.')
      expect(recorded.limited).toBe(429)
      expect(upstream.mock.requests.map((r) => r.path)).toEqual([
        '/v1/chat/completions',
        '/v1/chat/completions',
        '/v1/messages',
        '/v1/chat/completions',
      ])
      expect(recorder.fixtures).toHaveLength(4)
    } finally {
      await recorder.close()
      await upstream.close()
    }
    const text = readFileSync(file, 'utf8')
    expect(text).not.toContain(UPSTREAM_KEY)
    expect(text).not.toContain(CLIENT_KEY)
    const fixtures = parseMockFixtures(text, file)
    expect(fixtures.map((f) => f.response.status)).toEqual([200, 200, 200, 429])
    expect(fixtures[1]?.response.chunks?.at(-1)).toBe('data: [DONE]\n\n')

    const replay = await startMockGPTServer({ replay: fixtures, strict: true })
    try {
      const offline = new OpenAI({ baseURL: replay.baseURL, apiKey: 'anything', maxRetries: 0 })
      const again = await offline.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'json please' }],
      })
      expect(again.choices[0]?.message.content).toBe(recorded.json)
      const stream = await offline.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'stream please' }],
        stream: true,
      })
      expect(await collect(stream)).toBe(recorded.stream)
      const claude = await new Anthropic({ baseURL: replay.url, apiKey: 'x', maxRetries: 0 }).messages.create(
        {
          model: 'claude-haiku-4-5',
          max_tokens: 50,
          messages: [{ role: 'user', content: 'hello claude' }],
        },
      )
      expect(claude.content).toEqual(recorded.claude)
      const limited = await offline.chat.completions
        .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'limit me' }] })
        .catch((e: unknown) => e)
      expect(limited).toBeInstanceOf(OpenAI.RateLimitError)
      expect(replay.mock.requests.map((r) => r.reply)).toEqual(['replay', 'replay', 'replay', 'replay'])

      const miss = await offline.chat.completions
        .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'never recorded' }] })
        .catch((e: unknown) => e)
      expect(miss).toBeInstanceOf(OpenAI.BadRequestError)
      expect((miss as Error).message).toMatch(/no script entry or replay fixture matches/)
    } finally {
      replay.mock.reset()
      await replay.close()
    }
  })

  it('falls back to the default responder on a miss when not strict, and reports an unreachable upstream', async () => {
    const replay = await startMockGPTServer({ replay: [] })
    const recorder = await startMockGPTServer({ record: { upstream: 'http://127.0.0.1:9/v1' } })
    try {
      const response = await new OpenAI({ baseURL: replay.baseURL, apiKey: 'x' }).chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'hello' }],
      })
      expect(response.choices[0]?.message.content).toMatch(/hello/)
      const failed = await fetch(`${recorder.baseURL}/models`)
      expect(failed.status).toBe(502)
      expect(((await failed.json()) as { error: { code: string } }).error.code).toBe('upstream_unreachable')
    } finally {
      await replay.close()
      await recorder.close()
    }
  })

  it('refuses malformed fixtures with the path and the nearest key', () => {
    expect(() =>
      parseMockFixtures({
        version: 1,
        interactions: [{ request: { method: 'POST', path: '/v1/x', bdy: {} }, response: {} }],
      }),
    ).toThrow(/interactions\[0\]\.request\.bdy.*did you mean "body"/)
    expect(() => parseMockFixtures({ version: 2, interactions: [] })).toThrow(/version must be 1/)
  })
})
