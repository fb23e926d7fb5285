// Security reproductions for the MCP client (issue 32): a server that dies during a call over
// streamable HTTP, and hostile servers that send huge or deep schemas, backtracking patterns, huge
// results and notification floods. Each test failed before the fix (hung, or took the host's memory).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { MemoryDiagnosticSink } from '@agent-core/core'
import { compileSchema } from '@agent-core/core/tools'
import { connectMcpServer, McpConnectionError, McpLimitError, McpSchemaError } from '@agent-core/kits/mcp'
import { ToolLifecycleRegistry } from '@agent-core/kits/tools'
import { afterEach, describe, expect, it } from 'vitest'
import { readConnectionOptions } from './internal/options.js'
import { eventually } from './testing/servers.js'

interface Rpc {
  readonly jsonrpc: '2.0'
  readonly id?: number | string
  readonly method?: string
  readonly params?: Record<string, unknown>
}

interface Hostile {
  /** The tools tools/list answers. */
  tools?: unknown[]
  /** Answers a tools/call (the default answers "ok" as JSON). */
  call?: (message: Rpc, response: ServerResponse) => void
  /** Serves the session's GET event stream (the default answers 405: no stream). */
  stream?: (response: ServerResponse) => void
}

/** A hand-written streamable HTTP MCP server (no SDK), so that it can misbehave in exactly one way. */
async function hostile(behaviour: Hostile) {
  const sockets = new Set<Socket>()
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET') {
      if (!behaviour.stream) return void response.writeHead(405).end()
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.flushHeaders()
      return behaviour.stream(response)
    }
    if (request.method === 'DELETE') return void response.writeHead(200).end()
    let text = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => {
      text += chunk
    })
    request.on('end', () => {
      const message = JSON.parse(text) as Rpc
      const json = (result: unknown) => {
        response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' })
        response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }))
      }
      if (message.id === undefined) return void response.writeHead(202).end()
      switch (message.method) {
        case 'initialize':
          return json({
            protocolVersion: '2025-06-18',
            capabilities: { tools: { listChanged: true } },
            serverInfo: { name: 'hostile', version: '1' },
          })
        case 'tools/list':
          return json({ tools: behaviour.tools ?? [{ name: 'echo', inputSchema: { type: 'object' } }] })
        case 'ping':
          return json({})
        case 'tools/call':
          if (behaviour.call) return behaviour.call(message, response)
          return json({ content: [{ type: 'text', text: 'ok' }] })
        default:
          response.writeHead(200, { 'content-type': 'application/json' })
          response.end(
            JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'no' } }),
          )
      }
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
  let dead = false
  const die = async () => {
    if (dead) return
    dead = true
    // The process is gone: its port refuses, its open streams break.
    const closed = new Promise((resolve) => server.close(resolve))
    for (const socket of sockets) socket.destroy()
    await closed
  }
  return { url, die }
}

const stops: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()))
})
async function start(behaviour: Hostile) {
  const server = await hostile(behaviour)
  stops.push(server.die)
  return server
}

const sse = (response: ServerResponse, message: unknown) =>
  response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)

describe('an MCP server that dies cannot hang a call', () => {
  it('fails the pending call with McpConnectionError and marks the connection closed (streamable HTTP)', async () => {
    let calls = 0
    const server = await start({
      stream: () => undefined, // an event stream that stays open, as the SDK's servers keep it
      call: (_message, response) => {
        calls += 1
        // The answer will come on this event stream, but the server dies first.
        response.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's-1' })
        response.flushHeaders()
        void server.die()
      },
    })
    const memory = new MemoryDiagnosticSink()
    // A call time limit far past the test's: only the transport giving up can end the call.
    const connection = await connectMcpServer(
      { name: 'mortal', transport: { type: 'http', url: server.url }, callTimeoutMs: 3_600_000 },
      { diagnostics: memory.sink },
    )
    const registry = ToolLifecycleRegistry.create(connection.lifecycles())
    const outcome = await registry.run({ toolCallId: 'c1', toolId: 'mortal__echo', input: {} })
    expect(calls).toBe(1)
    expect(outcome.status).toBe('failed')
    if (outcome.status !== 'failed') return
    expect(outcome.error).toBeInstanceOf(McpConnectionError)
    expect(outcome.message.content).toMatch(/closed/)
    expect(connection.closed).toBe(true)
    expect(memory.events.map((event) => event.kind)).toContain('mcp-connection-lost')
    await connection.close()
  })

  it('gives callTimeoutMs a finite default', () => {
    const parsed = readConnectionOptions({
      name: 'any',
      transport: { type: 'http', url: 'http://127.0.0.1:1/mcp' },
    })
    expect(parsed.callTimeoutMs).toBe(300_000)
  })
})

