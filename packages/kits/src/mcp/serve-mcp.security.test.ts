// Security reproductions for serveMcp over streamable HTTP (issue 32): a page on another origin, a
// DNS-rebinding host name, a caller without credentials, a session flood, oversized bodies inside a
// session and a huge declared Content-Length. Each test failed before the fix.
import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import { defineModelTool } from '@agent-core/core/tools'
import {
  connectMcpServer,
  McpConnectionError,
  type McpHttpServerHandle,
  serveMcp,
} from '@agent-core/kits/mcp'
import { afterEach, describe, expect, it } from 'vitest'
import { eventually } from './testing/servers.js'

const ran: string[] = []
const deleteAll = defineModelTool<{ confirm?: string }, string>({
  id: 'delete_all',
  description: 'Deletes every record',
  inputSchema: { type: 'object', properties: { confirm: { type: 'string' } } },
  execute: ({ confirm }) => {
    ran.push(`delete_all ${confirm ?? ''}`)
    return 'deleted'
  },
})

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
})

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: string
}

/** One HTTP request with the headers a browser or a rebinding page would send (fetch cannot set Host). */
function send(url: string, headers: Record<string, string>, body?: string, method = 'POST'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, {
      method,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
    })
    request.on('response', (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        text += chunk
      })
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
      )
    })
    request.on('error', reject)
    request.end(body)
  })
}

const servers: McpHttpServerHandle[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})
async function serve(transport: Record<string, unknown> = {}): Promise<McpHttpServerHandle> {
  const handle = await serveMcp([deleteAll], { type: 'http', ...transport })
  servers.push(handle)
  return handle
}

/** Initializes a session as a plain HTTP client and returns its id. */
async function session(url: string, headers: Record<string, string> = {}): Promise<string> {
  const answer = await send(url, headers, INITIALIZE)
  expect(answer.status).toBe(200)
  const id = answer.headers['mcp-session-id']
  expect(typeof id).toBe('string')
  await send(
    url,
    { ...headers, 'mcp-session-id': id as string, 'mcp-protocol-version': '2025-06-18' },
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  )
  return id as string
}

