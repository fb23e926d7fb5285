/**
 * The cost of the tool lifecycle per call, against core's bare `invokeModelTool` (the floor: input
 * validation, invocation id, execution, output validation) in the same run, with the same no-op tool.
 *
 * - `plain`: a registry of one tool without hooks;
 * - `hooked`: a registry of 20 tools, each with `inspect` and `finalize` (so every call runs 20 of each),
 *   the selected one with `authorize`, `complete` and a `template`, and a journal per request;
 * - `resume`: a pending call resumed from its JSON (parse, checks, the resumed pass).
 *
 * The contenders run in interleaved rounds of many calls, and the best round of each counts (the machine is
 * shared, so load changes hit all of them alike). The bare call is about a microsecond: an `await` on a
 * validated, synchronous tool. The lifecycle adds a span, a race against the signal, the JSON checks and
 * frozen copies of the record, the message and the phase events. Target (the tool-call seam issue): the
 * plain lifecycle costs at most 5x the bare call (on a busy shared machine the ratio swings widely; compare
 * runs taken together).
 * Run with `pnpm bench tools`.
 */
import { createOperationContext } from '@agent-core/core'
import { defineModelTool, invokeModelTool, type ModelTool } from '@agent-core/core/tools'
import {
  ApprovalRequiredError,
  defineToolLifecycle,
  type PendingToolCall,
  ToolCallJournal,
  ToolLifecycleRegistry,
} from '@agent-core/kits/tools'

const CALLS = 2_000
const ROUNDS = 15

const schema = {
  type: 'object',
  required: ['a', 'b'],
  properties: { a: { type: 'number' }, b: { type: 'number' } },
} as const

function tool(id: string): ModelTool<{ a: number; b: number }, number> {
  return defineModelTool<{ a: number; b: number }, number>({
    id,
    description: id,
    inputSchema: schema,
    execute: ({ a, b }) => a + b,
  })
}

const add = tool('add')
const context = createOperationContext()
const input = { a: 1, b: 2 }

const plain = ToolLifecycleRegistry.create([defineToolLifecycle(add)])

let inspected = 0
const hooked = ToolLifecycleRegistry.create([
  defineToolLifecycle(add, {
    authorize: () => undefined,
    complete: () => undefined,
    template: () => undefined,
    inspect: () => {
      inspected++
    },
    finalize: () => undefined,
  }),
  ...Array.from({ length: 19 }, (_, i) =>
    defineToolLifecycle(tool(`other_${i}`), {
      inspect: () => {
        inspected++
      },
      finalize: () => undefined,
    }),
  ),
])

const gated = ToolLifecycleRegistry.create([
  defineToolLifecycle(add, {
    authorize: () => {
      throw new ApprovalRequiredError('Needs a person.')
    },
  }),
])

async function pendingJson(count: number): Promise<string[]> {
  const out: string[] = []
  for (let i = 0; i < count; i++) {
    const outcome = await gated.run({ toolCallId: `p${i}`, toolId: 'add', input }, context)
    out.push(JSON.stringify(outcome.record))
  }
  return out
}

const states = await pendingJson(CALLS * ROUNDS)

/** One round of each contender, interleaved so that load changes hit all of them alike. */
const contenders: Record<string, (round: number) => Promise<void>> = {
  bare: async () => {
    for (let i = 0; i < CALLS; i++) await invokeModelTool(add, input, context)
  },
  plain: async () => {
    for (let i = 0; i < CALLS; i++) await plain.run({ toolCallId: `c${i}`, toolId: 'add', input }, context)
  },
  hooked: async () => {
    const journal = new ToolCallJournal()
    for (let i = 0; i < CALLS; i++)
      await hooked.run({ toolCallId: `c${i}`, toolId: 'add', input }, context, { journal })
  },
  resume: async (round) => {
    for (let i = 0; i < CALLS; i++) {
      const state = JSON.parse(states[round * CALLS + i]!) as PendingToolCall
      await gated.resume(state, { type: 'approve', toolCallId: state.toolCallId, by: 'person' }, context)
    }
  },
}
const bestMs: Record<string, number> = {}
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(contenders)) {
    const started = performance.now()
    await run(round)
    bestMs[name] = Math.min(bestMs[name] ?? Number.POSITIVE_INFINITY, performance.now() - started)
  }
}
const perCall = (name: string) => ((bestMs[name] ?? 0) * 1000) / CALLS
for (const name of Object.keys(contenders))
  console.log(`${name.padEnd(8)} ${perCall(name).toFixed(2).padStart(8)} µs/call`)
const bare = perCall('bare')
const lifecycle = perCall('plain')
const withHooks = perCall('hooked')
const resumed = perCall('resume')
if (inspected === 0) throw new Error('the hooked registry did not run its hooks')

const ratio = lifecycle / bare
console.log(
  `\nplain lifecycle / bare invokeModelTool: ${ratio.toFixed(2)}x (target <= 5x): ${ratio <= 5 ? 'met' : 'NOT met'}`,
)
console.log(`hooked (20 tools, journal) / bare:      ${(withHooks / bare).toFixed(2)}x`)
console.log(`resume from JSON / bare:                ${(resumed / bare).toFixed(2)}x`)
if (ratio > 5) process.exitCode = 1
