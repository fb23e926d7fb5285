/**
 * The cost of the reflection cycle per round, against the same cycle written by hand in the same run: the
 * same `ModelCalls` bindings called with `invoke`, the verdict read with the same `defineStructuredOutput`
 * contract, the same revise prompt. The reflection adds: the checks of the request and of each prompt
 * builder's messages, the budget checks before every call, the token estimate, the round records and the
 * spans (off: no diagnostics sink).
 *
 * The bindings answer at once (no I/O), so what is measured is the machinery alone; against a real model
 * call of hundreds of milliseconds it is noise. Each run has three rounds (revise, revise, accept): six
 * calls. Contenders run in interleaved rounds; the best of each counts. Target: at most 3x the hand-written
 * cycle. Run with `pnpm bench reflection`.
 */
import { AttemptBudget, type ChatMessage, type ModelRequest } from '@agent-core/core'
import { defineModelBinding, ModelCalls } from '@agent-core/kits/models'
import {
  defaultCritiquePrompt,
  defaultRevisePrompt,
  defineReflection,
  reflectionVerdictOutput,
} from '@agent-core/kits/reflection'

const RUNS = 200
const ROUNDS = 20

const revise = '{"decision": "revise", "issues": ["Be more specific."]}'
const accept = '{"decision": "accept", "issues": []}'
const models = new ModelCalls([
  defineModelBinding({
    id: 'writer',
    identity: 'instant-writer',
    invoke: (request: ModelRequest) => `draft after ${request.messages.length} messages`,
  }),
  defineModelBinding({
    id: 'critic',
    identity: 'instant-critic',
    // Accepts the third draft it sees: the round number is in the critique.
    invoke: (request: ModelRequest) =>
      String(request.messages.at(-1)?.content).includes('(round 3)') ? accept : revise,
  }),
])
const writer = { models, modelId: 'writer', timeoutMs: 10_000 } as const
const critic = { models, modelId: 'critic', timeoutMs: 10_000 } as const
const reflection = defineReflection({ drafter: writer, critic, maxRounds: 5 })
const verdict = reflectionVerdictOutput()
const task: ChatMessage[] = [{ role: 'user', content: 'Describe the harbour at dawn.' }]

async function byHand(): Promise<number> {
  const attemptBudget = new AttemptBudget(20)
  const context = { attemptBudget }
  let draft = String(
    (await models.invoke({ modelId: 'writer', input: { messages: task }, timeoutMs: 10_000 }, context)).value,
  )
  for (let round = 1; round <= 5; round++) {
    const input = { task, criteria: undefined, round, previous: [], draft, issues: [] }
    const [system, ...rest] = defaultCritiquePrompt(input)
    const messages: ChatMessage[] = [
      { role: 'system', content: `${system?.content}\n\n${verdict.instructions}` },
      ...rest,
    ]
    const reply = String(
      (await models.invoke({ modelId: 'critic', input: { messages }, timeoutMs: 10_000 }, context)).value,
    )
    const parsed = await verdict.parse(reply)
    if (!parsed.ok) throw new Error('bad verdict')
    if (parsed.value.decision === 'accept') return round
    const next = defaultRevisePrompt({ ...input, round: round + 1, issues: parsed.value.issues })
    draft = String(
      (await models.invoke({ modelId: 'writer', input: { messages: next }, timeoutMs: 10_000 }, context))
        .value,
    )
  }
  return 5
}

async function withReflection(): Promise<number> {
  const result = await reflection.run({ messages: task }, { attemptBudget: new AttemptBudget(20) })
  if (result.reason !== 'accepted') throw new Error(`reflection ended with ${result.reason}`)
  return result.rounds.length
}

const contenders: Record<string, () => Promise<number>> = { byHand, reflection: withReflection }
const bestMs: Record<string, number> = {}
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(contenders)) {
    const started = performance.now()
    for (let i = 0; i < RUNS; i++) {
      if ((await run()) !== 3) throw new Error(`${name}: not three rounds`)
    }
    bestMs[name] = Math.min(bestMs[name] ?? Number.POSITIVE_INFINITY, performance.now() - started)
  }
}
const perRun = (name: string) => ((bestMs[name] ?? 0) * 1000) / RUNS
for (const name of Object.keys(contenders))
  console.log(`${name.padEnd(10)} ${perRun(name).toFixed(1).padStart(8)} µs/run (3 rounds, 6 calls)`)
const ratio = perRun('reflection') / perRun('byHand')
console.log(`\nreflection / hand-written cycle: ${ratio.toFixed(2)}x (target <= 3x)`)
if (ratio > 3) {
  console.log('target missed')
  process.exitCode = 1
}
