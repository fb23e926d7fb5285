/**
 * The sandbox's costs, each as a ratio against a peer or a limit measured in the same run:
 *
 * - cold start: the first script of a fresh Node process (loading and compiling the QuickJS WebAssembly
 *   module, the first runtime, loading sucrase and the first type stripping), against the same process's first `node:vm`
 *   context, and against a limit of 400 ms (the engine compiles once per process; a model call takes longer);
 * - a fresh sandbox per script (runtime, context, prelude, frozen intrinsics, a trivial script, disposal),
 *   against a fresh `node:vm` context per script in the same run;
 * - the cost of one host call from a script (crossing into the sandbox and back as JSON, in call order),
 *   beyond the tool lifecycle every call goes through anyway: a script making 200 sequential calls to a
 *   no-op tool, minus an empty script, per call, against 200 direct `registry.run` calls of the same tool.
 *
 * Contenders run in interleaved rounds and the best round of each counts (the machine is shared and loaded:
 * load hits every contender alike). Run with `pnpm bench sandbox`.
 */
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import vm from 'node:vm'
import { createOperationContext } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { executeSandbox } from '@agent-core/kits/sandbox'
import { defineToolLifecycle, ToolLifecycleRegistry } from '@agent-core/kits/tools'

const ROUNDS = 7
const CALLS = 200
const FRESH = 40
const COLD_LIMIT_MS = 400

if (process.argv[2] === 'cold') {
  // The child: time the first script of a fresh process (the kit is imported already; what is measured is
  // what the kit loads on its first run: the engine and sucrase), then a first node:vm context.
  const started = performance.now()
  const result = await executeSandbox('return 1 + 1', [])
  const sandboxMs = performance.now() - started
  if (result.status !== 'completed') throw new Error('the first script failed')
  const vmStarted = performance.now()
  vm.runInNewContext('1 + 1')
  const vmMs = performance.now() - vmStarted
  process.stdout.write(JSON.stringify({ sandboxMs, vmMs }))
  process.exit(0)
}

const noop = defineModelTool<{ n: number }, number>({
  id: 'noop',
  description: 'Returns its input',
  inputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'number' } } },
  execute: ({ n }) => n,
})
const registry = ToolLifecycleRegistry.create([defineToolLifecycle(noop)])
const context = createOperationContext()

async function time(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  await work()
  return performance.now() - started
}

const SEQUENTIAL = `let total = 0
for (let i = 0; i < ${CALLS}; i++) total += await noop({ n: i })
return total`

async function sandboxCalls(): Promise<number> {
  return time(async () => {
    const result = await executeSandbox(SEQUENTIAL, registry, {
      language: 'javascript',
      limits: { maxHostCalls: CALLS },
    })
    if (result.status !== 'completed') throw new Error(JSON.stringify(result))
  })
}
async function sandboxEmpty(): Promise<number> {
  return time(() => executeSandbox('return 0', registry, { language: 'javascript' }))
}
async function directCalls(): Promise<number> {
  return time(async () => {
    for (let i = 0; i < CALLS; i++)
      await registry.run({ toolCallId: `c${i}`, toolId: 'noop', input: { n: i } }, context)
  })
}
async function freshSandboxes(): Promise<number> {
  return time(async () => {
    for (let i = 0; i < FRESH; i++) await executeSandbox('return 1 + 1', [], { language: 'javascript' })
  })
}
async function freshVmContexts(): Promise<number> {
  return time(async () => {
    for (let i = 0; i < FRESH; i++) vm.runInNewContext('1 + 1')
  })
}

// Cold starts, each in a fresh process.
const colds: { sandboxMs: number; vmMs: number }[] = []
for (let i = 0; i < 5; i++) {
  const out = execFileSync(
    process.execPath,
    ['--conditions=@agent-core/source', '--import', 'tsx', fileURLToPath(import.meta.url), 'cold'],
    { encoding: 'utf8' },
  )
  colds.push(JSON.parse(out) as { sandboxMs: number; vmMs: number })
}
const cold = colds.reduce((best, run) => (run.sandboxMs < best.sandboxMs ? run : best))

// Warm contenders, interleaved.
await sandboxCalls()
await directCalls()
const best = { calls: Infinity, empty: Infinity, direct: Infinity, fresh: Infinity, vm: Infinity }
for (let round = 0; round < ROUNDS; round++) {
  best.calls = Math.min(best.calls, await sandboxCalls())
  best.empty = Math.min(best.empty, await sandboxEmpty())
  best.direct = Math.min(best.direct, await directCalls())
  best.fresh = Math.min(best.fresh, await freshSandboxes())
  best.vm = Math.min(best.vm, await freshVmContexts())
}

const perHostCall = (best.calls - best.empty) / CALLS
const perDirectCall = best.direct / CALLS
const perFresh = best.fresh / FRESH
const perVm = best.vm / FRESH
const ms = (value: number) => `${value.toFixed(3)} ms`
console.log(
  `cold start (fresh process, first script, best of ${colds.length}): ${ms(cold.sandboxMs)}; first node:vm context: ${ms(cold.vmMs)}; ratio ${(cold.sandboxMs / cold.vmMs).toFixed(1)}x; limit ${COLD_LIMIT_MS} ms: ${cold.sandboxMs <= COLD_LIMIT_MS ? 'met' : 'MISSED'} (${((cold.sandboxMs / COLD_LIMIT_MS) * 100).toFixed(0)}% of it)`,
)
console.log(
  `fresh sandbox per script: ${ms(perFresh)}; fresh node:vm context per script: ${ms(perVm)}; ratio ${(perFresh / perVm).toFixed(2)}x`,
)
console.log(
  `host call from a script (beyond an empty script of ${ms(best.empty)}): ${ms(perHostCall)}; direct lifecycle call: ${ms(perDirectCall)}; ratio ${(perHostCall / perDirectCall).toFixed(2)}x (overhead of the sandbox crossing per call: ${ms(perHostCall - perDirectCall)})`,
)
