import type { OperationContext } from '@agent-core/core'
import type { ModelTool, ToolExecutionContext } from '@agent-core/core/tools'
import type { RunToolState } from './run-tool-state.js'

/** Where a run's context carries its tool state (only in runs of agents with a tool that keeps state). */
export const RUN_TOOL_STATE: unique symbol = Symbol('agent-core.loop.run-tool-state')

/** The run's tool state, when the context is one of a run that keeps tool state. */
export function runToolState(context: OperationContext<unknown>): RunToolState | undefined {
  return (context as { readonly [RUN_TOOL_STATE]?: RunToolState })[RUN_TOOL_STATE]
}

/** A tool whose `execute` runs with the run's tool state (see {@link RunToolState.call}). */
export function statefulTool<T extends ModelTool<unknown, unknown, unknown>>(tool: T): T {
  const execute = tool.execute
  const stateful = (input: unknown, context: ToolExecutionContext<unknown>): unknown => {
    const run = runToolState(context)
    if (run === undefined) return Reflect.apply(execute, tool, [input, context])
    return run.call(tool.id, context, (ctx) => Reflect.apply(execute, tool, [input, ctx]))
  }
  return Object.freeze({ ...tool, execute: stateful }) as T
}
