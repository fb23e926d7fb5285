/**
 * A registry of three tools whose hooks record every call, for the order-of-hooks tests (in this process
 * and in the child process that resumes a pending call). Private to the tests.
 */
import { defineModelTool } from '@agent-core/core/tools'
import {
  ApprovalRequiredError,
  defineToolLifecycle,
  type ToolCallView,
  ToolLifecycleRegistry,
  type ToolLifecycleRegistryPolicy,
  ToolRejectedError,
} from '../index.js'

/** What a hook throws when the test asks it to. */
export class HookFailure extends Error {}

export interface RefundInput {
  readonly orderId: string
  readonly amount: number
}

export interface Recorder {
  readonly log: string[]
  /** `"<tool>.<hook>"` that throws a {@link HookFailure} after recording itself. */
  throwAt?: string | undefined
}

/**
 * A class-based lifecycle block: its hooks live on the prototype and reach private state through `this`,
 * so they only work when the lifecycle calls them on the original instance (the receiver).
 */
class RecordingHooks {
  readonly #recorder: Recorder
  readonly #name: string
  constructor(recorder: Recorder, name: string) {
    this.#recorder = recorder
    this.#name = name
  }
  protected note(hook: string): void {
    const entry = `${this.#name}.${hook}`
    this.#recorder.log.push(entry)
    if (this.#recorder.throwAt === entry) throw new HookFailure(`${entry} failed on purpose`)
  }
  inspect(call: ToolCallView): void {
    this.note('inspect')
    if (
      this.#name === 'audit' &&
      call.toolId === 'refund' &&
      (call.input as RefundInput).orderId === 'blocked'
    )
      throw new ToolRejectedError('Order "blocked" is under investigation.')
  }
  finalize(): void {
    this.note('finalize')
  }
  template(): undefined {
    this.note('template')
    return undefined
  }
}

class RefundHooks extends RecordingHooks {
  authorize(call: ToolCallView<RefundInput>): void {
    this.note('authorize')
    if (call.input.amount < 0) throw new ToolRejectedError('A refund cannot be negative.')
    if (call.input.amount > 100) throw new ApprovalRequiredError('Refunds above 100 need a manager.')
  }
  resume(): void {
    this.note('resume')
  }
  complete(): void {
    this.note('complete')
  }
}

/** Builds the three-tool registry: `refund` (the one the tests call), `search` and `audit`. */
export function recordingRegistry(
  recorder: Recorder,
  policy: ToolLifecycleRegistryPolicy = {},
): { tools: ToolLifecycleRegistry; executions: Map<string, number> } {
  const executions = new Map<string, number>()
  const refundTool = defineModelTool<RefundInput, { refunded: number; invocationId: string }>({
    id: 'refund',
    description: 'Refunds an order',
    inputSchema: {
      type: 'object',
      required: ['orderId', 'amount'],
      additionalProperties: false,
      properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
    },
    execute: (input, context) => {
      recorder.log.push('refund.execute')
      executions.set(context.invocationId, (executions.get(context.invocationId) ?? 0) + 1)
      if (recorder.throwAt === 'refund.execute') throw new HookFailure('refund.execute failed on purpose')
      return { refunded: input.amount, invocationId: context.invocationId }
    },
  })
  const searchTool = defineModelTool<{ q: string }, string[]>({
    id: 'search',
    description: 'Searches orders',
    inputSchema: { type: 'object', required: ['q'], properties: { q: { type: 'string' } } },
    execute: ({ q }) => [q],
  })
  const auditTool = defineModelTool<Record<string, never>, string>({
    id: 'audit',
    description: 'Reads the audit log',
    inputSchema: { type: 'object' },
    execute: () => 'audit log',
  })
  const tools = ToolLifecycleRegistry.create(
    [
      defineToolLifecycle(refundTool, new RefundHooks(recorder, 'refund')),
      defineToolLifecycle(searchTool, new RecordingHooks(recorder, 'search')),
      defineToolLifecycle(auditTool, new RecordingHooks(recorder, 'audit')),
    ],
    policy,
  )
  return { tools, executions }
}

/** The hooks every call runs first (`inspect` of every tool, in registration order). */
export const INSPECT_ALL = ['refund.inspect', 'search.inspect', 'audit.inspect'] as const
/** The hooks every call runs last. */
export const FINALIZE_ALL = ['refund.finalize', 'search.finalize', 'audit.finalize'] as const
