/**
 * Tool calls per second through the MCP kit, as a ratio of the official SDK client measured in the same run
 * against the same server, and the client CPU the kit adds to each call. The kit does more than the raw
 * call (schema check, lifecycle hooks and record, span, result conversion), so the guard is a floor that
 * catches a regression (at least 30% of the raw client's calls per CPU second), not parity; the absolute
 * overhead per call is what to compare with a tool's own latency.
 *
 * - raw: `client.callTool({ name: 'echo', arguments })` on an SDK `Client` with the SDK's stdio transport;
 * - kit: `registry.run({ toolId: 'fixture__echo', input })`: the whole tools lifecycle (input checked against
 *   the server's schema, hooks, journal-ready JSON record, rendering for the model) around the kit's MCP tool
 *   (span, cancellation wiring, result conversion) over the kit's stdio transport.
 *
 * Each side talks to its own copy of the kit's fixture server (a child process, so the server's work is not
 * in this process). Calls run in batches with a few in flight, alternating sides and swapping order every
 * round, so load from other processes hits both alike. The target applies to calls per client CPU second,
 * which a loaded machine disturbs far less than wall-clock time; per-round ratios show the spread.
 */
import { join } from 'node:path'
import { connectMcpServer } from '@agent-core/kits/mcp'
import { ToolLifecycleRegistry } from '@agent-core/kits/tools'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'

const ROUNDS = 10
const CALLS_PER_BATCH = 200
const IN_FLIGHT = 4
const TARGET = 0.3
const fixture = join(import.meta.dirname, '../../packages/kits/src/mcp/testing/fixture-server.ts')
const args = ['--conditions=@agent-core/source', '--import', 'tsx', fixture]

const raw = new Client({ name: 'bench-raw', version: '1.0.0' })
await raw.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }))
const kit = await connectMcpServer({
  name: 'fixture',
  transport: { type: 'stdio', command: process.execPath, args, stderr: 'ignore' },
})
const registry = ToolLifecycleRegistry.create(kit.lifecycles())

let sequence = 0
async function rawCall(): Promise<void> {
  const result = await raw.callTool({ name: 'echo', arguments: { text: `hello ${sequence++}` } })
  if (result.isError) throw new Error('raw call failed')
}
async function kitCall(): Promise<void> {
  const id = sequence++
  const outcome = await registry.run({
    toolCallId: `c${id}`,
    toolId: 'fixture__echo',
    input: { text: `hello ${id}` },
  })
  if (outcome.status !== 'completed') throw new Error(`kit call ${outcome.status}`)
}

async function batch(call: () => Promise<void>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage()
  const start = performance.now()
  let left = CALLS_PER_BATCH
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (left-- > 0) await call()
    }),
  )
  const used = process.cpuUsage(cpu)
  return { wallMs: performance.now() - start, cpuMs: (used.user + used.system) / 1000 }
}

const totals = { raw: { wallMs: 0, cpuMs: 0 }, kit: { wallMs: 0, cpuMs: 0 } }
const ratios: number[] = []
try {
  for (let i = 0; i < 30; i++) await Promise.all([rawCall(), kitCall()]) // warm up
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['raw', 'kit'] as const) : (['kit', 'raw'] as const)
    const measured: Record<string, { wallMs: number; cpuMs: number }> = {}
    for (const side of order) measured[side] = await batch(side === 'raw' ? rawCall : kitCall)
    for (const side of order) {
      totals[side].wallMs += measured[side]!.wallMs
      totals[side].cpuMs += measured[side]!.cpuMs
    }
    ratios.push(measured.raw!.cpuMs / measured.kit!.cpuMs)
  }
} finally {
  await kit.close()
  await raw.close()
}

const calls = ROUNDS * CALLS_PER_BATCH
const perSecond = (ms: number) => Math.round((calls / ms) * 1000)
const cpuRatio = totals.raw.cpuMs / totals.kit.cpuMs
console.log(`MCP tool calls over stdio, ${calls} per side, ${IN_FLIGHT} in flight`)
console.log(
  `raw SDK client: ${perSecond(totals.raw.wallMs)} calls/s wall, ${perSecond(totals.raw.cpuMs)} calls per CPU second`,
)
console.log(
  `kit (lifecycle + MCP tool): ${perSecond(totals.kit.wallMs)} calls/s wall, ${perSecond(totals.kit.cpuMs)} calls per CPU second`,
)
console.log(
  `ratio kit/raw: ${(totals.raw.wallMs / totals.kit.wallMs).toFixed(2)} wall, ${cpuRatio.toFixed(2)} CPU (floor ${TARGET})`,
)
console.log(
  `client CPU added per call: ${(((totals.kit.cpuMs - totals.raw.cpuMs) / calls) * 1000).toFixed(0)} µs`,
)
const sorted = [...ratios].sort((a, b) => a - b)
console.log(
  `per-round CPU ratio: min ${sorted[0]!.toFixed(2)}, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)}, max ${sorted.at(-1)!.toFixed(2)}`,
)
if (cpuRatio < TARGET) {
  console.error(`below target: ${cpuRatio.toFixed(2)} < ${TARGET}`)
  process.exitCode = 1
}
