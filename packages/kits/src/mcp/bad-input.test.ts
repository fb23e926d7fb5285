/** Bad input in the house style: misbehaving servers, schemas that are not JSON Schema, garbage arguments. */
import {
  AgentCoreError,
  createOperationContext,
  DuplicateIdError,
  InvalidInputError,
  MemoryDiagnosticSink,
  TimeoutError,
} from '@agent-core/core'
import { invokeModelTool } from '@agent-core/core/tools'
import {
  connectMcpServer,
  createMcpToolset,
  isMcpModelTool,
  type McpConnection,
  McpConnectionError,
  McpProtocolError,
  McpSchemaError,
  mcpResultTemplate,
  mcpToolId,
  renderMcpResult,
  serveMcp,
} from '@agent-core/kits/mcp'
import { ToolLifecycleRegistry } from '@agent-core/kits/tools'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AppError, garbage } from '../testing/garbage.js'
import { alive, fixtureOverHttp, type LoopbackServer, nodeScript } from './testing/servers.js'

const bad = (mode: string) => nodeScript('./bad-server.mjs', [mode])
const failure = (promise: Promise<unknown>) =>
  promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${String(value)}`)
    },
    (error: unknown) => error as AgentCoreError,
  )

describe('servers that break the protocol', () => {
  it('tolerates a banner and blank lines on stdout, and reports them', async () => {
    const memory = new MemoryDiagnosticSink()
    const noisy = await connectMcpServer(
      { name: 'noisy', transport: bad('noise') },
      { diagnostics: memory.sink },
    )
    try {
      const outcome = await ToolLifecycleRegistry.create(noisy.lifecycles()).run({
        toolCallId: 'c',
        toolId: 'noisy__echo',
        input: { text: 'still works' },
      })
      expect(outcome.status === 'completed' && outcome.message.content).toBe('still works')
      const warning = memory.events.find((event) => event.kind === 'mcp-transport-error')
      expect(warning?.data.error).toMatch(
        /MCP server "noisy" wrote a line to stdout that is not JSON: "Starting demo server v1.2 ..."/,
      )
    } finally {
      await noisy.close()
    }
  })

  it('times out a server that answers only garbage, and says what it wrote', async () => {
    const error = await failure(
      connectMcpServer({ name: 'garbled', transport: bad('garbage'), connectTimeoutMs: 1_500 }),
    )
    expect(TimeoutError.isInstance(error)).toBe(true)
    expect(error.message).toMatch(
      /MCP server "garbled" did not complete the handshake \(initialize\) within 1500 ms/,
    )
    expect(error.message).toMatch(
      /lines to stdout that are not JSON-RPC \(last: "\{\\"hello\\":\\"world\\"\}"\)/,
    )
    expect(error.details).toMatchObject({ server: 'garbled', timeoutMs: 1_500 })
  })

  it('times out a server that never answers initialize, and leaves no process behind', async () => {
    const memory = new MemoryDiagnosticSink()
    const transport = {
      type: 'stdio' as const,
      command: process.execPath,
      args: [
        '-e',
        'process.stderr.write("pid:" + process.pid + "\\n"); process.on("SIGTERM", () => {}); setInterval(() => {}, 1e6)',
      ],
    }
    const error = await failure(
      connectMcpServer(
        { name: 'mute', transport, connectTimeoutMs: 1_000, closeGraceMs: 200 },
        { diagnostics: memory.sink },
      ),
    )
    expect(TimeoutError.isInstance(error)).toBe(true)
    expect(error.message).toMatch(/MCP server "mute" did not complete the handshake/)
    const line = memory.events.find((event) => event.kind === 'mcp-server-stderr')?.data.line as string
    expect(alive(Number(line.replace('pid:', '')))).toBe(false)
    expect(memory.events.find((event) => event.kind === 'mcp-connect-end')?.data).toMatchObject({
      outcome: 'timeout',
      server: 'mute',
    })
  })

  it('says how a server that dies at start ended', async () => {
    const error = await failure(connectMcpServer({ name: 'crashy', transport: bad('crash') }))
    expect(McpConnectionError.isInstance(error)).toBe(true)
    expect(error.details).toMatchObject({
      server: 'crashy',
      exitCode: 3,
      stderr: 'fatal: missing config file ./mcp.json',
    })
    expect(error.message).toMatch(/exit code 3.*fatal: missing config file/)
  })

  it.each([
    ['bad-initialize', 'initialize', /result the protocol does not allow: protocolVersion/],
    ['old-protocol', 'initialize', /protocol version this client does not support/],
    ['bad-list', 'tools/list', /answered tools\/list without a tools array/],
    ['loop-cursor', 'tools/list', /cursor "same" twice; its pagination loops/],
  ])('refuses a server whose %s answer breaks the protocol', async (mode, method, message) => {
    const error = await failure(connectMcpServer({ name: 'broken', transport: bad(mode) }))
    expect(McpProtocolError.isInstance(error)).toBe(true)
    expect(error.message).toMatch(/MCP server "broken"/)
    expect(error.message).toMatch(message)
    if (mode !== 'old-protocol') expect(error.details.method).toBe(method)
  })

  it.each([
    ['bad-call', /answered tools\/call of tool "echo" with a result the protocol does not allow: content/],
    ['rpc-error', /answered tools\/call of tool "echo" with JSON-RPC error -32603: boom/],
  ])('fails a call whose answer breaks the protocol (%s), naming server and tool', async (mode, message) => {
    const connection = await connectMcpServer({ name: 'broken', transport: bad(mode) })
    try {
      const outcome = await ToolLifecycleRegistry.create(connection.lifecycles()).run({
        toolCallId: 'c',
        toolId: 'broken__echo',
        input: { text: 'x' },
      })
      expect(outcome.status).toBe('failed')
      if (outcome.status !== 'failed') return
      expect(McpProtocolError.isInstance(outcome.error)).toBe(true)
      expect((outcome.error as Error).message).toMatch(message)
      expect((outcome.error as McpProtocolError).details).toMatchObject({
        server: 'broken',
        tool: 'echo',
        toolId: 'broken__echo',
      })
    } finally {
      await connection.close()
    }
  })

  it('never hangs on an answer with the wrong id: the call time limit ends it', async () => {
    const connection = await connectMcpServer({
      name: 'confused',
      transport: bad('wrong-id'),
      callTimeoutMs: 300,
    })
    try {
      const error = await failure(
        invokeModelTool(connection.tool('confused__echo'), { text: 'x' }, createOperationContext()),
      )
      expect(TimeoutError.isInstance(error)).toBe(true)
      expect(error.message).toMatch(
        /MCP server "confused" did not answer tools\/call of tool "echo" within 300 ms/,
      )
    } finally {
      await connection.close()
    }
  })
})

describe('tool descriptions that are not usable', () => {
  it('refuses a schema that is not JSON Schema, naming server and tool', async () => {
    const error = await failure(connectMcpServer({ name: 'legacy', transport: bad('bad-schema') }))
    expect(McpSchemaError.isInstance(error)).toBe(true)
    expect(error.details).toMatchObject({
      server: 'legacy',
      tool: 'lookup',
      field: 'inputSchema',
      received: 'the string "any"',
    })
    expect(error.message).toMatch(
      /^Tool "lookup" of MCP server "legacy" cannot be offered to a model: inputSchema is not a JSON Schema of an object/,
    )
    expect(error.message).toMatch(/leave the tool out \(connection option filter, or invalidTools: "skip"\)/)
  })

  it('skips unusable tools when asked to, and says why', async () => {
    const memory = new MemoryDiagnosticSink()
    const legacy = await connectMcpServer(
      { name: 'legacy', transport: bad('bad-schema'), invalidTools: 'skip' },
      { diagnostics: memory.sink },
    )
    try {
      expect(legacy.tools.map((tool) => tool.id)).toEqual(['legacy__ok'])
      expect(legacy.skippedTools.map((tool) => [tool.name, tool.error?.details.field])).toEqual([
        ['lookup', 'inputSchema'],
        ['typo', 'inputSchema'],
      ])
      expect(legacy.skippedTools[1]?.reason).toMatch(/inputSchema is not a valid JSON Schema/)
      expect(memory.events.filter((event) => event.kind === 'mcp-tool-skipped')).toHaveLength(2)
    } finally {
      await legacy.close()
    }
  })

  it('never looks at tools the filter leaves out', async () => {
    const legacy = await connectMcpServer({
      name: 'legacy',
      transport: bad('bad-schema'),
      filter: (tool) => tool.name === 'ok',
    })
    try {
      expect(legacy.tools.map((tool) => tool.id)).toEqual(['legacy__ok'])
      expect(legacy.skippedTools).toEqual([])
    } finally {
      await legacy.close()
    }
  })

  it('refuses an output schema that is not JSON Schema', async () => {
    const error = await failure(connectMcpServer({ name: 'reports', transport: bad('bad-output-schema') }))
    expect(McpSchemaError.isInstance(error)).toBe(true)
    expect(error.details).toMatchObject({ tool: 'report', field: 'outputSchema' })
  })

  it('refuses two tools of one server that end up with one id, naming both', async () => {
    const error = await failure(connectMcpServer({ name: 'files', transport: bad('duplicate-ids') }))
    expect(DuplicateIdError.isInstance(error)).toBe(true)
    expect(error.message).toMatch(
      /lists tools "fs.read" and "fs_read", which both become the tool id "files__fs_read"/,
    )
    const renamed = await connectMcpServer({
      name: 'files',
      transport: bad('duplicate-ids'),
      toolId: ({ server, name }) => `${server}__${name.replace('.', '_dot_')}`,
    })
    expect(renamed.tools.map((tool) => tool.id)).toEqual(['files__fs_dot_read', 'files__fs_read'])
    await renamed.close()
  })
})

describe('garbage arguments (property)', () => {
  let upstream: LoopbackServer
  let fixture: McpConnection<'fixture'>
  beforeAll(async () => {
    upstream = await fixtureOverHttp()
    fixture = await connectMcpServer({ name: 'fixture', transport: { type: 'http', url: upstream.url } })
  })
  afterAll(async () => {
    await fixture.close()
    await upstream.close()
  })

  async function typedOrSuccess(run: () => unknown): Promise<void> {
    try {
      const value = await run()
      // A garbage value that happened to be valid serve arguments: stop what it started.
      if (
        typeof value === 'object' &&
        value !== null &&
        typeof (value as { close?: unknown }).close === 'function'
      )
        await (value as { close(): Promise<void> }).close()
    } catch (error) {
      if (error instanceof AppError) return
      if (!AgentCoreError.isInstance(error))
        throw new Error(`expected an AgentCoreError, got ${String(error)}`, { cause: error })
    }
  }

  it('answers garbage only with typed errors', async () => {
    const echo = fixture.tool('fixture__echo')
    const valid = { type: 'http' as const, url: upstream.url }
    await fc.assert(
      fc.asyncProperty(garbage, garbage, garbage, async (a, b, c) => {
        await typedOrSuccess(() => connectMcpServer(a as never))
        await typedOrSuccess(() => connectMcpServer({ name: a, transport: valid } as never))
        await typedOrSuccess(() => connectMcpServer({ name: 'x', transport: a } as never))
        await typedOrSuccess(() =>
          connectMcpServer({ name: 'x', transport: { type: 'stdio', command: a, args: b } } as never),
        )
        await typedOrSuccess(() =>
          connectMcpServer({
            name: 'x',
            transport: { type: 'http', url: a, headers: b, bearerToken: c },
          } as never),
        )
        await typedOrSuccess(() =>
          connectMcpServer({
            name: 'x',
            transport: valid,
            [typeof a === 'string' ? a : 'other']: b,
          } as never),
        )
        await typedOrSuccess(() =>
          connectMcpServer({ name: 'x', transport: valid, connectTimeoutMs: a, invalidTools: b } as never),
        )
        await typedOrSuccess(() =>
          connectMcpServer({ name: 'x', transport: { type: 'custom', transport: a } } as never),
        )
        await typedOrSuccess(() => mcpToolId(a as never, b as never, c as never))
        await typedOrSuccess(() => renderMcpResult(a as never))
        await typedOrSuccess(() => mcpResultTemplate(a as never))
        expect(typeof isMcpModelTool(a)).toBe('boolean')
        await typedOrSuccess(() => createMcpToolset(a as never))
        await typedOrSuccess(() => createMcpToolset({ servers: [fixture], tools: a } as never))
        await typedOrSuccess(() => createMcpToolset({ servers: a } as never))
        await typedOrSuccess(() => serveMcp(a as never, b as never))
        await typedOrSuccess(() => serveMcp([echo], { type: 'http', port: a, host: b } as never))
        await typedOrSuccess(() => serveMcp([echo], { type: 'http', listen: false }, a as never))
        await typedOrSuccess(() => fixture.tool(a as never))
        await typedOrSuccess(() => fixture.lifecycles(a as never))
        await typedOrSuccess(() => fixture.refreshTools(a as never))
        await typedOrSuccess(() => fixture.onToolsChanged(a as never))
        await typedOrSuccess(() => fixture.listResources(a as never))
        await typedOrSuccess(() => fixture.resources.resolve(a as never, {} as never))
        await typedOrSuccess(() => invokeModelTool(echo, a, createOperationContext()))
      }),
      { numRuns: 150 },
    )
  })

  it('refuses a misspelled option instead of ignoring it', async () => {
    const error = await failure(
      connectMcpServer({
        name: 'x',
        transport: { type: 'http', url: upstream.url, bearer_token: 't' },
      } as never),
    )
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect(error.message).toMatch(/options.transport has an unknown field "bearer_token"/)
  })
})
