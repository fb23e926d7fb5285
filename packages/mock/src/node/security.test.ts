/**
 * Safe by default. A web page the developer has open must not read recorded API keys or rewrite the
 * script (reproduced in headless Chromium from another origin, and through DNS rebinding), a server beyond
 * loopback must demand an admin token, and an oversized body is refused before it is read.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, request as httpRequest, type Server } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MockGPTServer, startMockGPTServer } from './start-mock-gpt-server.js'

const CHROMIUM = '/usr/bin/chromium'
const VICTIM_KEY = 'sk-victim-0123456789'

/** What the attacker's page tries, from its own origin, against MockGPT at `target`. */
const ATTACK = `
window.attack = async (target) => {
  const result = { read: null, readError: null, preflightError: null }
  try {
    const response = await fetch(target + '/_mock/requests')
    result.read = await response.text()
  } catch (error) {
    result.readError = String(error)
  }
  // A "simple" cross-site POST: no preflight, the browser sends it and hides the answer.
  await fetch(target + '/_mock/script', {
    method: 'POST',
    mode: 'no-cors',
    headers: { 'content-type': 'text/plain' },
    body: JSON.stringify([{ reply: { type: 'text', text: 'pwned' }, times: 100 }]),
  }).catch(() => undefined)
  try {
    await fetch(target + '/_mock/reset', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  } catch (error) {
    result.preflightError = String(error)
  }
  return result
}
window.ready = true
`

function rawGet(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, method: 'GET' }, (res) => {
      let body = ''
      res.on('data', (c: Buffer) => (body += c.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

async function victimCall(server: MockGPTServer): Promise<void> {
  const response = await fetch(`${server.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${VICTIM_KEY}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'secret plans' }] }),
  })
  await response.text()
}

describe('MockGPT against a hostile web page (headless Chromium)', () => {
  let page: Server
  let pageOrigin = ''
  let context: BrowserContext | undefined
  let userDataDir: string | undefined
  const servers: MockGPTServer[] = []

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium is not installed at ${CHROMIUM}. Install it: apt-get install -y chromium.`)
    }
    page = createServer((_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' })
      res.end(`<!doctype html><meta charset="utf-8"><title>attacker</title><script>${ATTACK}</script>`)
    })
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve))
    const address = page.address()
    pageOrigin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
    userDataDir = mkdtempSync(join(tmpdir(), 'mockgpt-attack-'))
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        // DNS rebinding, simulated: the attacker's name resolves to loopback.
        '--host-resolver-rules=MAP attacker.test 127.0.0.1',
      ],
    })
  })

  afterAll(async () => {
    await context?.close()
    for (const server of servers) await server.close()
    await new Promise<void>((resolve) => page.close(() => resolve()))
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true })
  })

  async function attack(target: string) {
    const tab = await (context as BrowserContext).newPage()
    await tab.goto(`${pageOrigin}/`)
    await tab.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true)
    const result = (await tab.evaluate(
      (t) => (window as unknown as { attack: (t: string) => Promise<unknown> }).attack(t),
      target,
    )) as { read: string | null; readError: string | null; preflightError: string | null }
    await tab.close()
    return result
  }

  it('cannot read recorded keys nor rewrite the script from another origin', async () => {
    const server = await startMockGPTServer({ seed: 1 })
    servers.push(server)
    await victimCall(server)
    const result = await attack(server.url)
    expect(result.read).toBeNull()
    expect(result.readError).toMatch(/Failed to fetch/)
    expect(result.preflightError).toMatch(/Failed to fetch/)
    // The simple POST reached the server but was refused: the script is unchanged, nothing was reset.
    expect(server.mock.pendingScript).toBe(0)
    expect(server.mock.requests).toHaveLength(1)
    expect(server.mock.requests[0]?.headers.authorization).toBe('Bearer <redacted>')
    const listing = await (await fetch(`${server.url}/_mock/requests`)).text()
    expect(listing).not.toContain(VICTIM_KEY)
  })

  it('lets a configured origin in (the harness would see a successful theft), still without the key', async () => {
    const server = await startMockGPTServer({ seed: 1, adminOrigins: [pageOrigin] })
    servers.push(server)
    await victimCall(server)
    const result = await attack(server.url)
    expect(result.readError).toBeNull()
    expect(result.read).toContain('secret plans')
    expect(result.read).not.toContain(VICTIM_KEY)
    // The allowed origin could also preflight and reset the mock.
    expect(result.preflightError).toBeNull()
    expect(server.mock.requests).toHaveLength(0)
  })

  it('refuses a rebound Host name, in the browser and on the wire', async () => {
    const server = await startMockGPTServer({ seed: 1 })
    servers.push(server)
    await victimCall(server)
    const tab = await (context as BrowserContext).newPage()
    const response = await tab.goto(`http://attacker.test:${server.port}/_mock/requests`)
    expect(response?.status()).toBe(403)
    expect(await tab.content()).toContain('DNS rebinding')
    await tab.close()
    const wire = await rawGet(server.port, '/v1/models', { host: `attacker.test:${server.port}` })
    expect(wire.status).toBe(403)
    expect(JSON.parse(wire.body).error.code).toBe('host_not_allowed')
    for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`]) {
      expect((await rawGet(server.port, '/v1/models', { host })).status).toBe(200)
    }
  })
})

describe('beyond loopback', () => {
  it('generates an admin token and requires it on the admin routes', async () => {
    const server = await startMockGPTServer({ host: '0.0.0.0' })
    try {
      expect(server.adminToken).toMatch(/^[\w-]{20,}$/)
      const local = `http://127.0.0.1:${server.port}`
      expect((await fetch(`${local}/_mock/usage`)).status).toBe(401)
      const allowed = await fetch(`${local}/_mock/usage`, {
        headers: { authorization: `Bearer ${server.adminToken}` },
      })
      expect(allowed.status).toBe(200)
      // The model routes stay open (they have their own apiKey option).
      expect((await fetch(`${local}/v1/models`)).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it('uses the given token, and refuses a prebuilt engine without one', async () => {
    const server = await startMockGPTServer({ host: '0.0.0.0', adminToken: 'admin-secret' })
    try {
      expect(server.adminToken).toBe('admin-secret')
      const response = await fetch(`http://127.0.0.1:${server.port}/_mock/requests`, {
        headers: { 'x-mockgpt-admin-token': 'admin-secret' },
      })
      expect(response.status).toBe(200)
    } finally {
      await server.close()
    }
    const { createMockGPT } = await import('../mock-gpt.js')
    await expect(startMockGPTServer({ host: '0.0.0.0', mock: createMockGPT() })).rejects.toThrow(/adminToken/)
  })
})

describe('an oversized body', () => {
  it('is refused from its Content-Length, before a byte of it is read', async () => {
    const server = await startMockGPTServer({ maxBodyBytes: 1024 })
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(server.port, '127.0.0.1', () => {
          socket.write(
            `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n`,
          )
        })
        let text = ''
        socket.on('data', (d: Buffer) => {
          text += d.toString()
        })
        socket.on('close', () => resolve(text))
        socket.on('error', reject)
      })
      expect(answer).toMatch(/^HTTP\/1\.1 413/)
      expect(answer).toContain('request_too_large')
      expect(server.mock.requests).toHaveLength(0)
    } finally {
      await server.close()
    }
  })
})
