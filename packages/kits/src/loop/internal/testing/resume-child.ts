/**
 * The child process of the suspend-and-resume tests: a fresh process that knows nothing but the JSON on
 * its stdin (`{ effects, turns, keys?, runs: [{ state, outcomes }] }`). For each run it builds the same
 * agent and resumes the run, and writes one `{ reason, events, messages, state, pending }` (or
 * `{ thrown, details }`) per run to stdout, as a JSON array.
 */
import type { AgentEvent } from '../../index.js'
import { brief } from './fixtures.js'
import { refundAgent } from './refund-agent.js'

let text = ''
for await (const chunk of process.stdin) text += chunk
const input = JSON.parse(text)
const answers: unknown[] = []
for (const run of input.runs) {
  const { agent } = refundAgent({ effects: input.effects, turns: input.turns, keys: input.keys })
  const events: AgentEvent[] = []
  try {
    const result = await agent.run({
      resume: run.state,
      outcomes: run.outcomes,
      defer: true,
      onEvent: (event) => void events.push(event),
    })
    answers.push({
      reason: result.reason,
      events: events.filter((event) => event.type !== 'text-delta').map(brief),
      messages: result.messages,
      state: result.state,
      pending: result.reason === 'suspended' ? result.pending : [],
    })
  } catch (error) {
    const { code, details, message } = error as { code?: string; details?: unknown; message: string }
    answers.push({ thrown: code ?? 'unknown', details, message })
  }
}
process.stdout.write(JSON.stringify(answers))
