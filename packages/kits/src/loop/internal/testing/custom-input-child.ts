/** A child process of the custom-input tests: resumes `{ state, outcomes, hook }` from stdin; the model answers with what it read. Writes `{ reason, text, state }` or `{ thrown, details }`. */
import { customInputAgent, seen } from './custom-input-agent.js'

let text = ''
for await (const chunk of process.stdin) text += chunk
const input = JSON.parse(text)
let answer: unknown
try {
  const { agent } = customInputAgent([(request) => ({ text: seen(request).join('\n') })], {
    hook: input.hook,
  })
  const result = await agent.run({ resume: input.state, outcomes: input.outcomes, defer: true })
  answer = { reason: result.reason, text: result.text, state: result.state }
} catch (error) {
  const { code, details, message } = error as { code?: string; details?: unknown; message: string }
  answer = { thrown: code ?? 'unknown', details, message }
}
process.stdout.write(JSON.stringify(answer))
