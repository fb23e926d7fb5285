import { describeValue, InvalidInputError, InvalidOutputError, InvalidStateError } from '@agent-core/core'
import type { ToolExecutionContext } from '@agent-core/core/tools'
import { type JsonValue, jsonProblem } from './internal/json.js'

/**
 * What a tool that keeps state reads in its `execute`: how often it ran to the end earlier in the same
 * run, what the last of those calls returned, and the data it kept for this call with `keep`. A runner
 * that keeps tool state (the agent loop, for tools defined with `keepState: true` or carrying
 * `keepsState: true`) saves it in the run's state, so a run resumed in another process reads the same.
 * Everything in it is plain JSON and frozen.
 * @example
 * ```ts
 * import type { ToolState } from '@agent-core/kits/tools'
 * const page = (state: ToolState<{ next: number }>) => state.lastResult?.next ?? 1
 * ```
 */
export interface ToolState<Result extends JsonValue = JsonValue, Kept extends JsonValue = JsonValue> {
  /** Calls of this tool in this run that returned before this one started (0 for the first). */
  readonly calls: number
  /** What the last of them returned; `undefined` before the first, or when it returned nothing. */
  readonly lastResult: Result | undefined
  /** What the last call that returned kept with `keep`; `undefined` when none kept anything. */
  readonly kept: Kept | undefined
  /**
   * Keeps plain JSON for the next call of this tool in the run (replacing what this call read in `kept`;
   * `undefined` keeps nothing). Applied only when this call returns: a call that throws keeps nothing, and
   * the next one reads what this one read.
   * @throws `InvalidInputError` for a value that is not plain JSON; `InvalidStateError` once the call ended
   */
  keep(data: Kept | undefined): void
}

const TOOL_STATE: unique symbol = Symbol.for('agent-core.tools.tool-state')

/** The state of one call, bound to its invocation: a context derived from it for another call (a host call of a script, a child agent's tool) does not pass it on. */
interface BoundState {
  readonly invocationId: string
  readonly state: ToolState
}

type WithState = { readonly [TOOL_STATE]?: BoundState; readonly invocationId?: unknown }

/**
 * The {@link ToolState} of the call `context` belongs to: call it in a tool's `execute` with the context it
 * got. The agent loop gives one to each call of a tool defined with the `keepState` option of
 * `defineAgentTool` (or a tool whose `keepsState` is true, such as a code tool with `keepGlobals`), and
 * runs the calls of such a tool in one run one at a time, so each reads what the one before it left.
 * @throws `InvalidStateError` when the runner gives this call no tool state (the tool does not keep state,
 *   or runs outside an agent run)
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { toolState } from '@agent-core/kits/tools'
 * const nextPage = defineModelTool<Record<string, never>, { page: number }>({
 *   id: 'next_page',
 *   description: 'The next page of results',
 *   inputSchema: { type: 'object' },
 *   execute: (_input, context) => {
 *     const state = toolState<{ page: number }>(context)
 *     return { page: (state.lastResult?.page ?? 0) + 1 }
 *   },
 * })
 * ```
 */
export function toolState<Result extends JsonValue = JsonValue, Kept extends JsonValue = JsonValue>(
  context: ToolExecutionContext<unknown>,
): ToolState<Result, Kept> {
  const bound =
    typeof context === 'object' && context !== null ? (context as WithState)[TOOL_STATE] : undefined
  const state =
    bound !== undefined && bound.invocationId === (context as WithState).invocationId
      ? bound.state
      : undefined
  if (state === undefined) {
    throw new InvalidStateError(
      'toolState(context) found no tool state for this call: only tools that keep state get one. Define the tool with defineAgentTool(tool, { keepState: true }) and run it through an agent, and pass the context execute received.',
      { details: { field: 'context', received: describeValue(context) } },
    )
  }
  return state as unknown as ToolState<Result, Kept>
}

/** Deep copy of plain JSON, frozen: what a tool reads can never change what was saved. */
function frozenCopy(value: JsonValue): JsonValue {
  return deepFreeze(JSON.parse(JSON.stringify(value)) as JsonValue)
}

