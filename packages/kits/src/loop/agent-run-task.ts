import {
  describeValue,
  FieldReader,
  InvalidStateError,
  type OperationContext,
  type OperationContextInit,
  refuseField,
} from '@agent-core/core'
import type { CheckpointV2, DurableStore, DurableTask } from '@agent-core/kits/durable'
import { type AgentInternals, agentInternals } from './agent.js'
import { stepAgent } from './durable-agent.js'
import { isRecord } from './internal/check.js'
import { consumedError } from './internal/consume-suspension.js'
import { newId } from './internal/ids.js'
import type { AgentCallOutcome, AgentRunState } from './run-state.js'
import { assertSuspensionClaim, type SuspensionClaim, suspensionKey } from './suspension-ledger.js'

/** Follow-up tasks further than this from the first one are refused (a loop in damaged storage). */
const MAX_CHAIN = 10_000

/**
 * Where an agent run that runs as a durable task stands: the task that holds the run now. A run that
 * suspended and was resumed through {@link resumeAgentRunTask} goes on in a follow-up task
 * (`<taskId>/resume-<n>`); this is the last one of that chain.
 * @example
 * ```ts
 * import type { AgentRunTaskHead } from '@agent-core/kits/loop'
 * const waiting = (head: AgentRunTaskHead) => head.checkpoint?.state.status === 'suspended'
 * ```
 */
export interface AgentRunTaskHead {
  /** The task that holds the run now: the first task, or its latest follow-up. */
  readonly taskId: string
  /** How many resumes led to it (0 for the first task). */
  readonly resumes: number
  /** The follow-up task a resume of this task's suspension creates (`<first task id>/resume-<resumes + 1>`). */
  readonly nextTaskId: string
  /**
   * Its checkpoint; `undefined` when a resume claimed the suspension but the process stopped before the
   * follow-up task was created (`runAgentRunTask` creates it).
   */
  readonly checkpoint: CheckpointV2<AgentRunState> | undefined
  /** The suspended state the follow-up continues (when `resumes` is not 0). */
  readonly resumedFrom: AgentRunState | undefined
  /** The claim that consumed the head's own suspension outside the durable runner, if any. */
  readonly consumedBy: SuspensionClaim | undefined
}

/**
 * What {@link runAgentRunTask} and {@link inspectAgentRunTask} take: the first task's id, the store (when
 * the task's options bind none) and, to start a new run, its input.
 * @example
 * ```ts
 * import { createAgentRunState, type AgentRunTaskRequest } from '@agent-core/kits/loop'
 * const request: AgentRunTaskRequest = { taskId: 'ticket-7', input: createAgentRunState({ prompt: 'Refund A-17' }) }
 * ```
 */
export interface AgentRunTaskRequest {
  /** The id of the run's first task; follow-ups are found from it. */
  readonly taskId: string
  /** The store for this call; overrides the one bound in the task's options. */
  readonly store?: DurableStore | undefined
  /** A new run's state ({@link createAgentRunState}); ignored once the task exists. */
  readonly input?: AgentRunState | undefined
}

/**
 * What {@link resumeAgentRunTask} takes: the first task's id and the decisions for the calls the run waits
 * for, keyed by tool-call id (as `agent.run({ resume, outcomes })` takes them).
 * @example
 * ```ts
 * import type { AgentRunTaskResume } from '@agent-core/kits/loop'
 * const request: AgentRunTaskResume = {
 *   taskId: 'ticket-7',
 *   outcomes: { call_1_0: { type: 'approve', toolCallId: 'call_1_0', by: 'person' } },
 * }
 * ```
 */
export interface AgentRunTaskResume {
  /** The id of the run's first task. */
  readonly taskId: string
  /** The store for this call; overrides the one bound in the task's options. */
  readonly store?: DurableStore | undefined
  /** Decisions, results and answers for pending calls, keyed by tool-call id: at least one. */
  readonly outcomes: Readonly<Record<string, AgentCallOutcome>>
}

/**
 * What {@link runAgentRunTask} and {@link resumeAgentRunTask} resolve with: the task that ran and the
 * run's state at its end (done, or suspended again).
 * @example
 * ```ts
 * import type { AgentRunTaskResult } from '@agent-core/kits/loop'
 * const summary = (result: AgentRunTaskResult) => `${result.taskId}: ${result.state.status}`
 * ```
 */
