/**
 * A host application for the signal tests: connects to the fixture server over stdio (a server that keeps
 * running after its stdin closes), prints the server's process id, and waits. The test then kills this
 * host and checks that the server went with it.
 *
 * Modes: `plain` (no signal handlers of its own), `own-handler` (the App handles SIGTERM and SIGINT and
 * exits by itself), `exit` (the App exits without closing the connection).
 */

import { connectMcpServer } from '@agent-core/kits/mcp'
import { ToolLifecycleRegistry } from '@agent-core/kits/tools'
import { fixtureOverStdio } from './servers.js'

const mode = process.argv[2] ?? 'plain'
const connection = await connectMcpServer({ name: 'fixture', transport: fixtureOverStdio(['--linger']) })
const outcome = await ToolLifecycleRegistry.create(connection.lifecycles()).run({
  toolCallId: 'pid',
  toolId: 'fixture__env',
  input: { name: 'HOME' },
})
const { pid } = JSON.parse(outcome.status === 'completed' ? outcome.message.content : '{}') as { pid: number }
if (mode === 'own-handler') {
  const stop = () => setTimeout(() => process.exit(0), 10)
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}
process.stdout.write(`${JSON.stringify({ pid })}\n`)
if (mode === 'exit') setTimeout(() => process.exit(0), 50)
else setInterval(() => undefined, 60_000)
