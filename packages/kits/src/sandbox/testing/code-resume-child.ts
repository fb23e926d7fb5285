/**
 * The child process of the code tool's suspend-and-resume tests: a fresh process that knows nothing but the
 * JSON on its stdin (`{ effects, turns, state, recordings, outcomes }`). It builds the same agent, restores
 * the recordings, resumes the run and writes `{ reason, state, recordings, pending, tools }` to stdout.
 */
import { codeAgent } from './code-agent.js'

let text = ''
for await (const chunk of process.stdin) text += chunk
const input = JSON.parse(text)
const { agent, recordings } = codeAgent({
  turns: input.turns,
  effects: input.effects,
  recordings: input.recordings,
  keepGlobals: input.keepGlobals,
})
const result = await agent.run({ resume: input.state, outcomes: input.outcomes, defer: true })
process.stdout.write(
  JSON.stringify({
    reason: result.reason,
    state: result.state,
    recordings,
    pending: result.reason === 'suspended' ? result.pending : [],
    tools: result.messages.filter((message) => message.role === 'tool'),
    answer: result.reason === 'final' ? result.answer : undefined,
  }),
)
