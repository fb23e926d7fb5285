import { InvalidInputError, InvalidStateError, UnknownIdError } from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import {
  defineAgentCatalog,
  type IntentDeclaration,
  IntentRegistry,
  type ScopeDefinition,
  ScopeRegistry,
} from './index.js'
import { intent, type ShopConstraints, shopTools } from './testing/shop.js'

const tools = shopTools()
const refundLimits: ShopConstraints = { maxTurns: 4 }

function shop(
  overrides: Partial<Record<string, IntentDeclaration<ShopConstraints>>> = {},
  scopes: readonly ScopeDefinition[] = SCOPES,
) {
  const declarations: Record<string, IntentDeclaration<ShopConstraints>> = {
    refund_order: { scopePolicy: 'required', targetPolicy: 'query-scopes', constraints: refundLimits },
    compare_invoices: { scopePolicy: 'required', targetPolicy: 'all-scopes' },
    track_parcel: { scopePolicy: 'optional', targetPolicy: 'none', delegates: ['lookup_order'] },
    weather: { scopePolicy: 'none', targetPolicy: 'none' },
    ...overrides,
  }
  const intents = IntentRegistry.create(
    Object.entries(declarations).flatMap(([id, asIntent]) => (asIntent ? [intent(id, asIntent)] : [])),
  )
  return defineAgentCatalog({ tools, intents, scopes: ScopeRegistry.create(scopes, { tools }) })
}

const SCOPES: readonly ScopeDefinition[] = [
  {
    id: 'billing',
    goalIds: ['refund_order', 'compare_invoices'],
    toolIds: ['refund_order', 'compare_invoices', 'lookup_order'],
    queryScopeIds: ['orders'],
    knowledgeTopicIds: ['refund-policy', 'vat'],
    aliases: ['invoices'],
  },
  {
    id: 'orders',
    goalIds: ['track_parcel'],
    toolIds: ['track_parcel', 'lookup_order', 'search_products'],
    knowledgeTopicIds: ['shipping', 'vat'],
  },
  { id: 'support', goalIds: ['track_parcel'], toolIds: ['open_ticket'], knowledgeTopicIds: ['tone'] },
]

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

describe('defineAgentCatalog: relationships checked up front', () => {
  it('needs sealed registries', () => {
    const intents = new IntentRegistry()
    const scopes = ScopeRegistry.create([], { tools })
    expect(() => defineAgentCatalog({ tools, intents, scopes })).toThrow(InvalidStateError)
    expect(() => defineAgentCatalog({ tools, intents: intents.seal(), scopes: {} as never })).toThrow(
      /ScopeRegistry/,
    )
    expect(() => defineAgentCatalog(null as never)).toThrow(/tools, intents, scopes/)
  })

  it('refuses an intent that is not a tool of the registry, by name', () => {
    const intents = IntentRegistry.create([
      intent('haggle', { scopePolicy: 'optional', targetPolicy: 'none' }),
    ])
    const error = refusal(() =>
      defineAgentCatalog({ tools, intents, scopes: ScopeRegistry.create([], { tools }) }),
    )
    expect(error.name).toBe('UnknownIdError')
    expect(error.details).toMatchObject({ id: 'haggle', kind: 'tool' })
  })

  it('refuses a delegate that is not a tool, by name', () => {
    const error = refusal(() =>
      shop({ track_parcel: { scopePolicy: 'optional', targetPolicy: 'none', delegates: ['teleport'] } }),
    )
    expect(error.details).toMatchObject({
      id: 'teleport',
      intentId: 'track_parcel',
      field: 'asIntent.delegates',
    })
  })

  it('refuses a scope goal that is a tool but not an intent, by name', () => {
    const error = refusal(() =>
      shop({}, [...SCOPES, { id: 'catalog', goalIds: ['search_products'], toolIds: ['search_products'] }]),
    )
    expect(error.name).toBe('UnknownIdError')
    expect(error.details).toMatchObject({
      id: 'search_products',
      kind: 'intent',
      scopeId: 'catalog',
      field: 'goalIds',
    })
  })

  it('refuses scope policies that no registration can satisfy', () => {
    const orphan = refusal(() => shop({ weather: { scopePolicy: 'required', targetPolicy: 'none' } }))
    expect(orphan.details).toMatchObject({ id: 'weather', field: 'asIntent.scopePolicy' })
    expect(orphan.message).toContain('no scope lists it')
    const listed = refusal(() => shop({ track_parcel: { scopePolicy: 'none', targetPolicy: 'none' } }))
    expect(listed.details).toMatchObject({ id: 'track_parcel', scopeId: 'orders' })
  })
})