describe('serveMcp over streamable HTTP refuses what the MCP security guidance says to refuse', () => {
  it('refuses a page on another origin, before it can open a session or call a tool', async () => {
    const handle = await serve()
    const foreign = await send(handle.url!, { origin: 'https://evil.example' }, INITIALIZE)
    expect(foreign.status).toBe(403)
    expect(foreign.body).toContain('allowedOrigins')
    const opaque = await send(handle.url!, { origin: 'null' }, INITIALIZE)
    expect(opaque.status).toBe(403)
    // A session opened by a program does not let a page in either.
    const id = await session(handle.url!)
    const call = await send(
      handle.url!,
      { origin: 'https://evil.example', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'delete_all', arguments: {} },
      }),
    )
    expect(call.status).toBe(403)
    expect(ran).toEqual([])
    expect(handle.sessions).toBe(1)
  })

  it('lets in the origins the App lists', async () => {
    const handle = await serve({ allowedOrigins: ['https://app.example.com'] })
    const listed = await send(handle.url!, { origin: 'https://APP.example.com' }, INITIALIZE)
    expect(listed.status).toBe(200)
    expect(
      (await send(handle.url!, { origin: 'https://app.example.com.evil.example' }, INITIALIZE)).status,
    ).toBe(403)
  })

  it('refuses a DNS-rebinding host name, also inside a session', async () => {
    const handle = await serve()
    const port = new URL(handle.url!).port
    for (const host of [
      `127.0.0.1.nip.io:${port}`,
      `evil.example:${port}`,
      `localhost:${Number(port) + 1}`,
    ]) {
      const answer = await send(handle.url!, { host }, INITIALIZE)
      expect(answer.status, host).toBe(403)
    }
    const id = await session(handle.url!)
    const inSession = await send(
      handle.url!,
      { host: `evil.example:${port}`, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    )
    expect(inSession.status).toBe(403)
    expect((await send(handle.url!, { host: `localhost:${port}` }, INITIALIZE)).status).toBe(200)
  })

  it('checks Host when mounted with listen: false (loopback names at any port by default)', async () => {
    const handle = await serveMcp([deleteAll], { type: 'http', listen: false })
    servers.push(handle)
    const node = createServer((request, response) => void handle.handleRequest(request, response))
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`
      expect((await send(url, { host: 'evil.example' }, INITIALIZE)).status).toBe(403)
      expect((await send(url, {}, INITIALIZE)).status).toBe(200)
    } finally {
      node.closeAllConnections()
      await new Promise((resolve) => node.close(resolve))
    }
  })

  it('runs the authentication hook before every method, tools/list included', async () => {
    const seen: (string | undefined)[] = []
    const handle = await serve({
      authenticate: (request: { headers: Record<string, unknown>; sessionId: string | undefined }) => {
        seen.push(request.sessionId)
        return request.headers.authorization === 'Bearer s3cret'
      },
    })
    const anonymous = await send(handle.url!, {}, INITIALIZE)
    expect(anonymous.status).toBe(401)
    expect(anonymous.headers['www-authenticate']).toBe('Bearer')
    const id = await session(handle.url!, { authorization: 'Bearer s3cret' })
    const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    const stolen = await send(handle.url!, headers, list)
    expect(stolen.status).toBe(401)
    expect(stolen.body).not.toContain('delete_all')
    const listed = await send(handle.url!, { ...headers, authorization: 'Bearer s3cret' }, list)
    expect(listed.status).toBe(200)
    expect(listed.body).toContain('delete_all')
    expect(seen).toContain(id)
    // A throwing hook refuses; so does one that answers anything but true.
    const throwing = await serve({
      authenticate: () => {
        throw new Error('directory down')
      },
    })
    expect((await send(throwing.url!, {}, INITIALIZE)).status).toBe(401)
    const truthy = await serve({ authenticate: () => 'yes' })
    expect((await send(truthy.url!, {}, INITIALIZE)).status).toBe(401)
    // The connection kit's client sends a bearer token and gets in.
    const client = await connectMcpServer({
      name: 'guarded',
      transport: { type: 'http', url: handle.url!, bearerToken: 's3cret' },
    })
    expect(client.tools.map((tool) => tool.id)).toEqual(['guarded__delete_all'])
    await client.close()
    await expect(
      connectMcpServer({ name: 'anon', transport: { type: 'http', url: handle.url! } }),
    ).rejects.toBeInstanceOf(McpConnectionError)
  })

  it('bounds the sessions it opens and closes idle ones', async () => {
    const handle = await serve({ maxSessions: 3, sessionIdleMs: 60_000 })
    for (let index = 0; index < 3; index += 1) await session(handle.url!)
    const flood = await send(handle.url!, {}, INITIALIZE)
    expect(flood.status).toBe(503)
    expect(flood.headers['retry-after']).toBeDefined()
    expect(handle.sessions).toBe(3)
    const brief = await serve({ maxSessions: 2, sessionIdleMs: 20 })
    await session(brief.url!)
    await session(brief.url!)
    expect(await eventually(() => brief.sessions === 0)).toBe(true)
    expect((await send(brief.url!, {}, INITIALIZE)).status).toBe(200)
  })

  it('applies maxBodyBytes to requests inside a session', async () => {
    const handle = await serve({ maxBodyBytes: 10_000 })
    const id = await session(handle.url!)
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'delete_all', arguments: { confirm: 'x'.repeat(1_000_000) } },
    })
    const answer = await send(
      handle.url!,
      { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
      big,
    )
    expect(answer.status).toBe(413)
    expect(ran).toEqual([])
  })

  it('answers 413 at once to a huge declared Content-Length, without waiting for the body', async () => {
    const handle = await serve()
    const url = new URL(handle.url!)
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname)
      let text = ''
      socket.setEncoding('utf8')
      socket.on('data', (chunk: string) => {
        text += chunk
        if (text.includes('\r\n\r\n')) {
          socket.destroy()
          resolve(text)
        }
      })
      socket.on('error', reject)
      // The headers only: a server that waits for a terabyte never answers, and this test never ends.
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1099511627776\r\n\r\n{"jsonrpc":"2.0"`,
      )
    })
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large')
    expect(head.toLowerCase()).toContain('connection: close')
  })

  it('refuses malformed security options with typed errors', async () => {
    await expect(serveMcp([deleteAll], { type: 'http', authenticate: 'yes' } as never)).rejects.toThrow(
      /authenticate/,
    )
    await expect(serveMcp([deleteAll], { type: 'http', allowedOrigins: ['not a url'] })).rejects.toThrow(
      /allowedOrigins\[0\]/,
    )
    await expect(serveMcp([deleteAll], { type: 'http', maxSessions: 0 })).rejects.toThrow(/maxSessions/)
  })
})
