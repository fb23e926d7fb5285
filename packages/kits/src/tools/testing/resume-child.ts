/**
 * The child process of the pending-then-resume test: a fresh process that knows nothing but the JSON it
 * reads from stdin (`{ state, decision, keys? }`). It builds the same registry, resumes the call and
 * writes `{ log, status, replayed, record, executions }` to stdout.
 */
import { createOperationContext } from '@agent-core/core'
import { recordingRegistry } from './recording-tools.js'

let text = ''
for await (const chunk of process.stdin) text += chunk
const { state, decision, keys } = JSON.parse(text) as { state: never; decision: never; keys?: string[] }
const recorder = { log: [] as string[] }
const { tools, executions } = recordingRegistry(recorder, keys ? { decisionKeys: keys } : {})
try {
  const outcome = await tools.resume(state, decision, createOperationContext())
  process.stdout.write(
    JSON.stringify({
      log: recorder.log,
      status: outcome.status,
      replayed: outcome.replayed,
      record: outcome.record,
      executions: [...executions.values()],
    }),
  )
} catch (error) {
  process.stdout.write(JSON.stringify({ log: recorder.log, thrown: (error as { code?: string }).code }))
}
