/**
 * A small shop for the domains tests: tools in a core registry, intents and scopes over them.
 * Private to the tests.
 */
import { Registry } from '@agent-core/core'
import { defineModelTool, type ModelTool } from '@agent-core/core/tools'
import { defineIntentTool, type IntentDeclaration, type IntentTool } from '../index.js'

export function tool(id: string): ModelTool {
  return defineModelTool({
    id,
    description: `The ${id} tool`,
    inputSchema: { type: 'object' },
    execute: () => id,
  })
}

export const TOOL_IDS = [
  'search_products',
  'lookup_order',
  'refund_order',
  'track_parcel',
  'compare_invoices',
  'open_ticket',
  'weather',
] as const

export const shopTools = () => Registry.create(TOOL_IDS.map(tool), { kind: 'tool' })

export interface ShopConstraints {
  readonly maxTurns: number
}

export function intent(
  id: string,
  asIntent: IntentDeclaration<ShopConstraints>,
): IntentTool<unknown, unknown, unknown, ShopConstraints> {
  return defineIntentTool(tool(id), asIntent)
}
