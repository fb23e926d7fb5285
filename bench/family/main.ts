/**
 * The cost of an agent family's machinery per child, against the same agent runs fanned out by hand in the
 * same run: `Promise.all` over `agent.run` with one agent defined once, each run's attempt share taken from
 * the parent's budget by hand and each run given its own signal (as a fan-out that can be cancelled needs). The family adds per child: the checks of the child request, the grant
 * (tool and scope subsets), a `defineAgent` of the member with the child's tools and token share, the
 * budget objects, a `family-child` span (off: no diagnostics sink), the signal links and the report. Child
 * agents are built once per member, grant and token share, so a spawn of alike children compiles one.
 *
 * The model answers at once (no I/O), so what is measured is the machinery alone: a real model call takes
 * hundreds of milliseconds, against which the difference is noise. Contenders run in interleaved rounds;
 * the best round of each counts. Target: the family costs at most 3x the hand-rolled fan-out.
 * Run with `pnpm bench family`.
 */
import { AttemptBudget, type ChatModel } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { defineAgentFamily } from '@agent-core/kits/family'
import { defineAgent } from '@agent-core/kits/loop'

const CHILDREN = 50
const ROUNDS = 30

const model: ChatModel = {
  identity: 'instant',
  generate: async (request) => ({
    message: { role: 'assistant', content: `ok ${request.messages.length}` },
    finishReason: 'stop',
    usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
  }),
}
const tools = Array.from({ length: 8 }, (_, index) =>
  defineModelTool({
    id: `tool_${index}`,
    description: `tool ${index}`,
    inputSchema: {},
    execute: () => index,
  }),
)
const granted = tools.slice(0, 3).map((tool) => tool.id)

const agent = defineAgent({ model, tools: tools.slice(0, 3), system: 'Answer.' })
const family = defineAgentFamily({
  tools,
  scopes: ['web', 'docs'],
  concurrency: CHILDREN,
  members: [{ id: 'worker', agent: { model, system: 'Answer.' } }],
})

const contenders: Record<string, () => Promise<number>> = {
  byHand: async () => {
    const parent = new AttemptBudget(CHILDREN * 2)
    parent.takeMany(CHILDREN * 2)
    const results = await Promise.all(
      Array.from({ length: CHILDREN }, (_, index) =>
        agent.run(
          { prompt: `task ${index}` },
          { attemptBudget: new AttemptBudget(2), signal: new AbortController().signal },
        ),
      ),
    )
    return results.filter((result) => result.reason === 'final').length
  },
  family: async () => {
    const result = await family.run(
      {
        maxTokens: CHILDREN * 100,
        children: Array.from({ length: CHILDREN }, (_, index) => ({
          member: 'worker',
          id: `c${index}`,
          prompt: `task ${index}`,
          tools: granted,
          scopes: ['web'],
          attempts: 2,
          tokens: 100,
        })),
      },
      { attemptBudget: new AttemptBudget(CHILDREN * 2) },
    )
    return result.children.filter((child) => child.status === 'done').length
  },
}

const bestMs: Record<string, number> = {}
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(contenders)) {
    const started = performance.now()
    const done = await run()
    const elapsed = performance.now() - started
    if (done !== CHILDREN) throw new Error(`${name}: ${done} of ${CHILDREN} children finished`)
    bestMs[name] = Math.min(bestMs[name] ?? Number.POSITIVE_INFINITY, elapsed)
  }
}
const perChild = (name: string) => ((bestMs[name] ?? 0) * 1000) / CHILDREN
for (const name of Object.keys(contenders))
  console.log(`${name.padEnd(8)} ${perChild(name).toFixed(1).padStart(8)} µs/child`)
const ratio = perChild('family') / perChild('byHand')
console.log(`\nfamily / hand-rolled Promise.all: ${ratio.toFixed(2)}x (target <= 3x)`)
if (ratio > 3) {
  console.log('target missed')
  process.exitCode = 1
}
