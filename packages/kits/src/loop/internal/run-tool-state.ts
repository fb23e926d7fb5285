import { throwIfAborted } from '@agent-core/core'
import type { ToolExecutionContext } from '@agent-core/core/tools'
import { runWithToolState, type ToolStateRecord } from '@agent-core/kits/tools'

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