export interface AgentRunTaskResult {
  /** The task that holds the run now. */
  readonly taskId: string
  /** The run's state: `done`, or `suspended` with the calls it waits for. */
  readonly state: AgentRunState
}

interface Resolved<App> {
  readonly task: DurableTask<AgentRunState, App>
  readonly internals: AgentInternals
}

function resolve<App>(task: unknown, where: string): Resolved<App> {
  const steps = isRecord(task) ? (task as { steps?: unknown }).steps : undefined
  if (
    !isRecord(task) ||
    typeof (task as { run?: unknown }).run !== 'function' ||
    typeof (task as { inspect?: unknown }).inspect !== 'function' ||
    !Array.isArray(steps)
  ) {
    refuseField(
      'definition',
      'task',
      `must be a durable task from defineDurableTask whose one step is agentRunStep(agent), but got ${describeValue(task)}`,
      task,
      { prefix: `${where}: ` },
    )
  }
  const agent = steps.length === 1 ? stepAgent(steps[0]) : undefined
  if (agent === undefined) {
    refuseField(
      'definition',
      'task.steps',
      `must be one step, agentRunStep(agent) (a follow-up task starts at its first step from the suspended state), but task "${String(task.id)}" has ${steps.length} step(s)${steps.length === 1 ? ' that is not an agent run step' : ''}. Run other steps in a task of their own`,
      steps,
      { prefix: `${where}: ` },
    )
  }
  const internals = agentInternals(agent)
  if (internals === undefined) {
    refuseField(
      'definition',
      'task.steps[0]',
      `must be agentRunStep of an agent from defineAgent (it reads the agent's suspension ledger), but its agent is ${describeValue(agent)}`,
      agent,
      { prefix: `${where}: ` },
    )
  }
  if (!internals.explicitLedger) {
    refuseField(
      'definition',
      'suspensionLedger',
      `is not given to the agent, so it has only the default one in this process's memory, which another worker does not see. Give defineAgent a suspensionLedger that every worker of the task shares: createSqliteSuspensionLedger(store.database) beside a SQLite store, createPostgresSuspensionLedger({ pool }) beside a PostgreSQL one (createMemorySuspensionLedger() in tests)`,
      undefined,
      { prefix: `${where}: `, received: 'the default in-memory ledger' },
    )
  }
  return { task: task as unknown as DurableTask<AgentRunState, App>, internals }
}

function readRequest(
  value: unknown,
  where: string,
  keys: readonly string[],
): { taskId: string; store: DurableStore | undefined; fields: FieldReader } {
  const fields: FieldReader = new FieldReader(value, 'request', `a request { ${keys.join(', ')} }`)
  const taskId = fields.requiredString('taskId')
  const store = fields.get('store') as DurableStore | undefined
  if (store !== undefined && !isRecord(store)) {
    fields.fail('store', `must be a DurableStore or be left out (${where})`, store)
  }
  return { taskId, store, fields }
}

function followUpId(first: string, resumes: number): string {
  return `${first}/resume-${resumes}`
}

async function findHead<App>(
  resolved: Resolved<App>,
  first: string,
  store: DurableStore | undefined,
  context: OperationContext<App> | OperationContextInit<App> | undefined,
): Promise<AgentRunTaskHead> {
  const { task, internals } = resolved
  let taskId = first
  let resumedFrom: AgentRunState | undefined
  for (let resumes = 0; resumes <= MAX_CHAIN; resumes++) {
    const checkpoint = await task.inspect({ taskId, ...(store ? { store } : {}) }, context)
    if (checkpoint === undefined) {
      const nextTaskId = followUpId(first, resumes + 1)
      return { taskId, resumes, nextTaskId, checkpoint: undefined, resumedFrom, consumedBy: undefined }
    }
    const held =
      checkpoint.status === 'completed' && checkpoint.state.status === 'suspended'
        ? await internals.ledger.get(await suspensionKey(checkpoint.state))
        : undefined
    if (held !== undefined) assertSuspensionClaim(held, 'claim', 'output')
    if (held?.taskId === undefined) {
      const nextTaskId = followUpId(first, resumes + 1)
      return { taskId, resumes, nextTaskId, checkpoint, resumedFrom, consumedBy: held }
    }
    if (held.taskId !== followUpId(first, resumes + 1)) {
      throw new InvalidStateError(
        `The suspension of task "${taskId}" was claimed for task "${held.taskId}", which is not the follow-up of "${first}" this chain expects ("${followUpId(first, resumes + 1)}"). Was it resumed under another first task id? Resume it from the task id it was started with.`,
        { details: { field: 'request.taskId', received: describeValue(first) } },
      )
    }
    resumedFrom = checkpoint.state
    taskId = held.taskId
  }
  throw new InvalidStateError(
    `Task "${first}" has more than ${MAX_CHAIN} follow-up tasks; its storage is likely damaged. Inspect the tasks "${first}/resume-<n>".`,
    { details: { field: 'request.taskId', received: describeValue(first) } },
  )
}

