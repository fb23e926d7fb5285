import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AbortedError, InvalidOutputError, MemoryDiagnosticSink, TimeoutError } from '@agent-core/core'
import { ArtifactUnavailableError, defineArtifactCatalog } from '@agent-core/kits/artifacts'
import {
  connectMcpServer,
  type McpConnection,
  McpConnectionError,
  McpToolError,
  type McpToolResult,
  type McpTransportOptions,
} from '@agent-core/kits/mcp'
import { ApprovalRequiredError, ToolLifecycleRegistry } from '@agent-core/kits/tools'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  eventually,
  eventuallyAsync,
  fixtureOverHttp,
  fixtureOverSse,
  fixtureOverStdio,
  type LoopbackServer,
} from './testing/servers.js'

interface Matrix {
  readonly name: string
  start(): Promise<{ transport: McpTransportOptions; stop(): Promise<void> }>
}

const matrix: Matrix[] = [
  {
    name: 'stdio (child process)',
    start: async () => ({ transport: fixtureOverStdio(), stop: async () => {} }),
  },
  {
    name: 'streamable HTTP (loopback)',
    start: async () => {
      const server = await fixtureOverHttp()
      return { transport: { type: 'http', url: server.url }, stop: () => server.close() }
    },
  },
  {
    name: 'legacy HTTP+SSE (loopback)',
    start: async () => {
      const server = await fixtureOverSse()
      return { transport: { type: 'sse', url: server.url }, stop: () => server.close() }
    },
  },
]

const cancellationsOf = async (tools: ToolLifecycleRegistry): Promise<string[]> => {
  const outcome = await tools.run({
    toolCallId: `c_${Math.random()}`,
    toolId: 'fixture__cancellations',
    input: {},
  })
  return outcome.status === 'completed'
    ? ((outcome.output as McpToolResult).structuredContent?.cancellations as string[])
    : []
}

