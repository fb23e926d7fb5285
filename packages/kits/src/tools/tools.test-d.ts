import { defineModelTool } from '@agent-core/core/tools'
import { describe, expectTypeOf, it } from 'vitest'
import {
  defineToolLifecycle,
  type PendingToolCall,
  type ToolCallOutcome,
  type ToolCallState,
  type ToolDecision,
  ToolLifecycleRegistry,
} from './index.js'

const refund = defineModelTool<{ orderId: string; amount: number }, { refunded: number }, { userId: string }>(
  {
    id: 'refund',
    description: 'Refunds',
    inputSchema: { type: 'object' },
    execute: ({ amount }) => ({ refunded: amount }),
  },
)

describe('tool lifecycle types', () => {
  it("types a lifecycle's hooks from its tool", () => {
    defineToolLifecycle(refund, {
      authorize(call, context) {
        expectTypeOf(call.input).toEqualTypeOf<{ orderId: string; amount: number }>()
        expectTypeOf(context.app).toEqualTypeOf<{ userId: string }>()
      },
      complete({ output }) {
        expectTypeOf(output).toEqualTypeOf<{ refunded: number }>()
      },
      resume(call) {
        expectTypeOf(call.decision.type).toEqualTypeOf<'approve'>()
      },
    })
    defineToolLifecycle(refund, {
      authorize(call) {
        // @ts-expect-error: the refund input has no such field
        call.input.currency
      },
    })
  })

  it('accepts typed lifecycles of different tools in one registry', () => {
    const search = defineModelTool<{ q: string }, string[]>({
      id: 'search',
      description: 'Searches',
      inputSchema: { type: 'object' },
      execute: ({ q }) => [q],
    })
    const tools = ToolLifecycleRegistry.create([defineToolLifecycle(refund), defineToolLifecycle(search)])
    expectTypeOf(tools.run).returns.toEqualTypeOf<Promise<ToolCallOutcome>>()
  })

  it('narrows outcomes and states by status', () => {
    const narrow = (outcome: ToolCallOutcome, state: ToolCallState, decision: ToolDecision) => {
      if (outcome.status === 'pending') expectTypeOf(outcome.record).toEqualTypeOf<PendingToolCall>()
      if (state.status === 'completed')
        expectTypeOf(state.output).toEqualTypeOf<import('./index.js').JsonValue | undefined>()
      if (decision.type === 'reject') expectTypeOf(decision.reason).toEqualTypeOf<string>()
    }
    expectTypeOf(narrow).toBeFunction()
  })
})