describe('projecting the current task { goalId, scopeId? }', () => {
  const catalog = shop()

  it('applies the scope policy: required, none, and a scope that must list the goal', () => {
    const required = refusal(() => catalog.project({ goalId: 'refund_order' }))
    expect(required.name).toBe('InvalidInputError')
    expect(required.details).toMatchObject({
      field: 'task.scopeId',
      goalId: 'refund_order',
      candidates: ['billing'],
    })
    const none = refusal(() => catalog.project({ goalId: 'weather', scopeId: 'orders' }))
    expect(none.details).toMatchObject({ field: 'task.scopeId', goalId: 'weather', scopeId: 'orders' })
    const unlisted = refusal(() => catalog.project({ goalId: 'refund_order', scopeId: 'orders' }))
    expect(unlisted.message).toContain('Scope "orders" does not list goal "refund_order"')
    expect(catalog.project({ goalId: 'track_parcel' }).scopeId).toBeUndefined()
    expect(catalog.project({ goalId: 'track_parcel', scopeId: 'support' }).scopeId).toBe('support')
  })

  it('names unknown goals and scopes, and takes scope ids, not business names', () => {
    expect(refusal(() => catalog.project({ goalId: 'haggle' })).details).toMatchObject({
      id: 'haggle',
      kind: 'intent',
    })
    expect(
      refusal(() => catalog.project({ goalId: 'refund_order', scopeId: 'returns' })).details,
    ).toMatchObject({
      id: 'returns',
      kind: 'scope',
    })
    const alias = refusal(() => catalog.project({ goalId: 'refund_order', scopeId: 'invoices' }))
    expect(alias.details).toMatchObject({ aliasOf: 'billing' })
    const scopeId = catalog.scopes.normalize('invoices')
    expect(catalog.project({ goalId: 'refund_order', scopeId }).scopeId).toBe('billing')
    expect(() => catalog.project({ goalId: 1 } as never)).toThrow(InvalidInputError)
    expect(() => catalog.project(undefined as never)).toThrow(InvalidInputError)
    expect(() => catalog.project({ goalId: 'x', scopeId: 3 } as never)).toThrow(/task\.scopeId/)
  })

  it("derives delegates from the governing scope's tools, in the tool registry's order, goal first", () => {
    expect(catalog.project({ goalId: 'refund_order', scopeId: 'billing' })).toMatchObject({
      toolIds: ['refund_order', 'lookup_order', 'compare_invoices'],
      delegatesFrom: 'derived',
    })
  })

  it('derives delegates of an unscoped task from every scope that lists the goal', () => {
    const catalog = shop({ track_parcel: { scopePolicy: 'optional', targetPolicy: 'none' } })
    expect(catalog.project({ goalId: 'track_parcel' }).toolIds).toEqual([
      'track_parcel',
      'search_products',
      'lookup_order',
      'open_ticket',
    ])
    expect(catalog.project({ goalId: 'track_parcel', scopeId: 'support' }).toolIds).toEqual([
      'track_parcel',
      'open_ticket',
    ])
  })

  it('lets declared delegates (an allowed set) replace the derived ones', () => {
    const projection = catalog.project({ goalId: 'track_parcel', scopeId: 'support' })
    expect(projection).toMatchObject({ toolIds: ['track_parcel', 'lookup_order'], delegatesFrom: 'declared' })
    const reordered = shop({
      track_parcel: {
        scopePolicy: 'optional',
        targetPolicy: 'none',
        delegates: new Set(['open_ticket', 'search_products']),
      },
    })
    expect(reordered.project({ goalId: 'track_parcel' }).toolIds).toEqual([
      'track_parcel',
      'search_products',
      'open_ticket',
    ])
  })

  it('applies the target policy, never using the governing scope as a reference', () => {
    expect(catalog.project({ goalId: 'refund_order', scopeId: 'billing' }).queryScopeIds).toEqual(['orders'])
    expect(catalog.project({ goalId: 'compare_invoices', scopeId: 'billing' }).queryScopeIds).toEqual([
      'orders',
      'support',
    ])
    expect(catalog.project({ goalId: 'track_parcel', scopeId: 'orders' }).queryScopeIds).toEqual([])
    const noTargets = shop({ refund_order: { scopePolicy: 'required', targetPolicy: 'none' } })
    expect(noTargets.project({ goalId: 'refund_order', scopeId: 'billing' }).queryScopeIds).toEqual([])
  })

  it('projects the knowledge topics of the governing scope, then of the referenced scopes, each once', () => {
    expect(catalog.project({ goalId: 'refund_order', scopeId: 'billing' }).knowledgeTopicIds).toEqual([
      'refund-policy',
      'vat',
      'shipping',
    ])
    expect(catalog.project({ goalId: 'track_parcel' }).knowledgeTopicIds).toEqual([])
  })

  it('projects the intent constraints as declared', () => {
    const projection = catalog.project({ goalId: 'refund_order', scopeId: 'billing' })
    expect(projection.constraints).toBe(refundLimits)
    expect(catalog.project({ goalId: 'weather' }).constraints).toBeUndefined()
    expect(Object.isFrozen(projection)).toBe(true)
  })

  it('lists goals per scope and scopes per goal', () => {
    expect(catalog.goals('billing').map((goal) => goal.id)).toEqual(['refund_order', 'compare_invoices'])
    expect(catalog.goals().map((goal) => goal.id)).toEqual(['track_parcel', 'weather'])
    expect(catalog.scopesOf('track_parcel').map((scope) => scope.id)).toEqual(['orders', 'support'])
    expect(() => catalog.scopesOf('haggle')).toThrow(UnknownIdError)
  })
})
