/**
 * The worker of the code tool's crash test: one agent run as one durable step on SQLite, whose model writes
 * one script that charges three cards (two in parallel, then one after a lookup). The code tool saves each
 * host call before it runs and after it settles in a SQLite table, keyed by the code call's invocation id;
 * the charge is written with its invocation id as idempotency key. Prints what happens as JSON lines, so a
 * test can kill it with SIGKILL at any of them and start it again.
 *
 *   node --conditions=@agent-core/source --import tsx durable-worker.ts <dbPath> <executionLog>
 */
import { appendFileSync } from 'node:fs'
import type { ChatModel, ModelResponse } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { defineDurableTask } from '@agent-core/kits/durable'
import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'
import { agentRunStep, createAgentRunState, defineAgent, isAgentRunState } from '@agent-core/kits/loop'
import { defineCodeTool, type SandboxRecording, type SandboxRecordingStore } from '../index.js'

const [dbPath, executionLog] = process.argv.slice(2) as [string, string]
const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`)

const SCRIPT = `const [a, b] = await Promise.all([charge({ card: 'visa', amount: 30 }), charge({ card: 'amex', amount: 50 })])
const { balance } = await check_balance({ card: 'visa' })
const c = await charge({ card: 'visa', amount: balance > 100 ? 70 : 1 })
return [a, b, c]`

const store = createSqliteDurableStore(dbPath, { leaseMs: 1_000 })
try {
  const db = store.database
  db.exec(`CREATE TABLE IF NOT EXISTS charges (idempotency_key TEXT PRIMARY KEY, card TEXT NOT NULL, amount INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sandbox_recordings (key TEXT PRIMARY KEY, json TEXT NOT NULL);`)
  const insert = db.prepare(
    'INSERT INTO charges (idempotency_key, card, amount) VALUES (?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING',
  )
  const readRecording = db.prepare('SELECT json FROM sandbox_recordings WHERE key = ?')
  const writeRecording = db.prepare(
    'INSERT INTO sandbox_recordings (key, json) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET json = excluded.json',
  )
  /** A recording store on the same database: what an App writes in a few lines. */
  const recordings: SandboxRecordingStore = {
    get(key) {
      const row = readRecording.get(key) as { json: string } | undefined
      return row === undefined ? undefined : (JSON.parse(row.json) as SandboxRecording)
    },
    set(key, recording) {
      writeRecording.run(key, JSON.stringify(recording))
      print({
        event: 'recording-saved',
        calls: recording.calls.length,
        running: recording.running?.length ?? 0,
      })
    },
  }
  const charge = defineModelTool<{ card: string; amount: number }, string>({
    id: 'charge',
    description: 'Charges a card',
    inputSchema: {
      type: 'object',
      required: ['card', 'amount'],
      properties: { card: { type: 'string' }, amount: { type: 'integer', minimum: 1 } },
    },
    execute: async ({ card, amount }, { invocationId }) => {
      print({ event: 'charge-start', card, amount })
      appendFileSync(executionLog, `${JSON.stringify({ card, amount, invocationId })}\n`)
      insert.run(invocationId, card, amount)
      print({ event: 'charge-paid', card, amount })
      await new Promise((resolve) => setTimeout(resolve, 5))
      return `charged ${amount} to ${card}`
    },
  })
  const checkBalance = defineModelTool<{ card: string }, { balance: number }>({
    id: 'check_balance',
    description: 'Reads the balance of a card',
    inputSchema: { type: 'object', required: ['card'], properties: { card: { type: 'string' } } },
    execute: ({ card }) => {
      print({ event: 'balance', card })
      return { balance: 500 }
    },
  })
  const model: ChatModel = {
    identity: 'script-writer',
    async generate(request): Promise<ModelResponse> {
      const step = request.messages.filter((message) => message.role === 'assistant').length
      print({ event: 'model-call', step })
      const usage = { inputTokens: 10, outputTokens: 10, totalTokens: 20 }
      if (step === 0) {
        return {
          message: {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'call_code', name: 'run_code', arguments: JSON.stringify({ code: SCRIPT }) }],
          },
          finishReason: 'tool-calls',
          usage,
        }
      }
      const tool = request.messages.find((message) => message.role === 'tool')
      return {
        message: { role: 'assistant', content: `Done: ${tool?.content}` },
        finishReason: 'stop',
        usage,
      }
    },
  }
  const runCode = defineCodeTool({ tools: [charge, checkBalance], recordings, durable: true })
  const agent = defineAgent({ model, tools: [runCode] })
  const task = defineDurableTask(
    { id: 'charges', revision: '1', isState: isAgentRunState, steps: [agentRunStep(agent)] },
    { store, modelBudget: { maxCalls: 40, maxCallsPerAttempt: 4 }, maxAttempts: 20 },
  )
  const state = await task.run({
    taskId: 'charges-1',
    input: createAgentRunState({ prompt: 'Charge them.' }),
  })
  const rows = db.prepare('SELECT card, amount FROM charges ORDER BY card, amount').all()
  print({ event: 'done', reason: state.reason, text: state.text, rows })
} finally {
  store.close()
}
