import { Registry } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { describe, expectTypeOf, it } from 'vitest'
import { defineAgentCatalog, defineIntentTool, IntentRegistry, ScopeRegistry } from './index.js'

describe('domains types', () => {
  it('keeps the tool types and the constraints type through intents and the catalog', () => {
    const refundTool = defineModelTool<{ orderId: string }, string>({
      id: 'refund_order',
      description: 'Refunds',
      inputSchema: { type: 'object' },
      execute: ({ orderId }) => orderId,
    })
    const refund = defineIntentTool(refundTool, {
      scopePolicy: 'required',
      targetPolicy: 'none',
      constraints: { maxTurns: 3 },
    })
    expectTypeOf(refund.execute).parameter(0).toEqualTypeOf<{ orderId: string }>()
    const intents = IntentRegistry.create([refund])
    const tools = Registry.create([refundTool])
    const scopes = ScopeRegistry.create([{ id: 'billing', goalIds: ['refund_order'], toolIds: [] }], {
      tools,
    })
    const catalog = defineAgentCatalog({ tools, intents, scopes })
    expectTypeOf(catalog.project({ goalId: 'refund_order', scopeId: 'billing' }).constraints).toEqualTypeOf<
      { maxTurns: number } | undefined
    >()
    // @ts-expect-error: a scope policy is one of three words
    defineIntentTool(refundTool, { scopePolicy: 'sometimes', targetPolicy: 'none' })
  })
})