describe.each(matrix)('MCP client over $name', ({ start }) => {
  let transport: McpTransportOptions
  let stop: () => Promise<void>
  let fixture: McpConnection<'fixture'>
  let tools: ToolLifecycleRegistry
  const memory = new MemoryDiagnosticSink()
  const ctx = { diagnostics: memory.sink }

  beforeAll(async () => {
    ;({ transport, stop } = await start())
    fixture = await connectMcpServer({ name: 'fixture', transport }, { diagnostics: memory.sink })
    tools = ToolLifecycleRegistry.create(fixture.lifecycles())
  })
  afterAll(async () => {
    await fixture?.close()
    await stop?.()
  })

  it('lists every page of tools as core tools namespaced by server, with the server schemas', () => {
    expect(fixture.tools.map((tool) => tool.id)).toEqual([
      'fixture__echo',
      'fixture__fail',
      'fixture__hang',
      'fixture__slow',
      'fixture__weather',
      'fixture__broken_weather',
      'fixture__media',
      'fixture__add_tool',
      'fixture__remove_tool',
      'fixture__cancellations',
      'fixture__env',
      'fixture__headers',
      'fixture__fs_read',
    ])
    const echo = fixture.tool('fixture__echo')
    expect(echo.inputSchema).toEqual({
      type: 'object',
      required: ['text'],
      properties: { text: { type: 'string' } },
    })
    expect(echo.mcp).toMatchObject({ server: 'fixture', name: 'echo', annotations: { readOnlyHint: true } })
    expect(fixture.tool('fixture__fs_read').mcp.name).toBe('fs.read')
    expect(fixture.tool('fixture__weather').mcp.outputSchema).toMatchObject({ required: ['city', 'celsius'] })
    expect(fixture.serverInfo).toMatchObject({ name: 'fixture', version: '1.0.0' })
    expect(fixture.instructions).toBe('Fixture tools for tests.')
    expect(fixture.skippedTools).toEqual([])
  })

  it('runs a call through the tools lifecycle and keeps text as a typed part', async () => {
    const outcome = await tools.run(
      { toolCallId: 'c1', toolId: 'fixture__echo', arguments: '{"text":"hi"}' },
      ctx,
    )
    expect(outcome.status).toBe('completed')
    if (outcome.status !== 'completed') return
    expect(outcome.output).toEqual({ content: [{ type: 'text', text: 'hi' }] })
    expect(outcome.message).toEqual({ role: 'tool', toolCallId: 'c1', content: 'hi', isError: false })
    expect(JSON.parse(JSON.stringify(outcome.record)).output).toEqual(outcome.output)
  })

  it('turns an isError result into a failed call whose text the model reads', async () => {
    const outcome = await tools.run(
      { toolCallId: 'c2', toolId: 'fixture__fail', input: { message: 'disk full' } },
      ctx,
    )
    expect(outcome.status).toBe('failed')
    if (outcome.status !== 'failed') return
    expect(outcome.phase).toBe('execute')
    expect(McpToolError.isInstance(outcome.error)).toBe(true)
    expect((outcome.error as McpToolError).details).toMatchObject({
      server: 'fixture',
      tool: 'fail',
      toolId: 'fixture__fail',
    })
    expect(outcome.message).toEqual({ role: 'tool', toolCallId: 'c2', content: 'disk full', isError: true })
    expect(outcome.record.error.code).toBe('mcp-tool-error')
  })

  it('checks the input against the server schema before anything is sent', async () => {
    const before = memory.events.filter((event) => event.kind === 'mcp-call-start').length
    const outcome = await tools.run({ toolCallId: 'c3', toolId: 'fixture__echo', input: { text: 7 } }, ctx)
    expect(outcome.status === 'failed' && outcome.phase).toBe('protocol')
    expect(memory.events.filter((event) => event.kind === 'mcp-call-start').length).toBe(before)
  })

  it('keeps structured content when the tool declares an output schema', async () => {
    const outcome = await tools.run(
      { toolCallId: 'c4', toolId: 'fixture__weather', input: { city: 'Oslo' } },
      ctx,
    )
    expect(outcome.status === 'completed' && outcome.output).toEqual({
      content: [{ type: 'text', text: '{"city":"Oslo","celsius":21}' }],
      structuredContent: { city: 'Oslo', celsius: 21 },
    })
  })

  it('refuses structured content that breaks the declared output schema, naming server and tool', async () => {
    const outcome = await tools.run({ toolCallId: 'c5', toolId: 'fixture__broken_weather', input: {} }, ctx)
    expect(outcome.status).toBe('failed')
    if (outcome.status !== 'failed') return
    expect(InvalidOutputError.isInstance(outcome.error)).toBe(true)
    expect((outcome.error as Error).message).toMatch(
      /Tool "broken_weather" of MCP server "fixture" returned structuredContent/,
    )
  })

  it('keeps images, embedded resources and resource links as typed parts and describes them to the model', async () => {
    const outcome = await tools.run({ toolCallId: 'c6', toolId: 'fixture__media', input: {} }, ctx)
    if (outcome.status !== 'completed') throw new Error(outcome.status)
    const { content } = outcome.output as McpToolResult
    expect(content.map((part) => part.type)).toEqual(['text', 'image', 'resource', 'resource_link'])
    expect(content[1]).toMatchObject({ type: 'image', mimeType: 'image/png' })
    expect(content[3]).toEqual({
      type: 'resource_link',
      uri: 'fixture://docs/changelog',
      name: 'changelog',
      description: 'What changed',
    })
    expect(outcome.message.content).toBe(
      [
        'Here is the logo.',
        '[image: image/png, 70 bytes]',
        '[resource fixture://docs/readme (text/markdown)]\n# Fixture',
        '[resource link: changelog <fixture://docs/changelog>: What changed]',
      ].join('\n'),
    )
  })

  it('cancels a call that runs out of time with MCP cancellation, and the server sees it', async () => {
    const before = (await cancellationsOf(tools)).length
    const outcome = await tools.run(
      { toolCallId: 'c7', toolId: 'fixture__hang', input: {}, timeoutMs: 150 },
      ctx,
    )
    expect(outcome.status === 'failed' && TimeoutError.isInstance(outcome.error)).toBe(true)
    let after: string[] = []
    expect(
      await eventuallyAsync(async () => (after = await cancellationsOf(tools)).length === before + 1),
    ).toBe(true)
    expect(after.at(-1)).toMatch(/did not finish within 150 ms/)
    const spans = memory.events.filter(
      (event) => event.kind === 'mcp-call-end' && event.data.toolId === 'fixture__hang',
    )
    expect(spans.at(-1)?.data).toMatchObject({ server: 'fixture', tool: 'hang', outcome: 'timeout' })
  })

  it('cancels a call when the run is stopped', async () => {
    const before = (await cancellationsOf(tools)).length
    const controller = new AbortController()
    const hanging = async () => {
      const outcome = await tools.run({
        toolCallId: `h_${Math.random()}`,
        toolId: 'fixture__cancellations',
        input: {},
      })
      return outcome.status === 'completed'
        ? Number((outcome.output as McpToolResult).structuredContent?.hanging)
        : -1
    }
    const hangs = await hanging()
    const running = tools.run(
      { toolCallId: 'c8', toolId: 'fixture__hang', input: {} },
      { ...ctx, signal: controller.signal },
    )
    // Stop once the server is running the call (a cancellation that overtakes its request is another case).
    expect(await eventuallyAsync(async () => (await hanging()) === hangs + 1)).toBe(true)
    controller.abort(new Error('user pressed stop'))
    const outcome = await running
    expect(outcome.status === 'failed' && AbortedError.isInstance(outcome.error)).toBe(true)
    let after: string[] = []
    expect(
      await eventuallyAsync(async () => (after = await cancellationsOf(tools)).length === before + 1),
    ).toBe(true)
    expect(after.at(-1)).toMatch(/user pressed stop/)
  })

  it('runs an MCP tool behind an approval only once it is approved', async () => {
    const guarded = ToolLifecycleRegistry.create(
      fixture.lifecycles((tool) =>
        tool.mcp.annotations?.readOnlyHint
          ? undefined
          : {
              authorize() {
                throw new ApprovalRequiredError(`${tool.id} needs a person.`)
              },
            },
      ),
    )
    expect(
      (await guarded.run({ toolCallId: 'r1', toolId: 'fixture__echo', input: { text: 'free' } })).status,
    ).toBe('completed')
    const pending = await guarded.run({ toolCallId: 'r2', toolId: 'fixture__slow', input: { ms: 1 } }, ctx)
    expect(pending.status).toBe('pending')
    const callsBefore = memory.events.filter((event) => event.kind === 'mcp-call-start').length
    const rejected = await guarded.resume(
      pending.record,
      {
        type: 'reject',
        toolCallId: 'r2',
        by: 'person',
        reason: 'No.',
      },
      ctx,
    )
    expect(rejected.status).toBe('rejected')
    expect(memory.events.filter((event) => event.kind === 'mcp-call-start').length).toBe(callsBefore)
    const again = await guarded.run({ toolCallId: 'r3', toolId: 'fixture__slow', input: { ms: 1 } })
    const approved = await guarded.resume(
      JSON.parse(JSON.stringify(again.record)),
      {
        type: 'approve',
        toolCallId: 'r3',
        by: 'person',
      },
      ctx,
    )
    expect(approved.status === 'completed' && approved.message.content).toBe('after 1 ms')
    expect(memory.events.filter((event) => event.kind === 'mcp-call-start').length).toBe(callsBefore + 1)
  })

  it('reads resources through an artifact catalog, by artifact id only', async () => {
    const listed = await fixture.listResources()
    expect(listed.map((resource) => resource.name)).toEqual(['readme', 'changelog', 'logo'])
    for (const resource of listed) expect(resource.artifactId).toMatch(/^[0-9a-f]{16}$/)
    const catalog = defineArtifactCatalog([fixture.resources])
    const [readme, changelog, logo] = listed
    const read = await catalog.resolve({ resolverId: 'fixture', artifactId: readme!.artifactId })
    expect(read).toMatchObject({
      uri: 'fixture://docs/readme',
      title: 'Read me',
      contents: [{ text: '# Fixture', mimeType: 'text/markdown' }],
    })
    expect(
      (await catalog.resolve({ resolverId: 'fixture', artifactId: logo!.artifactId })).contents[0],
    ).toHaveProperty('blob')
    expect(changelog!.revision).toBe('2026-01-02T00:00:00Z')
    await expect(
      catalog.resolve({
        resolverId: 'fixture',
        artifactId: changelog!.artifactId,
        revision: '2026-01-02T00:00:00Z',
      }),
    ).resolves.toMatchObject({ name: 'changelog' })
    const failure = (reference: {
      resolverId: 'fixture'
      artifactId: string
      revision?: string
      uri?: string
    }) =>
      catalog.resolve(reference).then(
        () => 'resolved',
        (error: unknown) =>
          ArtifactUnavailableError.isInstance(error) ? error.details.reason : String(error),
      )
    expect(await failure({ resolverId: 'fixture', artifactId: changelog!.artifactId, revision: 'old' })).toBe(
      'revision-mismatch',
    )
    expect(await failure({ resolverId: 'fixture', artifactId: readme!.artifactId, revision: 'r1' })).toBe(
      'revision-mismatch',
    )
    expect(await failure({ resolverId: 'fixture', artifactId: 'fixture://docs/readme' })).toBe('not-found')
    // A URL riding along on the reference never selects the resource.
    const tampered = {
      resolverId: 'fixture' as const,
      artifactId: readme!.artifactId,
      uri: 'fixture://blob/logo',
    }
    expect((await catalog.resolve(tampered)).uri).toBe('fixture://docs/readme')
  })

  it('changes the tool set only at the turn boundary, after the server announced it', async () => {
    const own = await connectMcpServer({ name: 'fixture', transport })
    try {
      const ownTools = ToolLifecycleRegistry.create(own.lifecycles())
      const snapshot = own.tools
      let announced = 0
      own.onToolsChanged(() => announced++)
      await ownTools.run({ toolCallId: 'a1', toolId: 'fixture__add_tool', input: { name: 'extra' } })
      expect(await eventually(() => own.toolsChanged)).toBe(true)
      expect(announced).toBe(1)
      expect(own.tools).toBe(snapshot)
      const refresh = await own.refreshTools()
      expect(refresh).toMatchObject({ changed: true, added: ['fixture__extra'], removed: [], updated: [] })
      expect(own.toolsChanged).toBe(false)
      expect(own.tool('fixture__echo')).toBe(snapshot[0])
      expect(await own.refreshTools()).toMatchObject({ changed: false, tools: own.tools })
      await ToolLifecycleRegistry.create(own.lifecycles()).run({
        toolCallId: 'a2',
        toolId: 'fixture__remove_tool',
        input: { name: 'echo' },
      })
      expect(await eventually(() => own.toolsChanged)).toBe(true)
      expect((await own.refreshTools()).removed).toEqual(['fixture__echo'])
    } finally {
      await own.close()
    }
  })

  it('answers every call after close with a typed error that names the server', async () => {
    const own = await connectMcpServer({ name: 'fixture', transport })
    const echo = own.tool('fixture__echo')
    await own.close()
    expect(own.closed).toBe(true)
    const outcome = await ToolLifecycleRegistry.create([{ id: echo.id, tool: echo }]).run({
      toolCallId: 'x',
      toolId: echo.id,
      input: { text: 'late' },
    })
    expect(outcome.status === 'failed' && McpConnectionError.isInstance(outcome.error)).toBe(true)
    expect(outcome.status === 'failed' && (outcome.error as Error).message).toMatch(
      /MCP server "fixture" is closed/,
    )
    await expect(own.listResources()).rejects.toSatisfy((error: unknown) =>
      McpConnectionError.isInstance(error),
    )
  })

  it('reports the connection in diagnostics spans', () => {
    const connect = memory.events.find((event) => event.kind === 'mcp-connect-end')
    expect(connect?.data).toMatchObject({ server: 'fixture', outcome: 'ok', tools: 13 })
    const calls = memory.events.filter((event) => event.kind === 'mcp-call-end')
    expect(calls.length).toBeGreaterThan(0)
    for (const call of calls) expect(call.data).toHaveProperty('server', 'fixture')
    const starts = memory.events.filter((event) => event.kind === 'mcp-call-start').length
    expect(calls.length).toBe(starts)
  })
})