/**
 * Finds where a durable agent run stands: the task that holds it now (the first one, or the latest
 * follow-up made by {@link resumeAgentRunTask}) and its checkpoint. Writes nothing; the task's `authorize`
 * applies to every checkpoint read.
 * @throws `InvalidDefinitionError` for a task that is not one agent run step over a defined agent with a
 *   shared `suspensionLedger`; `InvalidInputError` for a malformed request
 * @example
 * ```ts
 * import { inspectAgentRunTask } from '@agent-core/kits/loop'
 * import type { DurableTask } from '@agent-core/kits/durable'
 * import type { AgentRunState } from '@agent-core/kits/loop'
 * declare const task: DurableTask<AgentRunState>
 * const head = await inspectAgentRunTask(task, { taskId: 'ticket-7' })
 * if (head.checkpoint?.state.status === 'suspended') console.log(head.checkpoint.state.pending)
 * ```
 */
export async function inspectAgentRunTask<App = unknown>(
  task: DurableTask<AgentRunState, App>,
  request: { readonly taskId: string; readonly store?: DurableStore | undefined },
  context?: OperationContext<App> | OperationContextInit<App>,
): Promise<AgentRunTaskHead> {
  const resolved = resolve<App>(task, 'inspectAgentRunTask')
  const { taskId, store, fields } = readRequest(request, 'inspectAgentRunTask', ['taskId', 'store?'])
  fields.done()
  return findHead(resolved, taskId, store, context)
}

/**
 * Runs a durable agent run where it stands: starts the first task with `input`, or continues the task
 * that holds the run now (after a crash, a stop or a deploy), follow-ups included. A run that is suspended
 * resolves with its suspended state at once (nothing runs): resume it with {@link resumeAgentRunTask}. The
 * same call after every restart picks the run up.
 * @throws `InvalidDefinitionError` as {@link inspectAgentRunTask}; `UnknownIdError` for an unknown task without
 *   `input`; what the task's run throws (the run's error, a stop)
 * @example
 * ```ts
 * import { createAgentRunState, runAgentRunTask } from '@agent-core/kits/loop'
 * import type { DurableTask } from '@agent-core/kits/durable'
 * import type { AgentRunState } from '@agent-core/kits/loop'
 * declare const task: DurableTask<AgentRunState>
 * const { state } = await runAgentRunTask(task, { taskId: 'ticket-7', input: createAgentRunState({ prompt: 'Refund A-17' }) })
 * ```
 */
export async function runAgentRunTask<App = unknown>(
  task: DurableTask<AgentRunState, App>,
  request: AgentRunTaskRequest,
  context?: OperationContext<App> | OperationContextInit<App>,
): Promise<AgentRunTaskResult> {
  const resolved = resolve<App>(task, 'runAgentRunTask')
  const { taskId, store, fields } = readRequest(request, 'runAgentRunTask', ['taskId', 'store?', 'input?'])
  const input = fields.get('input') as AgentRunState | undefined
  fields.done()
  const head = await findHead(resolved, taskId, store, context)
  const state = await resolved.task.run(
    {
      taskId: head.taskId,
      ...(store ? { store } : {}),
      ...(head.resumedFrom !== undefined
        ? { input: head.resumedFrom }
        : input !== undefined
          ? { input }
          : {}),
    },
    context,
  )
  return { taskId: head.taskId, state }
}

