/**
 * The question as a durable agent run on SQLite (`@agent-core/kits/durable/sqlite` and the loop kit's
 * `agentRunStep`): progress is saved after the model's reply and after every tool result, so a run that is
 * stopped or killed continues from there when the same command runs again, and a tool call whose result
 * was saved never runs again.
 *
 * A run that waits for a decision (`--defer`) ends its task with the suspended state. `--decide` starts
 * a follow-up task from that state with the decisions; the `desk_heads` table remembers which task is
 * the question's current one, so the same command always finds where the question stands.
 */
import { createHash } from 'node:crypto'
import { AttemptBudget } from '@agent-core/core'
import { type DurableStep, type DurableTask, defineDurableTask } from '@agent-core/kits/durable'
import { createSqliteDurableStore, type SqliteDurableStore } from '@agent-core/kits/durable/sqlite'
import {
  type Agent,
  type AgentCallOutcome,
  type AgentRunRequest,
  type AgentRunState,
  agentRunStep,
  createAgentRunState,
  isAgentRunState,
} from '@agent-core/kits/loop'
import { DeskError } from './desk-error.js'
import type { ToolExecution } from './tools.js'

/** A person's decision about a pending read: approve, refuse, or refuse with an instruction. */
export type Decision =
  | { readonly type: 'approve' }
  | { readonly type: 'reject'; readonly instruction?: string }

/** The desk's run store: the durable store, plus which task is each question's current one. */
export interface RunStore {
  readonly durable: SqliteDurableStore
  /** Records one tool execution in the reading log (once per invocation id). */
  logExecution(taskId: string, execution: ToolExecution): void
  close(): void
}

const MODEL_BUDGET = { maxCalls: 400, maxCallsPerAttempt: 12 }
const MAX_ATTEMPTS = 100

/** Opens (or creates) the run store in `file`. */
export function openRunStore(file: string): RunStore {
  const durable = createSqliteDurableStore(file, { leaseMs: 5_000 })
  durable.database.exec(`
    CREATE TABLE IF NOT EXISTS desk_heads (
      question_id TEXT PRIMARY KEY,
      task_id TEXT NOT NULL,
      input TEXT NOT NULL,
      outcomes TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS desk_tool_log (
      invocation_id TEXT PRIMARY KEY,
      task_id TEXT NOT NULL,
      tool TEXT NOT NULL,
      input TEXT NOT NULL,
      executions INTEGER NOT NULL
    );
  `)
  const log = durable.database.prepare(
    `INSERT INTO desk_tool_log (invocation_id, task_id, tool, input, executions) VALUES (?, ?, ?, ?, 1)
     ON CONFLICT (invocation_id) DO UPDATE SET executions = executions + 1`,
  )
  return {
    durable,
    logExecution: (taskId, execution) => {
      log.run(execution.invocationId, taskId, execution.tool, execution.input)
    },
    close: () => durable.close(),
  }
}

/** Names a question: the same question, corpus contents, model and approval mode give the same id. */
export function questionId(parts: {
  question: string
  corpusRoot: string
  corpusFingerprint: string
  model: string
  asksBeforeReading: boolean
}): string {
  const hash = createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 20)
  return `desk-${hash}`
}

interface Head {
  readonly taskId: string
  readonly input: AgentRunState | undefined
  readonly outcomes: Readonly<Record<string, AgentCallOutcome>>
}

function readHead(store: RunStore, id: string): Head {
  const row = store.durable.database
    .prepare('SELECT task_id AS taskId, input, outcomes FROM desk_heads WHERE question_id = ?')
    .get(id) as { taskId: string; input: string; outcomes: string } | undefined
  if (row === undefined) return { taskId: id, input: undefined, outcomes: {} }
  return {
    taskId: row.taskId,
    input: JSON.parse(row.input) as AgentRunState,
    outcomes: JSON.parse(row.outcomes) as Record<string, AgentCallOutcome>,
  }
}

/**
 * A step that applies the person's decisions to the suspended run it starts from, then goes on as the
 * loop kit's `agentRunStep`. Once the decisions are applied, the next saved progress no longer waits for
 * them, so a restart after that continues as an ordinary run.
 */
function decidedRunStep(
  agent: Agent<string>,
  request: Omit<AgentRunRequest, 'resume' | 'outcomes' | 'onProgress'>,
  outcomes: Readonly<Record<string, AgentCallOutcome>>,
): DurableStep<AgentRunState> {
  const ordinary = agentRunStep(agent, { request })
  return {
    id: ordinary.id,
    replayPolicy: 'safe',
    async run(state, context) {
      const waiting = new Set(state.pending.map((call) => call.toolCallId))
      const due = Object.fromEntries(Object.entries(outcomes).filter(([callId]) => waiting.has(callId)))
      if (state.status !== 'suspended' || Object.keys(due).length === 0) return ordinary.run(state, context)
      const attemptBudget =
        context.maxModelCalls === undefined ? context.attemptBudget : new AttemptBudget(context.maxModelCalls)
      const result = await agent.run(
        { ...request, resume: state, outcomes: due, onProgress: (progress) => context.checkpoint(progress) },
        { ...context, attemptBudget },
      )
      if (result.reason === 'error') throw result.error
      if (result.reason === 'stopped') throw context.signal.reason
      return result.state
    },
  }
}

