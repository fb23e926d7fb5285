/**
 * A child process of the replay tests: it knows nothing but the JSON on its stdin and the database it names.
 * `mode` `resume` resumes a state with `agent.run`; `durable-resume` and `durable-run` call
 * `resumeAgentRunTask` and `runAgentRunTask` on a SQLite durable store. It writes one JSON answer
 * (`{ reason, state }`, or `{ thrown, details, message }`) to stdout.
 */
import { createSqliteDurableStore, createSqliteSuspensionLedger } from '@agent-core/kits/durable/sqlite'
import { resumeAgentRunTask, runAgentRunTask } from '../../index.js'
import { ledgerAgent, ledgerTask } from './ledger-agent.js'

let text = ''
for await (const chunk of process.stdin) text += chunk
const input = JSON.parse(text)
let answer: unknown
const cleanup: (() => unknown)[] = []
try {
  if (input.mode === 'resume') {
    const ledger = createSqliteSuspensionLedger(input.ledger.file)
    cleanup.push(() => ledger.close())
    const agent = ledgerAgent({ effects: input.effects, turns: input.turns, ledger })
    const result = await agent.run({ resume: input.state, outcomes: input.outcomes, defer: true })
    answer = { reason: result.reason, state: result.state }
  } else {
    const store = createSqliteDurableStore(input.store, { leaseMs: 60_000 })
    cleanup.push(() => store.close())
    const agent = ledgerAgent({
      effects: input.effects,
      turns: input.turns,
      ledger: createSqliteSuspensionLedger(store.database),
      hangAfterEffect: input.hangAfterEffect,
    })
    const task = ledgerTask(agent, store)
    const result =
      input.mode === 'durable-resume'
        ? await resumeAgentRunTask(task, { taskId: input.taskId, outcomes: input.outcomes })
        : await runAgentRunTask(task, { taskId: input.taskId })
    answer = { reason: result.state.status, taskId: result.taskId, state: result.state }
  }
} catch (error) {
  const { code, details, message } = error as { code?: string; details?: unknown; message: string }
  answer = { thrown: code ?? 'unknown', details, message }
} finally {
  for (const close of cleanup) await close()
}
process.stdout.write(JSON.stringify(answer))