/**
 * Resumes a suspended durable agent run with decisions, through the durable runner and once. The outcomes
 * are checked against the calls the run waits for (as `agent.run({ resume, outcomes })` checks them), then
 * the suspension is claimed in the agent's `suspensionLedger` for a follow-up task (`<taskId>/resume-<n>`),
 * with the outcomes; the follow-up task then runs from the suspended state, saving progress like any agent
 * run step. A crash after the claim is picked up by {@link runAgentRunTask} (the claim holds the outcomes, so
 * the decisions are applied once, by the follow-up). A second resume of the same suspension, in any
 * process, is refused with `SuspensionConsumedError` and runs nothing.
 * @throws `InvalidDefinitionError` as {@link inspectAgentRunTask}; `UnknownIdError` for an unknown task;
 *   `InvalidStateError` when the run does not wait for decisions; `InvalidInputError`, `ConflictError` or
 *   `UnauthorizedError` for outcomes that do not fit; `SuspensionConsumedError` for a second resume
 * @example
 * ```ts
 * import { resumeAgentRunTask } from '@agent-core/kits/loop'
 * import type { DurableTask } from '@agent-core/kits/durable'
 * import type { AgentRunState } from '@agent-core/kits/loop'
 * declare const task: DurableTask<AgentRunState>
 * const { taskId, state } = await resumeAgentRunTask(task, {
 *   taskId: 'ticket-7',
 *   outcomes: { call_1_0: { type: 'approve', toolCallId: 'call_1_0', by: 'person' } },
 * })
 * ```
 */
export async function resumeAgentRunTask<App = unknown>(
  task: DurableTask<AgentRunState, App>,
  request: AgentRunTaskResume,
  context?: OperationContext<App> | OperationContextInit<App>,
): Promise<AgentRunTaskResult> {
  const resolved = resolve<App>(task, 'resumeAgentRunTask')
  const { taskId, store, fields } = readRequest(request, 'resumeAgentRunTask', [
    'taskId',
    'store?',
    'outcomes',
  ])
  const outcomes = fields.get('outcomes')
  fields.done()
  if (!isRecord(outcomes) || Object.keys(outcomes).length === 0) {
    fields.fail(
      'outcomes',
      `must hold at least one decision, result or answer keyed by tool-call id, but got ${describeValue(outcomes)}. To continue a run without deciding anything, use runAgentRunTask`,
      outcomes,
    )
  }
  const head = await findHead(resolved, taskId, store, context)
  if (head.checkpoint === undefined && head.resumes === 0) {
    throw new InvalidStateError(
      `There is no durable task "${taskId}", so no run waits for decisions. Start it with runAgentRunTask and an input.`,
      { details: { field: 'request.taskId', received: describeValue(taskId) } },
    )
  }
  const state = head.checkpoint?.state
  if (head.checkpoint?.status !== 'completed' || state?.status !== 'suspended') {
    const where =
      head.checkpoint === undefined
        ? 'its follow-up task has not started yet'
        : head.checkpoint.status === 'completed'
          ? `its run is ${state?.status ?? 'unknown'}`
          : `its task is ${head.checkpoint.status}`
    throw new InvalidStateError(
      `The run of task "${taskId}" does not wait for decisions (${where}, in task "${head.taskId}"). Continue it with runAgentRunTask; resume it once it suspends.`,
      { details: { field: 'request.taskId', received: describeValue(taskId) } },
    )
  }
  if (head.consumedBy !== undefined) throw consumedError(head.consumedBy)
  await resolved.internals.checkResume(state, outcomes)
  const followUp = head.nextTaskId
  const claim: SuspensionClaim = {
    key: await suspensionKey(state),
    runId: state.runId,
    claimId: newId('claim'),
    taskId: followUp,
    outcomes: outcomes as Record<string, AgentCallOutcome>,
    claimedAtMs: Math.max(0, Math.floor(typeof context?.now === 'function' ? context.now() : Date.now())),
  }
  const held = await resolved.internals.ledger.claim(claim)
  assertSuspensionClaim(held, 'claim', 'output')
  if (held.claimId !== claim.claimId) throw consumedError(held)
  const next = await resolved.task.run(
    { taskId: followUp, input: state, ...(store ? { store } : {}) },
    context,
  )
  return { taskId: followUp, state: next }
}
