/** A child process of the tool-state tests: resumes `{ turns, state, outcomes }` from stdin, writes `{ reason, messages, state }` or `{ thrown, details }`. */
import { statefulAgent } from './stateful-agent.js'

let text = ''
for await (const chunk of process.stdin) text += chunk
const input = JSON.parse(text)
let answer: unknown
try {
  const result = await statefulAgent(input.turns).run({
    resume: input.state,
    outcomes: input.outcomes,
    defer: true,
  })
  answer = { reason: result.reason, messages: result.messages, state: result.state }
} catch (error) {
  const { code, details, message } = error as { code?: string; details?: unknown; message: string }
  answer = { thrown: code ?? 'unknown', details, message }
}
process.stdout.write(JSON.stringify(answer))
