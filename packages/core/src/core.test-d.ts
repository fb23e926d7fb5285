import { describe, expectTypeOf, it } from 'vitest'
import {
  AgentCoreError,
  BudgetExhaustedError,
  type ChatMessage,
  createOperationContext,
  type ModelStreamEvent,
  type OperationContext,
  Registry,
} from './index.js'
import { defineModelTool } from './tools/index.js'

describe('core types', () => {
  it('Registry keeps the definition type', () => {
    const r = Registry.create([{ id: 'a', weight: 1 }])
    expectTypeOf(r.require('a')).toEqualTypeOf<{ id: string; weight: number }>()
    expectTypeOf(r.get('a')).toEqualTypeOf<{ id: string; weight: number } | undefined>()
  })

  it('isInstance narrows to the subclass', () => {
    const e: unknown = new BudgetExhaustedError('x')
    if (BudgetExhaustedError.isInstance(e)) expectTypeOf(e).toEqualTypeOf<BudgetExhaustedError>()
    if (AgentCoreError.isInstance(e)) expectTypeOf(e.code).toEqualTypeOf<string>()
    expectTypeOf(new BudgetExhaustedError('x').code).toEqualTypeOf<'budget-exhausted'>()
  })

  it('contexts carry the app type', () => {
    const context = createOperationContext({ app: { userId: 'u1' } })
    expectTypeOf(context).toEqualTypeOf<OperationContext<{ userId: string }>>()
  })

  it('tool execute sees typed input and context', () => {
    defineModelTool<{ q: string }, number, { tenant: string }>({
      id: 't',
      description: 'd',
      inputSchema: {},
      execute(input, context) {
        expectTypeOf(input.q).toEqualTypeOf<string>()
        expectTypeOf(context.app.tenant).toEqualTypeOf<string>()
        expectTypeOf(context.invocationId).toEqualTypeOf<string>()
        return 1
      },
    })
  })

  it('chat unions discriminate', () => {
    const m = {} as ChatMessage
    if (m.role === 'tool') expectTypeOf(m.toolCallId).toEqualTypeOf<string>()
    const e = {} as ModelStreamEvent
    if (e.type === 'tool-call-delta') expectTypeOf(e.argumentsDelta).toEqualTypeOf<string>()
  })
})
