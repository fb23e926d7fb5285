import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { describe, expect, it } from 'vitest'
import { useMockGPT } from './index.js'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const FIXTURES = fileURLToPath(new URL('./__fixtures__/vitest.config.ts', import.meta.url))

describe('useMockGPT', () => {
  const mock = useMockGPT({ seed: 2, script: [{ reply: { type: 'text', text: 'from the shared script' } }] })

  it("points the environment at this test's scope, for clients that read it", async () => {
    expect(process.env.OPENAI_BASE_URL).toBe(mock.baseURL)
    expect(process.env.OPENAI_BASE_URL).toMatch(/\/test\/use-mock-gpt\.test\.ts-\d+-\d+\/v1$/)
    const completion = await new OpenAI().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect(completion.choices[0]?.message.content).toBe('from the shared script')
    mock.script({ reply: { type: 'text', text: 'for Claude' } })
    const message = await new Anthropic().messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 20,
      messages: [{ role: 'user', content: 'hi' }],
    })
    expect(message.content[0]?.type === 'text' && message.content[0].text).toBe('for Claude')
    expect(mock.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/messages'])
  })

  it('gives the next test a fresh scope on the same server', async () => {
    expect(mock.requests).toEqual([])
    expect(mock.pendingScript).toBe(1)
    expect(mock.server.mock.requests).toEqual([])
    await new OpenAI().chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'x' }],
    })
    expect(mock.usage.calls).toBe(1)
  })

  it('fails a test that left entries unused in strict mode or hit a script problem', () => {
    const child = spawnSync(
      process.execPath,
      [`${ROOT}node_modules/vitest/vitest.mjs`, 'run', '--config', FIXTURES],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, CI: '', NO_COLOR: '1', FORCE_COLOR: '0' },
        timeout: 120_000,
      },
    )
    const output = `${child.stdout}\n${child.stderr}`
    expect(child.status, output).toBe(1)
    expect(output).toMatch(/2 failed \| 1 passed/)
    expect(output).toMatch(/script entry 1 \("forgotten"\).* was never used/)
    expect(output).toMatch(/no script entry matches the request .*"unscripted"/)
  })
})
