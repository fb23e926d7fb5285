import fc from 'fast-check'
import { describe, it } from 'vitest'
import { garbage, typed } from '../testing/garbage.js'
import {
  bindInteraction,
  CommandCatalog,
  defineCommandCatalog,
  defineInteractionProtocol,
  defineProtocolField,
  InteractionProtocol,
} from './index.js'

const loose = (value: unknown) => value as never

describe('interaction with garbage input', () => {
  const protocol = defineInteractionProtocol({
    commandField: 'action',
    commands: {
      search: {
        description: 'Searches',
        fields: {
          query: defineProtocolField<string>({ jsonSchema: { type: 'string' } }),
          limit: defineProtocolField<number>({ jsonSchema: { type: 'integer' }, default: 3 }),
        },
      },
      checkout: { description: 'Pays', fields: {}, when: (open: unknown) => open !== false },
    },
  })
  const bound = bindInteraction(protocol, { search: () => 'searched', checkout: () => 'paid' })

  it('only ever throws typed errors', () => {
    fc.assert(
      fc.property(garbage, garbage, garbage, garbage, (a, b, c, d) => {
        typed(() => defineInteractionProtocol(loose(a)))
        typed(() => defineInteractionProtocol(loose({ commandField: a, commands: b })))
        typed(() => defineInteractionProtocol(loose({ commandField: 'op', commands: { x: a } })))
        typed(() =>
          defineInteractionProtocol(
            loose({
              commandField: 'op',
              commands: { x: { description: 'X', fields: { f: a }, when: b, occur: c, refine: d } },
            }),
          ),
        )
        typed(() =>
          defineInteractionProtocol(
            loose({
              commandField: 'op',
              commands: {
                x: { description: 'X', fields: { f: { jsonSchema: a, default: b, optional: c, parse: d } } },
              },
            }),
          ),
        )
        typed(() =>
          defineInteractionProtocol(
            loose({
              commandField: 'op',
              commands: {},
              openEnvelope: a,
              envelopeSchema: b,
              selectionError: c,
            }),
          ),
        )
        typed(
          () => new InteractionProtocol(loose({ commandField: 'op', commands: {}, envelopeSchema: () => a })),
        )
        typed(() => defineCommandCatalog(loose(a)))
        typed(() => new CommandCatalog(loose([a, b])))
        typed(() => bindInteraction(loose(a), loose(b)))
        typed(() => bindInteraction(protocol, loose(a)))
        typed(() => bound.dispatch(a, b))
        typed(() => bound.dispatch({ action: a, query: b, limit: c }, d))
        typed(() => bound.dispatch({ action: 'search', query: a, limit: b }, c))
        typed(() => bound.dispatch({ action: 'checkout' }, a))
        typed(() => protocol.select(a, b))
        typed(() => protocol.command(loose(a)))
        typed(() => protocol.available(loose(a)))
        typed(() => protocol.commands.toRecord())
        // Callbacks that answer garbage are refused with typed errors too.
        const hostile = defineInteractionProtocol({
          commandField: 'op',
          commands: {
            x: {
              description: 'X',
              fields: { f: { jsonSchema: {}, optional: true, parse: () => a, assert: () => b as undefined } },
              when: () => c as boolean,
              occur: () => d as boolean,
              refine: () => a as undefined,
              format: () => b,
            },
          },
          selectionError: () => c as Error,
          openEnvelope: (message) =>
            typeof message === 'object' && message !== null && 'wrapped' in message ? d : message,
        })
        typed(() => hostile.select({ op: 'x', f: 1 }, undefined))
        typed(() => hostile.select({ wrapped: true }, undefined))
        typed(() => hostile.select({ op: 'y' }, undefined))
      }),
      { numRuns: 300 },
    )
  })
})
