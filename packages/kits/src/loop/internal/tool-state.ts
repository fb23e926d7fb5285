import { type OperationContext, throwIfAborted } from '@agent-core/core'
import type { ModelTool, ToolExecutionContext } from '@agent-core/core/tools'
import { runWithToolState, type ToolStateRecord } from '@agent-core/kits/tools'

/** Where a run's context carries its tool state (only in runs of agents with a tool that keeps state). */
export const RUN_TOOL_STATE: unique symbol = Symbol('agent-core.loop.run-tool-state')

/**
 * One run's tool state: a record per tool id (the journal's, saved with the run) and, per tool, the tail
 * of its calls, so the calls of a tool that keeps state run one at a time, in the order they started.
 */
export class RunToolState {
  readonly records: Record<string, ToolStateRecord>
  readonly #tails = new Map<string, Promise<void>>()

  constructor(records: Record<string, ToolStateRecord>) {
    this.records = records
  }

  async call(
    toolId: string,
    context: ToolExecutionContext<unknown>,
    execute: (context: ToolExecutionContext<unknown>) => unknown,
  ): Promise<unknown> {
    const before = this.#tails.get(toolId)
    let release!: () => void
    const mine = new Promise<void>((resolve) => {
      release = resolve
    })
    const tail = before === undefined ? mine : before.then(() => mine)
    this.#tails.set(toolId, tail)
    try {
      if (before !== undefined) await before
      throwIfAborted(context.signal, `before tool "${toolId}" read its state`)
      const { output, record } = await runWithToolState(this.records[toolId], context, execute)
      // A call stopped by its time limit or the run does not count: its result reached nobody.
      if (!context.signal.aborted) this.records[toolId] = record
      return output
    } finally {
      release()
      if (this.#tails.get(toolId) === tail) this.#tails.delete(toolId)
    }
  }
}

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