describe('MCP client: errors of the transport itself', () => {
  let http: LoopbackServer
  let plain: { url: string; close(): Promise<void> }
  const open = new Set<ServerResponse>()
  beforeAll(async () => {
    http = await fixtureOverHttp({ token: 'secret-token' })
    // Not MCP: an HTML page, a POST that is never answered, an event stream that never sends an event.
    const server = createServer((request, response) => {
      request.resume()
      if (request.url === '/html')
        response.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>')
      else if (request.url === '/silent-sse') {
        response.writeHead(200, { 'content-type': 'text/event-stream' })
        response.flushHeaders()
        open.add(response)
      } else open.add(response)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    plain = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () =>
        new Promise<void>((resolve) => {
          for (const response of open) response.destroy()
          server.close(() => resolve())
          server.closeAllConnections()
        }),
    }
  })
  afterAll(async () => {
    await http.close()
    await plain.close()
  })

  it('sends a bearer token and headers, through a custom fetch', async () => {
    let fetched = 0
    const connection = await connectMcpServer({
      name: 'fixture',
      transport: {
        type: 'http',
        url: http.url,
        headers: { 'x-team': 'support', authorization: 'ignored' },
        bearerToken: async () => 'secret-token',
        fetch: (url, init) => {
          fetched++
          return fetch(url, init)
        },
      },
    })
    try {
      const outcome = await ToolLifecycleRegistry.create(connection.lifecycles()).run({
        toolCallId: 'h',
        toolId: 'fixture__headers',
        input: {},
      })
      const headers = JSON.parse(outcome.status === 'completed' ? outcome.message.content : '{}') as Record<
        string,
        string
      >
      expect(headers).toMatchObject({ 'x-team': 'support', authorization: 'Bearer secret-token' })
      expect(fetched).toBeGreaterThan(1)
    } finally {
      await connection.close()
    }
    expect(http.requests.at(-1)?.method).toBe('DELETE')
  })

  it('refuses to connect without the token, with the HTTP status', async () => {
    const error = await connectMcpServer({
      name: 'fixture',
      transport: { type: 'http', url: http.url },
    }).catch((e: unknown) => e)
    expect(McpConnectionError.isInstance(error)).toBe(true)
    expect((error as McpConnectionError).details).toMatchObject({
      server: 'fixture',
      transport: 'http',
      status: 401,
      method: 'initialize',
    })
    expect((error as Error).message).toMatch(/credentials/)
  })

  it('refuses an endpoint that does not answer as an MCP server', async () => {
    const error = await connectMcpServer({
      name: 'web',
      transport: { type: 'http', url: `${plain.url}/html` },
    }).catch((e: unknown) => e)
    expect(McpConnectionError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/MCP server "web".*does not answer as an MCP server/)
  })

  it('says which server could not be reached', async () => {
    const error = await connectMcpServer({
      name: 'gone',
      transport: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
      connectTimeoutMs: 5_000,
    }).catch((e: unknown) => e)
    expect(McpConnectionError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/MCP server "gone"/)
  })

  it('says which stdio command could not be started', async () => {
    const error = await connectMcpServer({
      name: 'missing',
      transport: { type: 'stdio', command: '/no/such/mcp-server' },
    }).catch((e: unknown) => e)
    expect(McpConnectionError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/Could not start MCP server "missing".*not found/)
  })

  it('never hangs on an HTTP server that does not answer initialize', async () => {
    const error = await connectMcpServer({
      name: 'mute',
      transport: { type: 'http', url: `${plain.url}/silent` },
      connectTimeoutMs: 300,
    }).catch((e: unknown) => e)
    expect(TimeoutError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(
      /MCP server "mute" did not complete the handshake \(initialize\) within 300 ms/,
    )
  })

  it('never hangs on an SSE endpoint that never names its message endpoint', async () => {
    const error = await connectMcpServer({
      name: 'mute-sse',
      transport: { type: 'sse', url: `${plain.url}/silent-sse` },
      connectTimeoutMs: 300,
    }).catch((e: unknown) => e)
    expect(TimeoutError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/MCP server "mute-sse"/)
  })

  it('names the server when a per-request token function gives no token', async () => {
    const error = await connectMcpServer({
      name: 'fixture',
      transport: { type: 'http', url: http.url, bearerToken: () => '' },
    }).catch((e: unknown) => e)
    expect(InvalidOutputError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/bearerToken of MCP server "fixture"/)
  })
})