function deepFreeze(value: JsonValue): JsonValue {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item as JsonValue)
    Object.freeze(value)
  }
  return value
}

/**
 * What a tool's calls left for the next one, as a runner saves it: counted calls, the last result and
 * the kept data (plain JSON).
 * @example
 * ```ts
 * import type { ToolStateRecord } from '@agent-core/kits/tools'
 * const saved: ToolStateRecord = { calls: 2, lastResult: { page: 2 }, kept: { cursor: 'c_40' } }
 * ```
 */
export interface ToolStateRecord {
  /** Calls that returned. */
  readonly calls: number
  /** What the last of them returned, when it returned a value. */
  readonly lastResult?: JsonValue | undefined
  /** What the last of them kept, when it kept something. */
  readonly kept?: JsonValue | undefined
}

/**
 * For runners: runs one call of a tool that keeps state. `execute` gets a context carrying the
 * {@link ToolState} read from `record` (what {@link toolState} returns in the tool); the record the call
 * leaves is returned with its output once it returned plain JSON (or nothing). The agent loop runs its
 * stateful tools through this.
 * @throws `InvalidOutputError` when the output is not plain JSON (no record is left); whatever `execute`
 *   throws
 * @example
 * ```ts
 * import { createOperationContext } from '@agent-core/core'
 * import type { ToolExecutionContext } from '@agent-core/core/tools'
 * import { runWithToolState, toolState } from '@agent-core/kits/tools'
 * const context = { ...createOperationContext(), invocationId: 'inv_1', progress: () => undefined } as ToolExecutionContext<unknown>
 * const first = await runWithToolState(undefined, context, (ctx) => (toolState(ctx).calls + 1) * 10)
 * const second = await runWithToolState(first.record, context, (ctx) => toolState(ctx).lastResult)
 * // first.output === 10; second.output === 10; second.record.calls === 2
 * ```
 */
export async function runWithToolState<Output>(
  record: ToolStateRecord | undefined,
  context: ToolExecutionContext<unknown>,
  execute: (context: ToolExecutionContext<unknown>) => Output | PromiseLike<Output>,
): Promise<{ readonly output: Output; readonly record: ToolStateRecord }> {
  let kept = record?.kept
  let open = true
  const state: ToolState = Object.freeze({
    calls: record?.calls ?? 0,
    lastResult: record?.lastResult,
    kept: record?.kept,
    keep(data: JsonValue | undefined): void {
      if (!open) {
        throw new InvalidStateError(
          'toolState(context).keep was called after the call ended; keep data before execute returns.',
          { details: { field: 'keep', received: describeValue(data) } },
        )
      }
      if (data !== undefined) {
        const problem = jsonProblem(data, 'data')
        if (problem !== undefined) {
          throw new InvalidInputError(
            `toolState(context).keep takes plain JSON, but ${problem}. Keep plain data (objects, arrays, strings, finite numbers, booleans, null).`,
            { details: { field: 'data', received: problem } },
          )
        }
      }
      kept = data === undefined ? undefined : frozenCopy(data)
    },
  })
  let output: Output
  try {
    const bound: BoundState = { invocationId: context.invocationId, state }
    output = await execute({ ...context, [TOOL_STATE]: bound } as ToolExecutionContext<unknown>)
  } finally {
    open = false
  }
  if (output !== undefined) {
    const problem = jsonProblem(output, 'output')
    if (problem !== undefined) {
      throw new InvalidOutputError(
        `A tool that keeps state must return plain JSON (its result is saved in the run's state), but ${problem}. Return plain data.`,
        { details: { field: 'output', received: problem } },
      )
    }
  }
  const next: ToolStateRecord = Object.freeze({
    calls: (record?.calls ?? 0) + 1,
    ...(output === undefined ? {} : { lastResult: frozenCopy(output as JsonValue) }),
    ...(kept === undefined ? {} : { kept }),
  })
  return { output, record: next }
}