/** How a desk run talks to its user. */
export type DeskRunRequest = Omit<AgentRunRequest, 'resume' | 'outcomes' | 'onProgress' | 'prompt'>

/** What `runQuestion` tells about the run. */
export interface DeskRunOutcome {
  readonly state: AgentRunState
  readonly taskId: string
  /** The task had finished in an earlier process: nothing ran now. */
  readonly finishedEarlier: boolean
  /** The task had started in an earlier process and continued from its saved progress. */
  readonly resumed: boolean
}

/**
 * Runs (or continues) the question's current task. With `decisions`, first checks them against the
 * calls the suspended run waits for and starts the follow-up task that applies them.
 */
export async function runQuestion(options: {
  store: RunStore
  questionId: string
  question: string
  agent: Agent<string>
  request: DeskRunRequest
  decisions?: ReadonlyMap<string, Decision> | undefined
  signal: AbortSignal
  onTask?: ((taskId: string) => void) | undefined
}): Promise<DeskRunOutcome> {
  const { store, agent, request } = options
  const definition = (outcomes: Readonly<Record<string, AgentCallOutcome>>) =>
    defineDurableTask(
      {
        id: 'research-desk',
        revision: '1',
        isState: isAgentRunState,
        steps: [
          Object.keys(outcomes).length === 0
            ? agentRunStep(agent, { request })
            : decidedRunStep(agent, request, outcomes),
        ],
      },
      { store: store.durable, modelBudget: MODEL_BUDGET, maxAttempts: MAX_ATTEMPTS },
    )
  let head = readHead(store, options.questionId)
  if (options.decisions !== undefined && options.decisions.size > 0) {
    head = await decide(store, options.questionId, head, options.decisions, definition({}))
  }
  const task = definition(head.outcomes)
  const before = await task.inspect({ taskId: head.taskId })
  const finishedEarlier = before?.status === 'completed'
  options.onTask?.(head.taskId)
  const input =
    head.input ??
    createAgentRunState({ prompt: options.question, runId: `run-${options.questionId.slice(5)}` })
  const state = await task.run({ taskId: head.taskId, input }, { signal: options.signal })
  return { state, taskId: head.taskId, finishedEarlier, resumed: before !== undefined && !finishedEarlier }
}

/** Checks decisions against the suspended run and records the follow-up task as the question's head. */
async function decide(
  store: RunStore,
  id: string,
  head: Head,
  decisions: ReadonlyMap<string, Decision>,
  task: DurableTask<AgentRunState>,
): Promise<Head> {
  const saved = await task.inspect({ taskId: head.taskId })
  if (saved === undefined) {
    throw new DeskError(
      'decision',
      'This question has no run yet, so there is nothing to decide. Run it first with --defer.',
      { field: '--decide' },
    )
  }
  const state = saved.status === 'completed' ? saved.state : undefined
  if (state === undefined || state.status !== 'suspended') {
    throw new DeskError(
      'decision',
      'This question is not waiting for a decision (its run is not suspended). Run it without --decide.',
      { field: '--decide' },
    )
  }
  const waiting = new Map(state.pending.map((call) => [call.toolCallId, call]))
  const outcomes: Record<string, AgentCallOutcome> = {}
  for (const [callId, decision] of decisions) {
    const call = waiting.get(callId)
    if (call === undefined) {
      throw new DeskError(
        'decision',
        `The run does not wait for a call "${callId}"; it waits for ${[...waiting.keys()].join(', ')}. Pass --decide with one of those.`,
        { field: '--decide', received: callId },
      )
    }
    outcomes[callId] =
      decision.type === 'approve'
        ? { type: 'approve', toolCallId: callId, by: 'person' }
        : {
            type: 'reject',
            toolCallId: callId,
            by: 'person',
            reason:
              decision.instruction === undefined
                ? 'The person refused this read.'
                : 'The person gave an instruction instead.',
            ...(decision.instruction === undefined ? {} : { instruction: decision.instruction }),
          }
  }
  const taskId = `${head.taskId}+${createHash('sha256').update(JSON.stringify(outcomes)).digest('hex').slice(0, 12)}`
  store.durable.database
    .prepare(
      `INSERT INTO desk_heads (question_id, task_id, input, outcomes) VALUES (?, ?, ?, ?)
       ON CONFLICT (question_id) DO UPDATE SET task_id = excluded.task_id, input = excluded.input, outcomes = excluded.outcomes`,
    )
    .run(id, taskId, JSON.stringify(state), JSON.stringify(outcomes))
  return { taskId, input: state, outcomes }
}
