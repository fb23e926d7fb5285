import {
  createOperationContext,
  DuplicateIdError,
  InvalidDefinitionError,
  InvalidIdError,
  RegistrySealedError,
  UnknownIdError,
} from '@agent-core/core'
import { invokeModelTool, type ToolExecutionContext } from '@agent-core/core/tools'
import { describe, expect, it } from 'vitest'
import { defineIntentTool, IntentRegistry, type IntentTool } from './index.js'
import { intent, shopTools, tool } from './testing/shop.js'

function detailsOf(call: () => unknown): Record<string, unknown> {
  try {
    call()
  } catch (error) {
    return {
      name: (error as Error).name,
      message: (error as Error).message,
      ...(error as { details: object }).details,
    }
  }
  throw new Error('expected a refusal')
}

describe('IntentRegistry', () => {
  const refund = intent('refund_order', { scopePolicy: 'required', targetPolicy: 'none' })
  const track = intent('track_parcel', { scopePolicy: 'optional', targetPolicy: 'query-scopes' })

  it('follows the core registry contract, created at once or staged', () => {
    const created = IntentRegistry.create([refund, track])
    const staged = new IntentRegistry().registerAll([refund]).register(track).seal()
    for (const intents of [created, staged]) {
      expect(intents.ids()).toEqual(['refund_order', 'track_parcel'])
      expect(intents.size).toBe(2)
      expect(intents.has('track_parcel')).toBe(true)
      expect(intents.get('nope')).toBeUndefined()
      expect(intents.require('refund_order')).toBe(refund)
      expect(intents.values()).toEqual([refund, track])
      expect(intents.entries()).toEqual([
        ['refund_order', refund],
        ['track_parcel', track],
      ])
      expect(() =>
        intents.register(intent('weather', { scopePolicy: 'none', targetPolicy: 'none' })),
      ).toThrow(RegistrySealedError)
    }
    expect(() => IntentRegistry.create([refund, refund])).toThrow(DuplicateIdError)
    expect(() => created.require('nope')).toThrow(UnknownIdError)
  })

  it('has no intent id of its own: the id is the tool id, and the intent is still a working tool', async () => {
    class Counter {
      #calls = 0
      readonly id = 'count'
      readonly description = 'Counts'
      readonly inputSchema = { type: 'object' }
      execute(_input: unknown, _context: ToolExecutionContext): number {
        this.#calls += 1
        return this.#calls
      }
    }
    const counter = new Counter()
    const derived = defineIntentTool(counter, { scopePolicy: 'optional', targetPolicy: 'none' })
    expect(derived.id).toBe('count')
    expect(derived.description).toBe('Counts')
    expect(derived.inputSchema).toBe(counter.inputSchema)
    const first = await invokeModelTool(derived, {}, createOperationContext())
    const second = await invokeModelTool(counter, {}, createOperationContext())
    expect([first.output, second.output]).toEqual([1, 2])
    expect('asIntent' in counter).toBe(false)
    const intents = IntentRegistry.create([derived])
    expect(intents.require('count')).toBe(derived)
  })

  it('accepts class instances that are tools and intents at once', () => {
    class Refund implements IntentTool<{ orderId: string }, string> {
      readonly id = 'refund_order'
      readonly description = 'Refunds an order'
      readonly inputSchema = { type: 'object' }
      readonly asIntent = { scopePolicy: 'required', targetPolicy: 'none' } as const
      execute({ orderId }: { orderId: string }): string {
        return orderId
      }
    }
    const instance = new Refund()
    expect(IntentRegistry.create([instance]).require('refund_order')).toBe(instance)
  })

  it('refuses a malformed asIntent block, naming the intent and the field', () => {
    const base = tool('refund_order')
    const cases: [unknown, string][] = [
      [undefined, 'asIntent'],
      [{ scopePolicy: 'always', targetPolicy: 'none' }, 'asIntent.scopePolicy'],
      [{ scopePolicy: 'required', targetPolicy: 'anything' }, 'asIntent.targetPolicy'],
      [{ scopePolicy: 'required', targetPolicy: 'none', delegate: ['x'] }, 'asIntent.delegate'],
      [{ scopePolicy: 'required', targetPolicy: 'none', delegates: 'lookup_order' }, 'asIntent.delegates'],
      [{ scopePolicy: 'required', targetPolicy: 'none', delegates: ['a', 'a'] }, 'asIntent.delegates'],
      [{ scopePolicy: 'required', targetPolicy: 'none', delegates: ['refund_order'] }, 'asIntent.delegates'],
    ]
    for (const [asIntent, field] of cases) {
      const details = detailsOf(() => IntentRegistry.create([{ ...base, asIntent } as never]))
      expect(details).toMatchObject({ name: 'InvalidDefinitionError', field })
      expect(details.message).toContain('Intent "refund_order"')
    }
    expect(() => defineIntentTool(base, null as never)).toThrow(InvalidDefinitionError)
    expect(() => IntentRegistry.create([{ id: 'x', asIntent: {} } as never])).toThrow(InvalidDefinitionError)
  })

  it('checks delegates against the tool registry it is given, refusing an unknown id by name', () => {
    const tools = shopTools()
    const ok = intent('refund_order', {
      scopePolicy: 'required',
      targetPolicy: 'none',
      delegates: new Set(['lookup_order']),
    })
    expect(IntentRegistry.create([ok], { tools }).policiesOf('refund_order').delegates).toEqual([
      'lookup_order',
    ])
    const bad = intent('refund_order', {
      scopePolicy: 'required',
      targetPolicy: 'none',
      delegates: ['lookup_ordr'],
    })
    const details = detailsOf(() => IntentRegistry.create([bad], { tools }))
    expect(details).toMatchObject({ name: 'UnknownIdError', id: 'lookup_ordr', intentId: 'refund_order' })
    expect(details.message).toMatch(/names "lookup_ordr", but no tool has that id/)
    // Without a tool registry, the catalog checks them later.
    expect(IntentRegistry.create([bad]).policiesOf('refund_order').delegates).toEqual(['lookup_ordr'])
  })

  it('keeps scope policy, target policy and constraints as declared', () => {
    const constraints = { maxTurns: 4 }
    const intents = IntentRegistry.create([
      intent('refund_order', { scopePolicy: 'required', targetPolicy: 'query-scopes', constraints }),
    ])
    const policies = intents.policiesOf('refund_order')
    expect(policies).toEqual({
      scopePolicy: 'required',
      targetPolicy: 'query-scopes',
      delegates: undefined,
      constraints,
    })
    expect(policies.constraints).toBe(constraints)
  })

  it('checks ids with core TOOL_ID_PATTERN, or the policy idPattern, and runs assertDefinition', () => {
    const spaced = {
      ...tool('refund_order'),
      id: 'refund order',
      asIntent: { scopePolicy: 'none', targetPolicy: 'none' },
    }
    expect(() => IntentRegistry.create([spaced as never])).toThrow(InvalidIdError)
    expect(() => IntentRegistry.create([track()], { idPattern: /^[a-z]+$/ })).toThrow(InvalidIdError)
    const seen: string[] = []
    IntentRegistry.create([track()], { assertDefinition: (definition) => void seen.push(definition.id) })
    expect(seen).toEqual(['track_parcel'])
    expect(() => new IntentRegistry({ tools: {} as never })).toThrow(/policy\.tools/)
    expect(() => new IntentRegistry(null as never)).toThrow(InvalidDefinitionError)
    function track() {
      return intent('track_parcel', { scopePolicy: 'optional', targetPolicy: 'none' })
    }
  })
})
