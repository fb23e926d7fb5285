import fc from 'fast-check'
import { describe, it } from 'vitest'
import { garbage, typed } from '../testing/garbage.js'
import { defineAgentCatalog, defineIntentTool, IntentRegistry, ScopeRegistry } from './index.js'
import { intent, shopTools, tool } from './testing/shop.js'

const loose = (value: unknown) => value as never

describe('domains with garbage input', () => {
  it('only ever throws typed errors', () => {
    const tools = shopTools()
    const intents = IntentRegistry.create([
      intent('refund_order', { scopePolicy: 'required', targetPolicy: 'query-scopes' }),
      intent('track_parcel', { scopePolicy: 'optional', targetPolicy: 'all-scopes' }),
    ])
    const scopes = ScopeRegistry.create(
      [
        {
          id: 'billing',
          goalIds: ['refund_order'],
          toolIds: ['lookup_order'],
          queryScopeIds: ['orders'],
          aliases: ['invoices'],
        },
        { id: 'orders', goalIds: ['track_parcel'], toolIds: ['track_parcel'] },
      ],
      { tools },
    )
    const catalog = defineAgentCatalog({ tools, intents, scopes })
    fc.assert(
      fc.property(garbage, garbage, garbage, garbage, (a, b, c, d) => {
        typed(() => defineIntentTool(loose(a), loose(b)))
        typed(() => defineIntentTool(tool('weather'), loose(a)))
        typed(() => IntentRegistry.create(loose(a), loose(b)))
        typed(() => IntentRegistry.create([loose(a)]))
        typed(() =>
          IntentRegistry.create(
            [
              {
                ...tool('weather'),
                asIntent: { scopePolicy: a, targetPolicy: b, delegates: c, constraints: d },
              } as never,
            ],
            {
              tools,
            },
          ),
        )
        typed(() => new IntentRegistry(loose({ tools: a, idPattern: b, assertDefinition: c })))
        typed(() => ScopeRegistry.create(loose(a), loose({ tools })))
        typed(() => ScopeRegistry.create(loose([a]), loose({ tools })))
        typed(() => new ScopeRegistry(loose(a)))
        typed(() => new ScopeRegistry(loose({ tools: a, knowledgeTopics: b })))
        typed(() =>
          ScopeRegistry.create(
            [
              {
                id: 'x',
                goalIds: a,
                toolIds: b,
                queryScopeIds: c,
                knowledgeTopicIds: d,
                aliases: a,
              } as never,
            ],
            { tools },
          ),
        )
        typed(() => scopes.normalize(loose(a)))
        typed(() => scopes.require(loose(a)))
        typed(() => scopes.listsOf(loose(a)))
        typed(() => scopes.scopesWithGoal(loose(a)))
        typed(() => intents.policiesOf(loose(a)))
        typed(() => defineAgentCatalog(loose(a)))
        typed(() => defineAgentCatalog(loose({ tools: a, intents: b, scopes: c })))
        typed(() => catalog.project(loose(a)))
        typed(() => catalog.project(loose({ goalId: a, scopeId: b })))
        typed(() => catalog.project(loose({ goalId: 'refund_order', scopeId: a })))
        typed(() => catalog.goals(loose(a)))
        typed(() => catalog.scopesOf(loose(a)))
      }),
      { numRuns: 400 },
    )
  })
})
