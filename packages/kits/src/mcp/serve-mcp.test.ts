import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { InvalidDefinitionError, MemoryDiagnosticSink } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { connectMcpServer, type McpHttpServerHandle, serveMcp } from '@agent-core/kits/mcp'
import {
  ApprovalRequiredError,
  defineToolLifecycle,
  ToolLifecycleRegistry,
  ToolRejectedError,
} from '@agent-core/kits/tools'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  type CallToolResult,
  ElicitRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { eventually, fixtureOverHttp, type LoopbackServer, tsScript } from './testing/servers.js'

interface App {
  readonly user: string
}

const aborted: string[] = []
const lookupOrder = defineModelTool<{ orderId: string }, { orderId: string; total: number }>({
  id: 'lookup_order',
  description: 'Finds an order',
  inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
  outputSchema: { type: 'object', required: ['orderId', 'total'] },
  execute: ({ orderId }) => ({ orderId, total: 120 }),
})
const refund = defineModelTool<{ amount: number }, string>({
  id: 'refund',
  description: 'Refunds an amount',
  inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
  execute: ({ amount }) => `refunded ${amount}`,
})
const wait = defineModelTool({
  id: 'wait',
  description: 'Waits until cancelled',
  inputSchema: {},
  execute: (_input, context) =>
    new Promise((_resolve, reject) => {
      context.signal.addEventListener('abort', () => {
        aborted.push(context.invocationId)
        reject(context.signal.reason)
      })
    }),
})
const boom = defineModelTool({
  id: 'boom',
  description: 'Throws',
  inputSchema: { type: 'object' },
  execute: () => {
    throw new Error('the database is down')
  },
})
const whoami = defineModelTool<Record<string, never>, string, App>({
  id: 'whoami',
  description: 'The calling user',
  inputSchema: { type: 'object' },
  execute: (_input, context) => context.app.user,
})
const frozen = defineModelTool({
  id: 'frozen',
  description: 'Always refused',
  inputSchema: {},
  execute: () => 'ran',
})

function registry() {
  return new ToolLifecycleRegistry<App>({ timeoutMs: 5_000 }).registerAll([
    defineToolLifecycle(lookupOrder),
    defineToolLifecycle(refund, {
      authorize(call) {
        if (call.input.amount > 100)
          throw new ApprovalRequiredError(`A refund of ${call.input.amount} needs a manager.`)
      },
    }) as never,
    defineToolLifecycle(wait),
    defineToolLifecycle(boom),
    defineToolLifecycle(whoami) as never,
    defineToolLifecycle(frozen, {
      authorize() {
        throw new ToolRejectedError('Frozen for the audit.')
      },
    }),
  ])
}

async function client(
  url: string,
  options: { elicit?: (message: string) => 'yes' | 'no' | 'cancel'; headers?: Record<string, string> } = {},
) {
  const sdk = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: options.elicit ? { elicitation: {} } : {} },
  )
  if (options.elicit) {
    const decide = options.elicit
    sdk.setRequestHandler(ElicitRequestSchema, (request) => {
      const answer = decide(request.params.message)
      return answer === 'cancel'
        ? { action: 'cancel' }
        : { action: 'accept', content: { approve: answer === 'yes' } }
    })
  }
  await sdk.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: options.headers ?? {} } }),
  )
  return sdk
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text

