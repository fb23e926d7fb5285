/** A child process of the handoff tests: resumes a handoff state from the JSON on stdin, writes `{ reason, lastAgent, text, handoffState }` or `{ thrown, details }`. */
import { createScriptedModel, defineHandoffAgent, type HandoffAgent } from '../../index.js'
import { handoffGraph } from './handoff-agents.js'

let text = ''
for await (const chunk of process.stdin) text += chunk
const input = JSON.parse(text)
let answer: unknown
try {
  const graph = handoffGraph(input)
  const start: HandoffAgent =
    input.graph === 'lonely'
      ? defineHandoffAgent({ name: 'lonely', model: createScriptedModel([]) })
      : graph.triage
  const result = await start.run({ resume: input.state, outcomes: input.outcomes, defer: true })
  answer = {
    reason: result.reason,
    lastAgent: result.lastAgent,
    text: result.text,
    handoffState: result.handoffState,
  }
} catch (error) {
  const { code, details, message } = error as { code?: string; details?: unknown; message: string }
  answer = { thrown: code ?? 'unknown', details, message }
}
process.stdout.write(JSON.stringify(answer))
