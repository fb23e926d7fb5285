import {
  DuplicateIdError,
  InvalidDefinitionError,
  InvalidInputError,
  Registry,
  RegistrySealedError,
  UnknownIdError,
} from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { type ScopeDefinition, ScopeRegistry } from './index.js'
import { shopTools } from './testing/shop.js'

const tools = shopTools()
const topics = Registry.create([{ id: 'refund-policy' }, { id: 'shipping' }, { id: 'catalog' }], {
  kind: 'topic',
})

const billing: ScopeDefinition = {
  id: 'billing',
  goalIds: ['refund_order', 'compare_invoices'],
  toolIds: ['lookup_order', 'refund_order', 'compare_invoices'],
  queryScopeIds: ['orders'],
  knowledgeTopicIds: ['refund-policy'],
  aliases: ['Invoices', 'payments'],
}
const orders: ScopeDefinition = {
  id: 'orders',
  goalIds: ['track_parcel'],
  toolIds: ['lookup_order', 'track_parcel'],
  knowledgeTopicIds: ['shipping'],
  aliases: new Set(['Deliveries']),
}

function refusal(call: () => unknown): { name: string; message: string; details: Record<string, unknown> } {
  try {
    call()
  } catch (error) {
    const { name, message, details } = error as {
      name: string
      message: string
      details: Record<string, unknown>
    }
    return { name, message, details }
  }
  throw new Error('expected a refusal')
}