describe('serveMcp over streamable HTTP, driven by the SDK client', () => {
  let tools: ToolLifecycleRegistry<App>
  let handle: McpHttpServerHandle
  const memory = new MemoryDiagnosticSink()
  const clients: Client[] = []
  const connect = async (...args: Parameters<typeof client>) => {
    const sdk = await client(...args)
    clients.push(sdk)
    return sdk
  }
  beforeAll(async () => {
    tools = registry()
    handle = await serveMcp(
      tools,
      { type: 'http' },
      {
        name: 'shop',
        version: '2.0.0',
        context: (request) => ({
          app: { user: String(request.headers?.['x-user'] ?? 'anonymous') },
          diagnostics: memory.sink,
        }),
      },
    )
  })
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((sdk) => sdk.close()))
  })
  afterAll(() => handle.close())

  it('lists the registry with its schemas', async () => {
    const sdk = await connect(handle.url!)
    expect(sdk.getServerVersion()).toMatchObject({ name: 'shop', version: '2.0.0' })
    const { tools: listed } = await sdk.listTools()
    expect(listed.map((tool) => tool.name)).toEqual([
      'lookup_order',
      'refund',
      'wait',
      'boom',
      'whoami',
      'frozen',
    ])
    expect(listed[0]).toMatchObject({
      description: 'Finds an order',
      inputSchema: lookupOrder.inputSchema,
      outputSchema: { type: 'object', required: ['orderId', 'total'] },
    })
    // An empty schema is published as the object schema MCP requires.
    expect(listed[2]?.inputSchema).toEqual({ type: 'object' })
  })

  it('runs calls through the lifecycle: structured content, errors the model reads, refusals', async () => {
    const sdk = await connect(handle.url!, { headers: { 'x-user': 'ana' } })
    expect(await sdk.callTool({ name: 'lookup_order', arguments: { orderId: 'A-1' } })).toMatchObject({
      content: [{ type: 'text', text: '{"orderId":"A-1","total":120}' }],
      structuredContent: { orderId: 'A-1', total: 120 },
    })
    expect(textOf(await sdk.callTool({ name: 'whoami', arguments: {} }))).toBe('ana')
    const bad = await sdk.callTool({ name: 'lookup_order', arguments: { order: 1 } })
    expect(bad.isError).toBe(true)
    expect(textOf(bad)).toMatch(/must have required property 'orderId'/)
    const failed = await sdk.callTool({ name: 'boom', arguments: {} })
    expect(failed).toMatchObject({
      isError: true,
      content: [{ text: 'The call to boom failed: the database is down' }],
    })
    const refused = await sdk.callTool({ name: 'frozen', arguments: {} })
    expect(refused.isError).toBe(true)
    expect(textOf(refused)).toMatch(/was not run: it was refused by policy. Frozen for the audit./)
    await expect(sdk.callTool({ name: 'nope', arguments: {} })).rejects.toSatisfy(
      (error: unknown) => error instanceof McpError && error.code === -32602,
    )
    const ends = memory.events.filter((event) => event.kind === 'mcp-serve-call-end')
    expect(ends.map((event) => event.data.status)).toEqual([
      'completed',
      'completed',
      'failed',
      'failed',
      'rejected',
    ])
  })

  it('never runs a call that needs approval, and tells the client why', async () => {
    const sdk = await connect(handle.url!)
    expect(textOf(await sdk.callTool({ name: 'refund', arguments: { amount: 20 } }))).toBe('refunded 20')
    const held = await sdk.callTool({ name: 'refund', arguments: { amount: 250 } })
    expect(held.isError).toBe(true)
    expect(textOf(held)).toBe(
      'The call to refund was not run: it needs approval (A refund of 250 needs a manager.) and this server does not ask for approvals over MCP. Do not retry it; tell the user that it needs their approval in the application that serves this tool.',
    )
  })

  it('cancels the tool when the client cancels the request', async () => {
    const sdk = await connect(handle.url!)
    const before = aborted.length
    const controller = new AbortController()
    const call = sdk.callTool({ name: 'wait', arguments: {} }, undefined, { signal: controller.signal })
    await eventually(() =>
      memory.events.some((event) => event.kind === 'mcp-serve-call-start' && event.data.tool === 'wait'),
    )
    controller.abort('the user gave up')
    await expect(call).rejects.toThrow()
    expect(await eventually(() => aborted.length === before + 1)).toBe(true)
  })

  it('tells clients when the tool list changes', async () => {
    const sdk = await connect(handle.url!)
    let announced = 0
    sdk.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      announced++
    })
    tools.register(
      defineToolLifecycle(
        defineModelTool({
          id: 'late',
          description: 'Registered later',
          inputSchema: {},
          execute: () => 'late',
        }),
      ),
    )
    // Right after connecting, the client's event stream may not be open yet: the server tells it when it opens.
    await handle.notifyToolsChanged()
    expect(await eventually(() => announced === 1)).toBe(true)
    expect((await sdk.listTools()).tools.map((tool) => tool.name)).toContain('late')
  })

  it('tells a client that opens its event stream late about a change it missed', async () => {
    // A client without an event stream yet (plain HTTP, as any client right after initialize).
    const post = (body: unknown, session?: string) =>
      fetch(handle.url!, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(session === undefined
            ? {}
            : { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }),
        },
        body: JSON.stringify(body),
      })
    const initialized = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    })
    const session = initialized.headers.get('mcp-session-id')!
    await initialized.text()
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202)

    await handle.notifyToolsChanged() // no stream: remembered for this session
    const controller = new AbortController()
    const giveUp = setTimeout(
      () => controller.abort(new Error('no list_changed on the event stream')),
      10_000,
    )
    try {
      const stream = await fetch(handle.url!, {
        headers: {
          accept: 'text/event-stream',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-06-18',
        },
        signal: controller.signal,
      })
      expect(stream.status).toBe(200)
      const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader()
      let received = ''
      const notices = () => received.split('notifications/tools/list_changed').length - 1
      const readUntil = async (count: number) => {
        while (notices() < count) received += (await reader.read()).value ?? ''
      }
      await readUntil(1)
      await handle.notifyToolsChanged() // the stream is open: told at once
      await readUntil(2)
      expect(notices()).toBe(2)
    } finally {
      clearTimeout(giveUp)
      controller.abort()
    }
  })

  it('keeps one session per client and ends it when the client leaves', async () => {
    const first = await client(handle.url!)
    const second = await client(handle.url!)
    const open = handle.sessions
    expect(open).toBeGreaterThanOrEqual(2)
    await (first.transport as StreamableHTTPClientTransport).terminateSession()
    await first.close()
    expect(handle.sessions).toBe(open - 1)
    await second.close()
  })

  it('refuses a request for another host (DNS rebinding) and one without a session', async () => {
    const url = new URL(handle.url!)
    // fetch cannot send another Host header; a plain Node request can, as a rebinding browser would.
    const rebinding = await new Promise<{ status: number }>((resolve, reject) => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      })
      const request = httpRequest(url, {
        method: 'POST',
        headers: {
          host: 'evil.example',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      })
      request.on('response', (response) => {
        response.resume()
        resolve({ status: response.statusCode ?? 0 })
      })
      request.on('error', reject)
      request.end(body)
    })
    expect(rebinding.status).toBe(403)
    const orphan = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(orphan.status).toBe(400)
    expect((await fetch(new URL('/elsewhere', url))).status).toBe(404)
  })
})

