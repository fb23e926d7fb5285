import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import OpenAI from 'openai'
import { afterAll, describe, expect, it } from 'vitest'
import { HELP, parseCliArgs } from './cli-args.js'

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url))
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const children: ChildProcess[] = []
const dir = mkdtempSync(join(tmpdir(), 'mockgpt-cli-'))

function run(args: string[]): ChildProcess {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@agent-core/source', CLI, ...args],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  children.push(child)
  return child
}

function output(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })))
}

function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = ''
    let errors = ''
    child.stderr?.on('data', (d: Buffer) => (errors += d.toString()))
    child.stdout?.on('data', (d: Buffer) => {
      seen += d.toString()
      const match = /listening on (http:\/\/\S+)/.exec(seen)
      if (match) resolve(match[1] as string)
    })
    child.once('close', (code) =>
      reject(new Error(`mockgpt exited with ${code} before listening: ${errors}`)),
    )
  })
}

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

describe('mockgpt CLI', () => {
  it('explains every flag in --help', async () => {
    const result = await output(run(['--help']))
    expect(result.code).toBe(0)
    for (const flag of [
      '--port',
      '--host',
      '--seed',
      '--script',
      '--api-key',
      '--model',
      '--chaos-rate',
      '--max-calls',
      '--max-tokens',
      '--strict',
      '--chaos-unrecoverable',
      '--replay',
      '--record',
      '--upstream',
      '--admin-token',
      '--allowed-host',
      '--help',
      '--version',
    ]) {
      expect(result.stdout).toContain(flag)
    }
    expect(result.stdout).toBe(HELP)
  })

  it('serves a script file to the official SDK, then stops on SIGTERM', async () => {
    const script = join(dir, 'responses.json')
    writeFileSync(
      script,
      JSON.stringify([
        { reply: { type: 'text', text: 'scripted over the CLI' } },
        {
          reply: { type: 'error', status: 503, retryAfterMs: 0 },
          match: { lastUserMessageIncludes: 'fail' },
        },
      ]),
    )
    const child = run([
      '--port',
      '0',
      '--seed',
      '1',
      '--script',
      script,
      '--api-key',
      'sk-cli',
      '--model',
      'mock-large',
    ])
    const url = await listening(child)
    const exited = output(child)
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-cli', maxRetries: 0 })
    const first = await client.chat.completions.create({
      model: 'mock-large',
      messages: [{ role: 'user', content: 'hello' }],
    })
    expect(first.choices[0]?.message.content).toBe('scripted over the CLI')
    await expect(
      client.chat.completions.create({
        model: 'mock-large',
        messages: [{ role: 'user', content: 'please fail' }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.InternalServerError)
    const models = await client.models.list()
    expect(models.data.map((m) => m.id)).toEqual(['mock-large'])
    const recorded = (await (await fetch(`${url}/_mock/requests`)).json()) as {
      data: { path: string; status: number }[]
    }
    expect(recorded.data.map((r) => r.status)).toEqual([200, 503, 200])
    child.kill('SIGTERM')
    expect((await exited).code).toBe(0)
  })

  it('in strict mode, exits 1 on SIGTERM when a request matched no script entry', async () => {
    const child = run(['--port', '0', '--strict'])
    const url = await listening(child)
    const exited = output(child)
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'unscripted' }] }),
    })
    expect(response.status).toBe(400)
    child.kill('SIGTERM')
    const result = await exited
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/no script entry matches.*"unscripted"/)
  })

  it('prints a generated admin token when it listens beyond loopback', async () => {
    const child = run(['--port', '0', '--host', '0.0.0.0'])
    const exited = output(child)
    const url = await listening(child)
    child.kill('SIGTERM')
    const result = await exited
    expect(url).toMatch(/^http:\/\/0\.0\.0\.0:/)
    expect(result.stdout).toMatch(
      /Admin token \(send Authorization: Bearer <token> to \/_mock\/\*\): [\w-]{20,}/,
    )
  })

  it('exits 2 with a clear message on a bad flag or a bad script', async () => {
    const badFlag = await output(run(['--port', 'eighty']))
    expect(badFlag.code).toBe(2)
    expect(badFlag.stderr).toContain('--port must be an integer')
    const script = join(dir, 'bad.json')
    writeFileSync(script, JSON.stringify([{ reply: { type: 'text' } }]))
    const badScript = await output(run(['--script', script]))
    expect(badScript.code).toBe(2)
    expect(badScript.stderr).toContain('[0].reply.text must be a string')
  })
})

describe('parseCliArgs', () => {
  it('parses every flag, with = or a separate value', () => {
    expect(
      parseCliArgs([
        '--port=0',
        '--host',
        '::1',
        '--seed',
        '-5',
        '--script',
        'a.json',
        '--api-key',
        'k1',
        '--api-key=k2',
        '--model',
        'm',
        '--chaos-rate',
        '0.25',
        '--max-calls',
        '3',
        '--max-tokens',
        '100',
        '--strict',
        '--chaos-unrecoverable',
        '--replay',
        'fixtures.json',
        '--admin-token',
        'tok',
        '--allowed-host',
        'mockgpt',
      ]),
    ).toEqual({
      help: false,
      version: false,
      port: 0,
      host: '::1',
      seed: -5,
      script: 'a.json',
      apiKeys: ['k1', 'k2'],
      models: ['m'],
      chaosRate: 0.25,
      maxCalls: 3,
      maxTokens: 100,
      strict: true,
      chaosUnrecoverable: true,
      replay: 'fixtures.json',
      record: undefined,
      upstream: undefined,
      adminToken: 'tok',
      allowedHosts: ['mockgpt'],
    })
  })

  it('rejects bad values and unknown flags', () => {
    expect(() => parseCliArgs(['--port', '70000'])).toThrow(/--port must be an integer from 0 to 65535/)
    expect(() => parseCliArgs(['--seed', '1.5'])).toThrow(/--seed/)
    expect(() => parseCliArgs(['--chaos-rate', '2'])).toThrow(/--chaos-rate/)
    expect(() => parseCliArgs(['--chaos-rate', 'NaN'])).toThrow(/--chaos-rate/)
    expect(() => parseCliArgs(['--max-calls', '-1'])).toThrow(/--max-calls/)
    expect(() => parseCliArgs(['--script'])).toThrow(/needs a value/)
    expect(() => parseCliArgs(['--verbose'])).toThrow(/Unknown option "--verbose"/)
    expect(() => parseCliArgs(['--record', 'f.json'])).toThrow(/--record and --upstream go together/)
    expect(() =>
      parseCliArgs(['--record', 'f.json', '--upstream', 'http://x/v1', '--replay', 'g.json']),
    ).toThrow(/exclude each other/)
  })
})
