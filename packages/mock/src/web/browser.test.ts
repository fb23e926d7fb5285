/**
 * Proves the engine runs in a browser: esbuild bundles `@agent-core/mock/web` for the browser platform (a
 * `node:` import would fail the build), a loopback server serves it, and headless Chromium (driven by
 * playwright-core) calls the handler and reads the streamed result.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { type BrowserContext, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const CHROMIUM = '/usr/bin/chromium'
const HERE = fileURLToPath(new URL('.', import.meta.url))

interface EsbuildApi {
  build(options: Record<string, unknown>): Promise<{ outputFiles: { text: string }[] }>
}

/** esbuild ships with tsup (a root devDependency); resolve it from there. */
async function loadEsbuild(): Promise<EsbuildApi> {
  const fromHere = createRequire(import.meta.url)
  const fromTsup = createRequire(fromHere.resolve('tsup'))
  return (await import(pathToFileURL(fromTsup.resolve('esbuild')).href)) as EsbuildApi
}

const PAGE_SCRIPT = `
import { createMockGPTFetchHandler } from './index.ts'

const handler = createMockGPTFetchHandler({
  seed: 5,
  script: [
    { reply: { type: 'text', text: 'Hello from the browser engine.' } },
    { reply: { type: 'tool-calls', calls: [{ name: 'lookup' }, { name: 'lookup' }] } },
    { faults: [{ type: 'disconnect', afterChunks: 2 }] },
  ],
})

async function readStream(response) {
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let error = null
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
  } catch (e) {
    error = String(e)
  }
  const data = text.split('\\n\\n').filter((b) => b.startsWith('data: ')).map((b) => b.slice(6))
  return { data, error }
}

const chat = (content, extra = {}) => handler.fetch('http://mockgpt.local/v1/chat/completions', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], stream: true, ...extra }),
})

window.runMockGPT = async () => {
  const text = await readStream(await chat('hi'))
  const tools = await readStream(await chat('look up', {
    tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', required: ['q'], properties: { q: { type: 'string', minLength: 1 } }, additionalProperties: false } } }],
  }))
  const dropped = await readStream(await chat('drop me'))
  const chunks = (d) => d.filter((x) => x !== '[DONE]').map((x) => JSON.parse(x))
  const fragments = chunks(tools.data).flatMap((c) => c.choices[0]?.delta.tool_calls ?? [])
  const args = [0, 1].map((i) => JSON.parse(fragments.filter((f) => f.index === i).map((f) => f.function.arguments).join('')))
  return {
    userAgent: navigator.userAgent,
    content: chunks(text.data).map((c) => c.choices[0]?.delta.content ?? '').join(''),
    lastText: text.data.at(-1),
    args,
    droppedCount: dropped.data.length,
    droppedError: dropped.error,
    recorded: handler.mock.requests.length,
  }
}
window.mockReady = true
`

describe('@agent-core/mock/web in headless Chromium', () => {
  let server: Server
  let context: BrowserContext | undefined
  let userDataDir: string | undefined
  let url = ''

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is not installed at ${CHROMIUM}. Install it (as root: apt-get update && apt-get install -y chromium); CI installs it.`,
      )
    }
    const esbuild = await loadEsbuild()
    const result = await esbuild.build({
      stdin: { contents: PAGE_SCRIPT, resolveDir: HERE, loader: 'ts', sourcefile: 'page.ts' },
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      conditions: ['@agent-core/source'],
      logLevel: 'silent',
    })
    const bundle = result.outputFiles[0]?.text ?? ''
    server = createServer((req, res) => {
      if (req.url === '/bundle.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' })
        res.end(bundle)
      } else {
        res.writeHead(200, { 'content-type': 'text/html' })
        res.end(
          '<!doctype html><meta charset="utf-8"><title>MockGPT</title><script type="module" src="/bundle.js"></script>',
        )
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`
    userDataDir = mkdtempSync(join(tmpdir(), 'mockgpt-chromium-'))
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    })
  })

  afterAll(async () => {
    await context?.close()
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true })
  })

  it('streams text and tool calls through the fetch handler inside the page', async () => {
    const page = await (context as BrowserContext).newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(url)
    await page.waitForFunction(() => (window as unknown as { mockReady?: boolean }).mockReady === true)
    const result = (await page.evaluate(() =>
      (window as unknown as { runMockGPT: () => Promise<unknown> }).runMockGPT(),
    )) as {
      userAgent: string
      content: string
      lastText: string
      args: { q: string }[]
      droppedCount: number
      droppedError: string | null
      recorded: number
    }
    expect(errors).toEqual([])
    expect(result.userAgent).toMatch(/Chrome/)
    expect(result.content).toBe('Hello from the browser engine.')
    expect(result.lastText).toBe('[DONE]')
    expect(result.args.length).toBe(2)
    for (const a of result.args) expect(typeof a.q === 'string' && a.q.length > 0).toBe(true)
    expect(result.droppedCount).toBe(2)
    expect(result.droppedError).toMatch(/dropped the connection/)
    expect(result.recorded).toBe(3)
  })
})