describe('serveMcp approvals', () => {
  const servers: McpHttpServerHandle[] = []
  const clients: Client[] = []
  afterAll(async () => {
    await Promise.all(clients.map((sdk) => sdk.close()))
    await Promise.all(servers.map((server) => server.close()))
  })
  const serve = async (
    approvals: Parameters<typeof serveMcp>[2] extends infer O
      ? O extends { approvals?: infer A }
        ? A
        : never
      : never,
  ) => {
    const handle = await serveMcp(
      registry().seal(),
      { type: 'http' },
      { approvals, context: { app: { user: 'ana' } } },
    )
    servers.push(handle)
    return handle
  }

  it('asks the client user through elicitation and runs the call only on a yes', async () => {
    const handle = await serve('elicit')
    const asked: string[] = []
    let answer: 'yes' | 'no' | 'cancel' = 'yes'
    const sdk = await client(handle.url!, {
      elicit: (message) => {
        asked.push(message)
        return answer
      },
    })
    clients.push(sdk)
    expect(textOf(await sdk.callTool({ name: 'refund', arguments: { amount: 300 } }))).toBe('refunded 300')
    expect(asked[0]).toBe('A refund of 300 needs a manager.\n\nTool: refund\nInput: {"amount":300}')
    answer = 'no'
    const declined = await sdk.callTool({ name: 'refund', arguments: { amount: 400 } })
    expect(declined.isError).toBe(true)
    expect(textOf(declined)).toMatch(
      /refused by the person reviewing it. The person declined to approve the call./,
    )
    answer = 'cancel'
    expect(textOf(await sdk.callTool({ name: 'refund', arguments: { amount: 500 } }))).toMatch(
      /dismissed the approval request/,
    )
  })

  it('refuses when the client cannot be asked', async () => {
    const handle = await serve('elicit')
    const sdk = await client(handle.url!)
    clients.push(sdk)
    const held = await sdk.callTool({ name: 'refund', arguments: { amount: 300 } })
    expect(held.isError).toBe(true)
    expect(textOf(held)).toMatch(/not run: it needs approval .* the client cannot ask its user/)
  })

  it('lets the App decide', async () => {
    const seen: string[] = []
    const handle = await serve((call, context) => {
      seen.push(`${call.toolId}:${(context.app as App).user}`)
      return (call.input as { amount: number }).amount < 1000
        ? { type: 'approve', by: 'policy' }
        : { type: 'reject', reason: 'Too large for an automatic approval.', instruction: 'Ask a manager.' }
    })
    const sdk = await client(handle.url!)
    clients.push(sdk)
    expect(textOf(await sdk.callTool({ name: 'refund', arguments: { amount: 300 } }))).toBe('refunded 300')
    const refused = await sdk.callTool({ name: 'refund', arguments: { amount: 5000 } })
    expect(textOf(refused)).toMatch(
      /Too large for an automatic approval.\nInstruction from the person who refused it: Ask a manager./,
    )
    expect(seen).toEqual(['refund:ana', 'refund:ana'])
  })
})

