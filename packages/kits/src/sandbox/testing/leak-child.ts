/**
 * The child process of the leak test (started with --expose-gc): runs sandboxes in a row and prints the
 * host's JS heap, the engine's WebAssembly memory (as its worker last reported it), the process's resident
 * size and the engines in use after a warm-up and after 200 more runs, as one JSON line.
 */
import { defineModelTool } from '@agent-core/core/tools'
import { executeSandbox } from '../index.js'
import { engineStats } from '../internal/engine.js'

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error('run with --expose-gc')
const echo = defineModelTool<{ n: number }, { n: number }>({
  id: 'echo',
  description: 'echo',
  inputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'number' } } },
  execute: ({ n }) => ({ n }),
})
const tools = [echo]
const scripts = [
  `const rows = []; for (let i = 0; i < 2000; i++) rows.push({ i, s: 'row ' + i })
const got = await Promise.all([echo({ n: 1 }), echo({ n: 2 })])
console.log('rows', rows.length)
return got.map((x: { n: number }) => x.n)`,
  'throw new Error("boom")',
  'for (;;) {}',
  'const a = []; for (;;) a.push({ n: a.length })',
]

async function runMany(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await executeSandbox(scripts[i % scripts.length]!, tools, {
      limits: { cpuTimeMs: 20, memoryBytes: 4 * 1024 * 1024 },
    })
  }
}

async function measure() {
  for (let i = 0; i < 4; i++) {
    gc!()
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  const usage = process.memoryUsage()
  const stats = engineStats()
  return {
    heapUsed: usage.heapUsed,
    rss: usage.rss,
    wasm: stats.engineBytes,
    engines: stats.active + stats.idle,
  }
}

await runMany(40)
const before = await measure()
await runMany(200)
const after = await measure()
process.stdout.write(`${JSON.stringify({ before, after, failed: engineStats().failed })}\n`)
