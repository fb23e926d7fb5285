/**
 * The question as a durable agent run on SQLite (`@agent-core/kits/durable/sqlite` and the loop kit's
 * `agentRunStep`): progress is saved after the model's reply and after every tool result, so a run that is
 * stopped or killed continues from there when the same command runs again, and a tool call whose result
 * was saved never runs again.
 *
 * A run that waits for a decision (`--defer`) ends its task with the suspended state. `--decide` resumes
 * it through the loop kit's `resumeAgentRunTask`: the decisions are claimed once in the suspension ledger
 * (a table of the same file), and the run goes on in a follow-up task, which `runAgentRunTask` and
 * `inspectAgentRunTask` find again from the question's id, so the same command always finds where the
 * question stands.
 */
import { createHash } from 'node:crypto'
import { type AgentCoreError, type ChatMessage, InvalidInputError, InvalidStateError } from '@agent-core/core'
import { type DurableTask, defineDurableTask } from '@agent-core/kits/durable'
import {
  createSqliteDurableStore,
  createSqliteSuspensionLedger,
  type SqliteDurableStore,
  type SqliteSuspensionLedger,
} from '@agent-core/kits/durable/sqlite'
import {
  type Agent,
  type AgentCallOutcome,
  type AgentRunRequest,
  type AgentRunState,
  agentRunStep,
  createAgentRunState,
  inspectAgentRunTask,
  isAgentRunState,
  resumeAgentRunTask,
  runAgentRunTask,
  SuspensionConsumedError,
} from '@agent-core/kits/loop'
import { DeskError } from './desk-error.js'
import type { ToolExecution } from './tools.js'

/** A person's decision about a pending read: approve, refuse, or refuse with an instruction. */
export type Decision =
  | { readonly type: 'approve' }
  | { readonly type: 'reject'; readonly instruction?: string }

/** The desk's run store: the durable store and the suspension ledger, in one SQLite file. */
export interface RunStore {
  readonly durable: SqliteDurableStore
  /** Where a resume claims the suspension it decides, so a decision takes effect once. */
  readonly ledger: SqliteSuspensionLedger
  /** Records one tool execution in the reading log (once per invocation id). */
  logExecution(taskId: string, execution: ToolExecution): void
  close(): void
}

const MODEL_BUDGET = { maxCalls: 400, maxCallsPerAttempt: 12 }
const MAX_ATTEMPTS = 100

/** Opens (or creates) the run store in `file`. */
export function openRunStore(file: string): RunStore {
  const durable = createSqliteDurableStore(file, { leaseMs: 5_000 })
  const ledger = createSqliteSuspensionLedger(durable.database)
  durable.database.exec(`
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
    ledger,
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
  /** With `--session`: the session and the revision the question read (a new turn is a new run). */
  session?: { name: string; revision: number } | undefined
}): string {
  const hash = createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 20)
  return `desk-${hash}`
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
 * Runs (or continues) the question's run where it stands. With `decisions`, first checks them against the
 * calls the suspended run waits for, then resumes it with them (once: a repeat is refused).
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
  /** The conversation before the question (`--session`): the run reads it first. */
  history?: readonly ChatMessage[] | undefined
}): Promise<DeskRunOutcome> {
  const { store, agent, request } = options
  const task: DurableTask<AgentRunState> = defineDurableTask(
    {
      id: 'research-desk',
      revision: '1',
      isState: isAgentRunState,
      steps: [agentRunStep(agent, { request })],
    },
    { store: store.durable, modelBudget: MODEL_BUDGET, maxAttempts: MAX_ATTEMPTS },
  )
  const head = await inspectAgentRunTask(task, { taskId: options.questionId })
  if (options.decisions !== undefined && options.decisions.size > 0) {
    const outcomes = outcomesFor(head.checkpoint?.state, options.decisions)
    options.onTask?.(head.nextTaskId)
    try {
      const { state, taskId } = await resumeAgentRunTask(
        task,
        { taskId: options.questionId, outcomes },
        { signal: options.signal },
      )
      return { state, taskId, finishedEarlier: false, resumed: false }
    } catch (error) {
      throw decisionRefused(error)
    }
  }
  const finishedEarlier = head.checkpoint?.status === 'completed'
  options.onTask?.(head.taskId)
  const input = createAgentRunState({
    ...(options.history && options.history.length > 0 ? { messages: options.history } : {}),
    prompt: options.question,
    runId: `run-${options.questionId.slice(5)}`,
  })
  const { state, taskId } = await runAgentRunTask(
    task,
    { taskId: options.questionId, input },
    { signal: options.signal },
  )
  return {
    state,
    taskId,
    finishedEarlier,
    resumed: head.checkpoint !== undefined && !finishedEarlier,
  }
}

/** The person's decisions as outcomes of the calls the suspended run waits for, in the desk's words. */
function outcomesFor(
  state: AgentRunState | undefined,
  decisions: ReadonlyMap<string, Decision>,
): Record<string, AgentCallOutcome> {
  if (state === undefined) {
    throw new DeskError(
      'decision',
      'This question has no run yet, so there is nothing to decide. Run it first with --defer.',
      { field: '--decide' },
    )
  }
  if (state.status !== 'suspended') {
    throw new DeskError(
      'decision',
      'This question is not waiting for a decision (its run is not suspended). Run it without --decide.',
      { field: '--decide' },
    )
  }
  const waiting = new Map(state.pending.map((call) => [call.toolCallId, call]))
  const outcomes: Record<string, AgentCallOutcome> = {}
  for (const [callId, decision] of decisions) {
    if (!waiting.has(callId)) {
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
  return outcomes
}

/** A resume the loop refused (decided already, no longer waiting, an outcome that does not fit). */
function decisionRefused(error: unknown): unknown {
  if (
    SuspensionConsumedError.isInstance(error) ||
    InvalidStateError.isInstance(error) ||
    (InvalidInputError.isInstance(error) && String(error.details.field ?? '').startsWith('request.outcomes'))
  ) {
    return new DeskError(
      'decision',
      `${(error as AgentCoreError).message} Run the same command without --decide to see where the question stands.`,
      { field: '--decide', cause: error },
    )
  }
  return error
}
