import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { MemoryDiagnosticSink } from '@agent-core/core'
import { connectMcpServer, type McpConnection, McpConnectionError } from '@agent-core/kits/mcp'
import { ToolLifecycleRegistry } from '@agent-core/kits/tools'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { alive, eventually, fixtureOverStdio, nodeScript, tsScript } from './testing/servers.js'

const open: McpConnection[] = []
const track = (connection: McpConnection) => {
  open.push(connection)
  return connection
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()))
})

async function env(connection: McpConnection, name: string) {
  const outcome = await ToolLifecycleRegistry.create(connection.lifecycles()).run({
    toolCallId: 'env',
    toolId: 'fixture__env',
    input: { name },
  })
  if (outcome.status !== 'completed') throw new Error(`env failed: ${outcome.status}`)
  return JSON.parse(outcome.message.content) as { value: string | null; cwd: string; pid: number }
}

describe('stdio: the server process', () => {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-cwd-')))
  afterAll(() => rmSync(folder, { recursive: true, force: true }))

  it('gets the env it is given, a safe few of the host variables, and its cwd', async () => {
    process.env.MCP_TEST_SECRET = 'host-only'
    try {
      const transport = { ...fixtureOverStdio(), env: { GREETING: 'hello' }, cwd: folder }
      const connection = track(await connectMcpServer({ name: 'fixture', transport }))
      expect(await env(connection, 'GREETING')).toMatchObject({ value: 'hello', cwd: folder })
      expect((await env(connection, 'PATH')).value).toBe(process.env.PATH)
      expect((await env(connection, 'MCP_TEST_SECRET')).value).toBeNull()
      const inheriting = track(
        await connectMcpServer({ name: 'fixture', transport: { ...fixtureOverStdio(), inheritEnv: true } }),
      )
      expect((await env(inheriting, 'MCP_TEST_SECRET')).value).toBe('host-only')
    } finally {
      delete process.env.MCP_TEST_SECRET
    }
  })

  it('reports the server stderr as diagnostics', async () => {
    const memory = new MemoryDiagnosticSink()
    track(
      await connectMcpServer(
        { name: 'fixture', transport: fixtureOverStdio() },
        { diagnostics: memory.sink },
      ),
    )
    expect(memory.events.find((event) => event.kind === 'mcp-server-stderr')?.data).toEqual({
      server: 'fixture',
      line: 'fixture server started',
    })
  })

  it('ends a server that keeps running after its stdin closes', async () => {
    const connection = await connectMcpServer({
      name: 'fixture',
      transport: fixtureOverStdio(['--linger']),
      closeGraceMs: 200,
    })
    const { pid } = await env(connection, 'HOME')
    expect(alive(pid)).toBe(true)
    await connection.close()
    expect(alive(pid)).toBe(false)
  })

  it('ends a server that ignores SIGTERM with SIGKILL', async () => {
    const memory = new MemoryDiagnosticSink()
    const connection = await connectMcpServer(
      { name: 'stubborn', transport: nodeScript('./bad-server.mjs', ['ignore-term']), closeGraceMs: 200 },
      { diagnostics: memory.sink },
    )
    await connection.close()
    expect(memory.events.find((event) => event.kind === 'mcp-disconnect')?.data).toMatchObject({
      server: 'stubborn',
      unexpected: false,
      exitSignal: 'SIGKILL',
    })
  })

  it('says how the server ended when it dies during a call', async () => {
    const memory = new MemoryDiagnosticSink()
    const connection = track(
      await connectMcpServer(
        { name: 'fragile', transport: nodeScript('./bad-server.mjs', ['crash-on-call']) },
        { diagnostics: memory.sink },
      ),
    )
    const outcome = await ToolLifecycleRegistry.create(connection.lifecycles()).run({
      toolCallId: 'c',
      toolId: 'fragile__echo',
      input: { text: 'x' },
    })
    expect(outcome.status).toBe('failed')
    if (outcome.status !== 'failed') return
    expect(McpConnectionError.isInstance(outcome.error)).toBe(true)
    expect((outcome.error as McpConnectionError).details).toMatchObject({
      server: 'fragile',
      transport: 'stdio',
      exitCode: 7,
      stderr: 'segfault in tool',
      tool: 'echo',
    })
    expect(outcome.message.content).toMatch(
      /MCP server "fragile" is closed \(the process ended with exit code 7\)/,
    )
    expect(connection.closed).toBe(true)
    expect(memory.events.find((event) => event.kind === 'mcp-disconnect')?.data).toMatchObject({
      unexpected: true,
    })
  })
})

/** Starts a host application (a child process) that connects to a lingering server and prints its pid. */
async function startHost(mode: string): Promise<{ host: ChildProcess; serverPid: number }> {
  const { command, args } = tsScript('./host.ts', [mode])
  const host = spawn(command, [...(args ?? [])], { stdio: ['ignore', 'pipe', 'inherit'] })
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: host.stdout! })
    lines.once('line', resolve)
    host.once('exit', (code) =>
      reject(new Error(`host exited with ${code} before it printed the server pid`)),
    )
  })
  return { host, serverPid: (JSON.parse(line) as { pid: number }).pid }
}

function exited(host: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (host.exitCode !== null || host.signalCode !== null)
    return Promise.resolve({ code: host.exitCode, signal: host.signalCode })
  return new Promise((resolve) => host.once('exit', (code, signal) => resolve({ code, signal })))
}

describe('stdio: no server is left behind when the host goes', () => {
  const hosts: ChildProcess[] = []
  const servers: number[] = []
  afterAll(() => {
    for (const host of hosts) if (host.exitCode === null && host.signalCode === null) host.kill('SIGKILL')
    for (const pid of servers) if (alive(pid)) process.kill(pid, 'SIGKILL')
  })

  it.each(['SIGTERM', 'SIGINT'] as const)('the host is killed with %s', async (signal) => {
    const { host, serverPid } = await startHost('plain')
    hosts.push(host)
    servers.push(serverPid)
    expect(alive(serverPid)).toBe(true)
    host.kill(signal)
    // The host still dies of the signal (the kit re-raises it), and its server goes with it.
    expect(await exited(host)).toEqual({ code: null, signal })
    expect(await eventually(() => !alive(serverPid))).toBe(true)
  })

  it('the App handles SIGTERM itself and exits', async () => {
    const { host, serverPid } = await startHost('own-handler')
    hosts.push(host)
    servers.push(serverPid)
    host.kill('SIGTERM')
    expect(await exited(host)).toEqual({ code: 0, signal: null })
    expect(await eventually(() => !alive(serverPid))).toBe(true)
  })

  it('the App exits without closing the connection', async () => {
    const { host, serverPid } = await startHost('exit')
    hosts.push(host)
    servers.push(serverPid)
    expect(await exited(host)).toEqual({ code: 0, signal: null })
    expect(await eventually(() => !alive(serverPid))).toBe(true)
  })
})