describe('ScopeRegistry', () => {
  it('follows the core registry contract, created at once or staged', () => {
    const created = ScopeRegistry.create([billing, orders], { tools })
    const staged = new ScopeRegistry({ tools }).register(billing).register(orders).seal()
    for (const scopes of [created, staged]) {
      expect(scopes.ids()).toEqual(['billing', 'orders'])
      expect(scopes.require('orders')).toBe(orders)
      expect(scopes.values()).toEqual([billing, orders])
      expect(scopes.size).toBe(2)
      expect(() => scopes.register({ id: 'x', goalIds: [], toolIds: [] })).toThrow(RegistrySealedError)
    }
    expect(() => ScopeRegistry.create([billing, billing], { tools })).toThrow(DuplicateIdError)
  })

  it('needs the tool registry it checks against', () => {
    expect(() => new ScopeRegistry({} as never)).toThrow(/needs policy\.tools/)
    expect(() => new ScopeRegistry(undefined as never)).toThrow(InvalidDefinitionError)
    expect(() => new ScopeRegistry({ tools, knowledgeTopics: [] as never })).toThrow(/knowledgeTopics/)
  })

  it('refuses goal and tool ids that are not real tools, by name', () => {
    const goal = refusal(() => ScopeRegistry.create([{ ...billing, goalIds: ['refund_ordr'] }], { tools }))
    expect(goal.name).toBe('UnknownIdError')
    expect(goal.details).toMatchObject({
      id: 'refund_ordr',
      kind: 'tool',
      scopeId: 'billing',
      field: 'goalIds',
    })
    expect(goal.message).toContain('goalIds names tool "refund_ordr"')
    const tool = refusal(() =>
      ScopeRegistry.create([{ ...billing, toolIds: ['lookup_order', 'fax'] }], { tools }),
    )
    expect(tool.details).toMatchObject({ id: 'fax', field: 'toolIds', scopeId: 'billing' })
  })

  it('checks knowledge topics when given a topic registry, by name', () => {
    const scopes = ScopeRegistry.create([billing, orders], { tools, knowledgeTopics: topics })
    expect(scopes.knowledgeTopics).toBe(topics)
    const bad = refusal(() =>
      ScopeRegistry.create([{ ...orders, knowledgeTopicIds: ['returns'] }], {
        tools,
        knowledgeTopics: topics,
      }),
    )
    expect(bad.details).toMatchObject({ id: 'returns', kind: 'knowledge topic', field: 'knowledgeTopicIds' })
  })

  it('checks query scopes when sealed, so a scope may refer to one registered later', () => {
    const staged = new ScopeRegistry({ tools }).register(billing)
    const missing = refusal(() => staged.seal())
    expect(missing.details).toMatchObject({
      id: 'orders',
      kind: 'scope',
      scopeId: 'billing',
      field: 'queryScopeIds',
    })
    expect(staged.sealed).toBe(false)
    staged.register(orders).seal()
    expect(staged.queryScopesOf('billing')).toEqual([orders])
    const itself = refusal(() => ScopeRegistry.create([{ ...orders, queryScopeIds: ['orders'] }], { tools }))
    expect(itself.message).toMatch(/names the scope itself/)
  })

  it('refuses malformed lists and unknown fields', () => {
    const cases: [ScopeDefinition, string][] = [
      [{ ...orders, goalIds: 'track_parcel' as never }, 'goalIds'],
      [{ ...orders, toolIds: ['lookup_order', 'lookup_order'] }, 'toolIds'],
      [{ ...orders, queryScopeIds: [''] }, 'queryScopeIds'],
      [{ ...orders, aliases: ['  '] }, 'aliases'],
      [{ ...orders, goals: [] } as never, 'goals'],
    ]
    for (const [scope, field] of cases) {
      const error = refusal(() => ScopeRegistry.create([scope], { tools }))
      expect(error.name).toBe('InvalidDefinitionError')
      expect(error.details.field).toBe(field)
    }
  })

  it('resolves business names with normalize, and keeps query methods on scope ids', () => {
    const scopes = ScopeRegistry.create([billing, orders], { tools })
    expect(scopes.normalize('billing')).toBe('billing')
    expect(scopes.normalize('invoices')).toBe('billing')
    expect(scopes.normalize('  PAYMENTS ')).toBe('billing')
    expect(scopes.normalize('ｄｅｌｉｖｅｒｉｅｓ')).toBe('orders')
    expect(() => scopes.normalize('returns')).toThrow(UnknownIdError)
    expect(() => scopes.normalize('' as never)).toThrow(InvalidInputError)
    expect(scopes.get('invoices')).toBeUndefined()
    const alias = refusal(() => scopes.require('Invoices'))
    expect(alias.details).toMatchObject({ id: 'Invoices', aliasOf: 'billing' })
    expect(alias.message).toContain('call normalize("Invoices") first')
    expect(() => scopes.listsOf('invoices')).toThrow(/business name of scope "billing"/)
    // Aliases are kept on the definition as declared.
    expect(scopes.require('billing').aliases).toEqual(['Invoices', 'payments'])
  })

  it('refuses an alias that names two scopes, registering nothing of the batch', () => {
    const scopes = new ScopeRegistry({ tools }).register(billing)
    const clash: ScopeDefinition = { ...orders, aliases: ['payments'] }
    const error = refusal(() =>
      scopes.registerAll([
        { id: 'support', goalIds: [], toolIds: ['open_ticket'], aliases: ['help'] },
        clash,
      ]),
    )
    expect(error.name).toBe('DuplicateIdError')
    expect(error.details).toMatchObject({ id: 'payments', scopeId: 'orders', otherScopeId: 'billing' })
    expect(scopes.ids()).toEqual(['billing'])
    expect(() => scopes.normalize('help')).toThrow(UnknownIdError)
    const asId = refusal(() =>
      ScopeRegistry.create([billing, { ...orders, aliases: ['BILLING'] }], { tools }),
    )
    expect(asId.details).toMatchObject({ id: 'BILLING', scopeId: 'orders', otherScopeId: 'billing' })
  })

  it('answers which scopes list a goal or a tool', () => {
    const scopes = ScopeRegistry.create([billing, orders], { tools })
    expect(scopes.scopesWithGoal('track_parcel')).toEqual([orders])
    expect(scopes.scopesWithTool('lookup_order')).toEqual([billing, orders])
    expect(scopes.listsOf('orders')).toEqual({
      goalIds: ['track_parcel'],
      toolIds: ['lookup_order', 'track_parcel'],
      queryScopeIds: [],
      knowledgeTopicIds: ['shipping'],
      aliases: ['Deliveries'],
    })
    expect(scopes.tools).toBe(tools)
  })
})
