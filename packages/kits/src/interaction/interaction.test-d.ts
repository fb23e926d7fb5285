import { describe, expectTypeOf, it } from 'vitest'
import {
  bindInteraction,
  defineCommandCatalog,
  defineInteractionProtocol,
  defineProtocolField,
} from './index.js'

interface Session {
  readonly userId: string
}

describe('interaction types', () => {
  it('types handlers from the commands: parsed fields, format output and the context', () => {
    const protocol = defineInteractionProtocol({
      commandField: 'action',
      commands: {
        search: {
          description: 'Searches',
          fields: {
            query: defineProtocolField<string>({ jsonSchema: { type: 'string' } }),
            when: defineProtocolField<string, Date>({
              jsonSchema: { type: 'string' },
              parse: (text) => new Date(text),
            }),
          },
        },
        total: { description: 'Totals', fields: {}, format: () => 42 },
      },
    })
    const bound = bindInteraction(protocol, {
      search(value, context: Session) {
        expectTypeOf(value.query).toEqualTypeOf<string>()
        expectTypeOf(value.when).toEqualTypeOf<Date>()
        expectTypeOf(context.userId).toEqualTypeOf<string>()
        return [value.query]
      },
      total(value) {
        expectTypeOf(value).toEqualTypeOf<number>()
        return value
      },
    })
    expectTypeOf(bound.dispatch({}, { userId: 'u' })).toEqualTypeOf<string[] | number>()
  })

  it('infers command ids from a Record catalog and from an array catalog', () => {
    const record = defineCommandCatalog({
      ping: { description: 'P', fields: {} },
      pong: { description: 'Q', fields: {} },
    })
    expectTypeOf(record.ids()).toEqualTypeOf<readonly ('ping' | 'pong')[]>()
    const list = defineCommandCatalog([
      { id: 'up', description: 'U', fields: {} },
      { id: 'down', description: 'D', fields: {} },
    ])
    expectTypeOf(list.ids()).toEqualTypeOf<readonly ('up' | 'down')[]>()
    // @ts-expect-error: every command needs a handler
    bindInteraction(defineInteractionProtocol({ commandField: 'op', commands: record }), { ping: () => 1 })
  })
})
