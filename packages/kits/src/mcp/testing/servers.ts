/**
 * Real MCP servers for the tests: the fixture server as a child process over stdio, and in process over
 * streamable HTTP and legacy HTTP+SSE on loopback (the SDK's own server transports), plus the third-party
 * `@modelcontextprotocol/server-everything` over stdio.
 */

import { readFileSync } from 'node:fs'
import { createServer, type Server as HttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { McpStdioTransport } from '@agent-core/kits/mcp'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { createFixtureServer } from './fixture-server.js'

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url))
const require = createRequire(import.meta.url)
/** tsx by absolute URL, so a child started in another working directory still loads TypeScript. */
const TSX = pathToFileURL(require.resolve('tsx')).href

/** Runs a TypeScript file of this folder as a child process (Node with tsx and the source condition). */
export function tsScript(file: string, args: readonly string[] = []): McpStdioTransport {
  return {
    type: 'stdio',
    command: process.execPath,
    args: ['--conditions=@agent-core/source', '--import', TSX, here(file), ...args],
  }
}

/** Runs a plain Node script of this folder (no TypeScript, starts fast). */
export function nodeScript(file: string, args: readonly string[] = []): McpStdioTransport {
  return { type: 'stdio', command: process.execPath, args: [here(file), ...args] }
}

/** The fixture server over stdio. */
export function fixtureOverStdio(args: readonly string[] = []): McpStdioTransport {
  return tsScript('./fixture-server.ts', args)
}

/** `@modelcontextprotocol/server-everything`, the reference server, over stdio. */
export function everythingOverStdio(): McpStdioTransport {
  const entry = join(
    dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
    'dist/index.js',
  )
  return { type: 'stdio', command: process.execPath, args: [entry, 'stdio'] }
}

/** A loopback HTTP server and how to stop it. */
export interface LoopbackServer {
  readonly url: string
  /** Every request's method, path and headers, in order. */
  readonly requests: { method: string; path: string; headers: IncomingMessage['headers'] }[]
  close(): Promise<void>
}

async function listen(
  handler: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
  path: string,
  requests: LoopbackServer['requests'],
  onClose: () => Promise<void>,
): Promise<LoopbackServer> {
  const server: HttpServer = createServer((request, response) => {
    requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers })
    handler(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500)
      response.end(String(error))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    async close() {
      await onClose()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    },
  }
}

/** Options of the loopback fixture servers. */
export interface LoopbackOptions {
  /** Requests without `Authorization: Bearer <token>` get 401. */
  readonly token?: string
  /** A server of your own instead of the fixture. */
  readonly create?: () => Server
}

function authorized(request: IncomingMessage, response: ServerResponse, token: string | undefined): boolean {
  if (token === undefined || request.headers.authorization === `Bearer ${token}`) return true
  response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}')
  return false
}

/** The fixture server over streamable HTTP on loopback: one SDK transport and server per session. */
export function fixtureOverHttp(options: LoopbackOptions = {}): Promise<LoopbackServer> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>()
  const requests: LoopbackServer['requests'] = []
  return listen(
    async (request, response) => {
      if (!authorized(request, response, options.token)) return
      const id = request.headers['mcp-session-id']
      const known = typeof id === 'string' ? sessions.get(id) : undefined
      if (known) return known.transport.handleRequest(request, response)
      const server = (options.create ?? createFixtureServer)()
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, { transport, server })
        },
      })
      await server.connect(transport)
      await transport.handleRequest(request, response)
    },
    '/mcp',
    requests,
    async () => {
      await Promise.all([...sessions.values()].map((session) => session.server.close()))
    },
  )
}

/** The fixture server over the legacy HTTP+SSE transport on loopback. */
export function fixtureOverSse(options: LoopbackOptions = {}): Promise<LoopbackServer> {
  const sessions = new Map<string, { transport: SSEServerTransport; server: Server }>()
  const requests: LoopbackServer['requests'] = []
  return listen(
    async (request, response) => {
      if (!authorized(request, response, options.token)) return
      const url = new URL(request.url ?? '/', 'http://127.0.0.1')
      if (request.method === 'GET' && url.pathname === '/sse') {
        const transport = new SSEServerTransport('/messages', response)
        const server = (options.create ?? createFixtureServer)()
        sessions.set(transport.sessionId, { transport, server })
        transport.onclose = () => sessions.delete(transport.sessionId)
        await server.connect(transport)
        return
      }
      const session = sessions.get(url.searchParams.get('sessionId') ?? '')
      if (request.method === 'POST' && url.pathname === '/messages' && session) {
        await session.transport.handlePostMessage(request, response)
        return
      }
      response.writeHead(404).end()
    },
    '/sse',
    requests,
    async () => {
      await Promise.all([...sessions.values()].map((session) => session.server.close()))
    },
  )
}

/** True while a process with this id runs (a zombie waiting to be reaped by its new parent has ended). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return true
  }
}

/** Waits (bounded) until `check` is true; false if it never became true. */
export async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    if (check()) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return check()
}

/** Waits (bounded) until the asynchronous `check` is true; false if it never became true. */
export async function eventuallyAsync(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return check()
}