describe('a hostile MCP server cannot exhaust the client', () => {
  it('refuses a tool listing larger than maxMessageBytes without reading it whole', async () => {
    const huge = { type: 'object', description: 'x'.repeat(20 * 1024 * 1024) }
    const server = await start({ tools: [{ name: 'huge', inputSchema: huge }] })
    const failure = await connectMcpServer({
      name: 'big',
      transport: { type: 'http', url: server.url },
    }).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(McpLimitError)
    expect((failure as McpLimitError).details).toMatchObject({
      limit: 'maxMessageBytes',
      bound: 8 * 1024 * 1024,
    })
  })

  it('bounds each schema in bytes and depth (a typed failure, or a skipped tool)', async () => {
    let deep: Record<string, unknown> = { type: 'string' }
    for (let level = 0; level < 200; level += 1) deep = { type: 'object', properties: { a: deep } }
    const server = await start({
      tools: [
        { name: 'wide', inputSchema: { type: 'object', description: 'y'.repeat(300 * 1024) } },
        { name: 'deep', inputSchema: deep },
        { name: 'fine', inputSchema: { type: 'object' } },
      ],
    })
    const failure = await connectMcpServer({
      name: 'wide',
      transport: { type: 'http', url: server.url },
    }).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(McpLimitError)
    expect((failure as McpLimitError).details).toMatchObject({ limit: 'maxSchemaBytes', tool: 'wide' })
    const skipping = await connectMcpServer({
      name: 'skip',
      transport: { type: 'http', url: server.url },
      invalidTools: 'skip',
    })
    expect(skipping.tools.map((tool) => tool.id)).toEqual(['skip__fine'])
    expect(
      skipping.skippedTools.map((tool) => [tool.name, (tool.error as McpLimitError).details.limit]),
    ).toEqual([
      ['wide', 'maxSchemaBytes'],
      ['deep', 'maxSchemaDepth'],
    ])
    await skipping.close()
  })

  it('runs server patterns on RE2 (no catastrophic backtracking on the host) or refuses them', async () => {
    const server = await start({
      tools: [
        {
          name: 'lookup',
          inputSchema: {
            type: 'object',
            properties: { q: { type: 'string', pattern: '^(a+)+$' } },
            patternProperties: { '^(x+x+)+y$': { type: 'number' } },
          },
        },
        {
          name: 'backref',
          inputSchema: { type: 'object', properties: { q: { type: 'string', pattern: '(a)\\1' } } },
        },
      ],
    })
    const connection = await connectMcpServer({
      name: 'rx',
      transport: { type: 'http', url: server.url },
      invalidTools: 'skip',
    })
    expect(connection.skippedTools.map((tool) => tool.name)).toEqual(['backref'])
    expect(McpSchemaError.isInstance(connection.skippedTools[0]?.error)).toBe(true)
    // The same check a model tool's input goes through: with JavaScript's RegExp each of these would
    // take longer than the universe's age; on RE2 they are linear.
    const input = compileSchema(connection.tool('rx__lookup').inputSchema)
    expect(await input.validate({ q: `${'a'.repeat(5_000)}!` })).toMatchObject({ ok: false })
    expect(await input.validate({ q: 'aaaa' })).toMatchObject({ ok: true })
    expect(await input.validate({ q: 'aaaa', [`${'x'.repeat(5_000)}`]: 'not a number' })).toMatchObject({
      ok: true,
    })
    expect(await input.validate({ [`${'x'.repeat(50)}y`]: 'not a number' })).toMatchObject({ ok: false })
    await connection.close()
  })

  it('refuses a result past maxResultBytes or maxMessageBytes with a typed failure the model reads', async () => {
    const text = (size: number) => ({ content: [{ type: 'text', text: 'z'.repeat(size) }] })
    const server = await start({
      call: (message, response) => {
        const size = Number((message.params?.arguments as { size?: number } | undefined)?.size)
        if (message.params?.name === 'stream') {
          response.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's-1' })
          sse(response, { jsonrpc: '2.0', id: message.id, result: text(size) })
          return void response.end()
        }
        response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' })
        response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: text(size) }))
      },
      tools: [
        { name: 'json', inputSchema: { type: 'object' } },
        { name: 'stream', inputSchema: { type: 'object' } },
      ],
    })
    const connection = await connectMcpServer({ name: 'res', transport: { type: 'http', url: server.url } })
    const registry = ToolLifecycleRegistry.create(connection.lifecycles())
    for (const tool of ['res__json', 'res__stream']) {
      for (const [size, limit] of [
        [5 * 1024 * 1024, 'maxResultBytes'],
        [10 * 1024 * 1024, 'maxMessageBytes'],
      ] as const) {
        // Through the lifecycle, the failure is an error result whose text the model reads.
        const outcome = await registry.run({ toolCallId: `${tool}-${size}`, toolId: tool, input: { size } })
        expect(outcome.status, `${tool} ${size}`).toBe('failed')
        if (outcome.status !== 'failed') continue
        expect(outcome.error).toBeInstanceOf(McpLimitError)
        expect((outcome.error as McpLimitError).details.limit).toBe(limit)
        expect(outcome.message).toMatchObject({ isError: true })
        expect(outcome.message.content).toContain(`limits.${limit}`)
      }
      const small = await registry.run({ toolCallId: `${tool}-small`, toolId: tool, input: { size: 10 } })
      expect(small.status).toBe('completed')
    }
    expect(connection.closed).toBe(false)
    await connection.close()
  })

  it('drops notifications past the rate, so a flood cannot fill the host', async () => {
    let events: ServerResponse | undefined
    const server = await start({
      stream: (response) => {
        events = response
      },
      call: (message, response) => {
        // The flood comes on the event stream, then the call's answer.
        let burst = ''
        for (let index = 0; index < 5_000; index += 1)
          burst += `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`
        events?.write(burst)
        response.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' })
        response.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [] } }))
      },
    })
    const memory = new MemoryDiagnosticSink()
    const connection = await connectMcpServer(
      {
        name: 'flood',
        transport: { type: 'http', url: server.url },
        limits: { maxNotificationsPerSecond: 10 },
      },
      { diagnostics: memory.sink },
    )
    const heard = () => memory.events.filter((event) => event.kind === 'mcp-tools-changed').length
    expect(await eventually(() => events !== undefined)).toBe(true)
    const registry = ToolLifecycleRegistry.create(connection.lifecycles())
    expect((await registry.run({ toolCallId: 'c1', toolId: 'flood__echo', input: {} })).status).toBe(
      'completed',
    )
    expect(
      await eventually(() => memory.events.some((event) => event.kind === 'mcp-notification-dropped')),
    ).toBe(true)
    expect(heard()).toBeGreaterThan(0)
    expect(heard()).toBeLessThan(5_000)
    expect(connection.toolsChanged).toBe(true)
    await connection.close()
  })

  it('refuses malformed limits with a typed error', async () => {
    await expect(
      connectMcpServer({
        name: 'x',
        transport: { type: 'http', url: 'http://127.0.0.1:1/mcp' },
        limits: { maxResultBytes: -1 },
      }),
    ).rejects.toThrow(/limits\.maxResultBytes/)
    await expect(
      connectMcpServer({
        name: 'x',
        transport: { type: 'http', url: 'http://127.0.0.1:1/mcp' },
        limits: { maxBytes: 1 } as never,
      }),
    ).rejects.toThrow(/unknown field "maxBytes"/)
  })
})
