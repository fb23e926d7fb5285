/**
 * The agent loop's own cost per turn, against the Vercel AI SDK's `generateText` (ai 7) in the same run.
 *
 * Both sides run the same agent: a zero-latency model that calls a no-op tool once per turn for `TOOL_TURNS`
 * turns and then answers, so every microsecond measured is the loop's (model plumbing, the tool call, the
 * history). Ours streams a scripted model (`createScriptedModel`, a new one per run, its script checked
 * each time) through an agent defined once, and runs each call through the `tools` kit lifecycle (input
 * schema, hooks, time limit, frozen record); the AI SDK runs `generateText` with a new `MockLanguageModelV4`
 * from `ai/test` per run and a `tool()` with a JSON schema, stopping after the same number of steps.
 *
 * The contenders run in interleaved rounds and the best round of each counts (the machine is shared; load
 * hits both alike). Target: our cost per turn is at most half the AI SDK's. Run with `pnpm bench loop`.
 */

import type { ChatModel } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import {
  createScriptedModel,
  defineAgent,
  type ScriptedModel,
  type ScriptedTurn,
} from '@agent-core/kits/loop'
import { generateText, jsonSchema, stepCountIs, tool } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'

const TOOL_TURNS = 9
const TURNS = TOOL_TURNS + 1
const RUNS = 150
const ROUNDS = 15

// ---- agent-core ---------------------------------------------------------------------------------------

const noop = defineModelTool<{ n: number }, string>({
  id: 'noop',
  description: 'Does nothing',
  inputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'number' } } },
  execute: () => 'ok',
})
const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 }
const script: ScriptedTurn[] = [
  ...Array.from({ length: TOOL_TURNS }, (_, turn) => ({
    toolCalls: [{ id: `call_${turn}`, name: 'noop', input: { n: turn } }],
    usage,
  })),
  { text: 'done', usage },
]

// The agent is defined once (definitions are static); each run gets a fresh scripted model, as each AI SDK
// run gets a fresh mock model.
let scripted: ScriptedModel = createScriptedModel(script)
const model: ChatModel = {
  identity: 'scripted',
  generate: (request, context) => scripted.generate(request, context),
  stream: (request, context) => scripted.stream!(request, context),
}
const agent = defineAgent({ model, tools: [noop], maxTurns: TURNS })

async function ours(): Promise<void> {
  scripted = createScriptedModel(script)
  const result = await agent.run({ prompt: 'go' })
  if (result.reason !== 'final' || result.turns !== TURNS)
    throw new Error(`agent-core: unexpected ${result.reason}`)
}

// ---- Vercel AI SDK ------------------------------------------------------------------------------------

const aiUsage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}
const aiTools = {
  noop: tool({
    description: 'Does nothing',
    inputSchema: jsonSchema<{ n: number }>({
      type: 'object',
      required: ['n'],
      properties: { n: { type: 'number' } },
    }),
    execute: async () => 'ok',
  }),
}

function aiModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      const results = options.prompt.filter((message) => message.role === 'tool').length
      if (results < TOOL_TURNS) {
        return {
          content: [
            {
              type: 'tool-call',
              toolCallId: `call_${results}`,
              toolName: 'noop',
              input: JSON.stringify({ n: results }),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage: aiUsage,
          warnings: [],
        }
      }
      return {
        content: [{ type: 'text', text: 'done' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: aiUsage,
        warnings: [],
      }
    },
  })
}

async function theirs(): Promise<void> {
  const result = await generateText({
    model: aiModel(),
    tools: aiTools,
    prompt: 'go',
    stopWhen: stepCountIs(TURNS),
  })
  if (result.text !== 'done' || result.steps.length !== TURNS) throw new Error('ai: unexpected result')
}

// ---- measurement --------------------------------------------------------------------------------------

/** One round: wall-clock and process CPU time per turn, in µs. */
async function round(run: () => Promise<void>): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage()
  const started = process.hrtime.bigint()
  for (let i = 0; i < RUNS; i++) await run()
  const wall = Number(process.hrtime.bigint() - started) / 1000
  const used = process.cpuUsage(cpu)
  return { wall: wall / (RUNS * TURNS), cpu: (used.user + used.system) / (RUNS * TURNS) }
}

const gc = (globalThis as { gc?: () => void }).gc
for (let i = 0; i < 40; i++) {
  await ours()
  await theirs()
}
const rounds: { ours: { wall: number; cpu: number }[]; theirs: { wall: number; cpu: number }[] } = {
  ours: [],
  theirs: [],
}
for (let r = 0; r < ROUNDS; r++) {
  gc?.()
  rounds.ours.push(await round(ours))
  gc?.()
  rounds.theirs.push(await round(theirs))
}
const best = (values: number[]) => Math.min(...values)
const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!
const show = (name: string, list: { wall: number; cpu: number }[]) =>
  `${name}${best(list.map((r) => r.cpu)).toFixed(1)} µs CPU/turn (median ${median(list.map((r) => r.cpu)).toFixed(1)}), ${best(list.map((r) => r.wall)).toFixed(1)} µs wall/turn`
console.log(
  `turns per run: ${TURNS} (${TOOL_TURNS} with one no-op tool call, then the answer); ${RUNS} runs per round, ${ROUNDS} rounds`,
)
console.log(show('agent-core loop:         ', rounds.ours))
console.log(show('ai generateText (ai 7):  ', rounds.theirs))
const cpuRatio = best(rounds.ours.map((r) => r.cpu)) / best(rounds.theirs.map((r) => r.cpu))
const wallRatio = best(rounds.ours.map((r) => r.wall)) / best(rounds.theirs.map((r) => r.wall))
console.log(
  `ratio per turn, best rounds: CPU ${cpuRatio.toFixed(2)}, wall ${wallRatio.toFixed(2)} (target <= 0.50 on CPU, the figure a loaded machine disturbs least): ${cpuRatio <= 0.5 ? 'met' : 'NOT met'}`,
)