describe('serveMcp over stdio, driven by the SDK client', () => {
  it('serves an App started as a child process', async () => {
    const { command, args } = tsScript('./serve-child.ts')
    const transport = new StdioClientTransport({ command, args: [...(args ?? [])], stderr: 'pipe' })
    const sdk = new Client({ name: 'desktop', version: '1.0.0' })
    await sdk.connect(transport)
    try {
      expect(sdk.getServerVersion()).toMatchObject({ name: 'shop', version: '2.0.0' })
      expect((await sdk.listTools()).tools.map((tool) => tool.name)).toEqual(['greet', 'refund'])
      expect(textOf(await sdk.callTool({ name: 'greet', arguments: { name: 'Ana' } }))).toBe('Hello, Ana!')
      expect(await sdk.callTool({ name: 'refund', arguments: { amount: 50 } })).toMatchObject({
        structuredContent: { refunded: 50 },
      })
      expect((await sdk.callTool({ name: 'refund', arguments: { amount: 500 } })).isError).toBe(true)
    } finally {
      await sdk.close()
    }
  })
})

describe('serveMcp serves the tools of another MCP server on', () => {
  let upstream: LoopbackServer
  beforeAll(async () => {
    upstream = await fixtureOverHttp()
  })
  afterAll(() => upstream.close())

  it('passes structured content, parts and output schema through', async () => {
    const fixture = await connectMcpServer({
      name: 'fixture',
      transport: { type: 'http', url: upstream.url },
    })
    const proxy = await serveMcp(fixture.lifecycles(), { type: 'http' })
    const sdk = await client(proxy.url!)
    try {
      const listed = (await sdk.listTools()).tools.find((tool) => tool.name === 'fixture__weather')
      expect(listed).toMatchObject({
        title: 'Weather',
        outputSchema: fixture.tool('fixture__weather').mcp.outputSchema,
      })
      expect(await sdk.callTool({ name: 'fixture__weather', arguments: { city: 'Rome' } })).toMatchObject({
        structuredContent: { city: 'Rome', celsius: 21 },
      })
      const media = (await sdk.callTool({ name: 'fixture__media', arguments: {} })) as CallToolResult
      expect(media.content.map((part) => part.type)).toEqual(['text', 'image', 'resource', 'resource_link'])
      const failed = await sdk.callTool({ name: 'fixture__fail', arguments: { message: 'upstream says no' } })
      expect(failed).toMatchObject({ isError: true, content: [{ type: 'text', text: 'upstream says no' }] })
    } finally {
      await sdk.close()
      await proxy.close()
      await fixture.close()
    }
  })
})

describe("serveMcp mounted in an App's own HTTP server", () => {
  it('answers through handleRequest with listen: false', async () => {
    const handle = await serveMcp([lookupOrder], { type: 'http', listen: false, path: '/tools/mcp' })
    expect(handle.url).toBeUndefined()
    const server = createServer((request, response) => {
      if (request.url?.startsWith('/tools/')) void handle.handleRequest(request, response)
      else response.writeHead(200).end('the App')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tools/mcp`
    const sdk = await client(url)
    try {
      expect(await sdk.callTool({ name: 'lookup_order', arguments: { orderId: 'B-2' } })).toMatchObject({
        structuredContent: { orderId: 'B-2', total: 120 },
      })
    } finally {
      await sdk.close()
      await handle.close()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    }
  })
})

describe('serveMcp refuses what it cannot serve', () => {
  it('a tool whose input is not an object', async () => {
    const scalar = defineModelTool({
      id: 'scalar',
      description: 'Takes a string',
      inputSchema: { type: 'string' },
      execute: () => 'x',
    })
    await expect(serveMcp([scalar], { type: 'http' })).rejects.toSatisfy(
      (error: unknown) =>
        InvalidDefinitionError.isInstance(error) &&
        /Tool "scalar" cannot be served over MCP/.test((error as Error).message),
    )
  })
})
