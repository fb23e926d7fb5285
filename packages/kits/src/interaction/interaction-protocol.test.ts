import {
  DuplicateIdError,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  RejectedThenableError,
  UnknownIdError,
} from '@agent-core/core'
import { compileJsonSchema } from '@agent-core/core/tools'
import { describe, expect, it } from 'vitest'
import {
  bindInteraction,
  CommandCatalog,
  CommandRejectedError,
  CommandSelectionError,
  defineCommandCatalog,
  defineInteractionProtocol,
  defineProtocolField,
  Interaction,
  InteractionProtocol,
  type ProtocolField,
} from './index.js'

interface Shop {
  readonly cart: string[]
  readonly open: boolean
}

function refusal(call: () => unknown): {
  error: unknown
  name: string
  message: string
  details: Record<string, unknown>
} {
  try {
    call()
  } catch (error) {
    const { name, message, details } = error as {
      name: string
      message: string
      details: Record<string, unknown>
    }
    return { error, name, message, details }
  }
  throw new Error('expected a refusal')
}

const searchCommand = {
  description: 'Searches products',
  fields: {
    query: defineProtocolField<string>({
      jsonSchema: { type: 'string', minLength: 1, description: 'What to look for' },
    }),
    limit: defineProtocolField<number>({
      jsonSchema: { type: 'integer', minimum: 1, maximum: 20 },
      default: 5,
    }),
    category: defineProtocolField<string>({ jsonSchema: { type: 'string' }, optional: true }),
  },
}

describe('compiled schemas', () => {
  const protocol = defineInteractionProtocol({ commandField: 'action', commands: { search: searchCommand } })

  it('exposes inputJsonSchema (complete input), modelJsonSchema (what a model may submit) and fieldSchemas', () => {
    const search = protocol.command('search')
    expect(search.inputJsonSchema).toEqual({
      type: 'object',
      title: 'search',
      description: 'Searches products',
      properties: {
        action: { type: 'string', const: 'search', description: 'Always "search": selects this command.' },
        query: { type: 'string', minLength: 1, description: 'What to look for' },
        limit: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
        category: { type: 'string' },
      },
      required: ['action', 'query', 'limit'],
      additionalProperties: false,
    })
    expect(search.modelJsonSchema).toMatchObject({
      required: ['action', 'query'],
      additionalProperties: false,
    })
    expect(search.fieldSchemas).toEqual({
      query: { type: 'string', minLength: 1, description: 'What to look for' },
      limit: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
      category: { type: 'string' },
    })
    expect(Object.isFrozen(search.modelJsonSchema)).toBe(true)
    // A protocol of one command submits that command's schema.
    expect(protocol.modelJsonSchema).toEqual(search.modelJsonSchema)
  })

  it('makes the complete input from what a model submits: defaults satisfy inputJsonSchema', () => {
    const selection = protocol.select({ action: 'search', query: 'tea' }, undefined)
    expect(selection).toEqual({
      commandId: 'search',
      input: { query: 'tea', limit: 5, category: undefined },
      value: selection.input,
    })
    const complete = { action: 'search', ...JSON.parse(JSON.stringify(selection.input)) }
    expect(compileJsonSchema(protocol.command('search').inputJsonSchema).validate(complete)).toEqual({
      ok: true,
    })
  })

  it('unions several commands for the model, wrapped in the envelope the App chose', () => {
    const wrapped = defineInteractionProtocol({
      commandField: 'op',
      commands: { search: searchCommand, checkout: { description: 'Pays', fields: {} } },
      envelopeSchema: (commands) => ({
        type: 'object',
        properties: { command: commands },
        required: ['command'],
        additionalProperties: false,
      }),
      openEnvelope: (message) => (message as { command?: unknown }).command,
    })
    expect(wrapped.modelJsonSchema).toEqual({
      type: 'object',
      properties: {
        command: {
          anyOf: [wrapped.command('search').modelJsonSchema, wrapped.command('checkout').modelJsonSchema],
        },
      },
      required: ['command'],
      additionalProperties: false,
    })
    expect(wrapped.select({ command: { op: 'checkout' } }, undefined).commandId).toBe('checkout')
    expect(refusal(() => wrapped.select({ op: 'checkout' }, undefined)).details.reason).toBe('not-an-object')
  })

  it('refuses malformed definitions, naming the command and the field', () => {
    const cases: [unknown, RegExp][] = [
      [{ commandField: '', commands: {} }, /commandField must be/],
      [{ commandField: 'op', commands: 'search' }, /Commands must be a Record/],
      [{ commandField: 'op', commands: { a: { description: '', fields: {} } } }, /Command "a": description/],
      [
        { commandField: 'op', commands: { a: { description: 'A', fields: { op: { jsonSchema: {} } } } } },
        /command field "op"/,
      ],
      [
        {
          commandField: 'op',
          commands: { a: { description: 'A', fields: { x: { jsonSchema: { type: 'nope' } } } } },
        },
        /not a valid JSON Schema/,
      ],
      [
        {
          commandField: 'op',
          commands: {
            a: { description: 'A', fields: { x: { jsonSchema: { type: 'integer' }, default: 'five' } } },
          },
        },
        /default does not satisfy/,
      ],
      [
        { commandField: 'op', commands: { a: { description: 'A', fields: {}, when: true } } },
        /Command "a": when must be a function/,
      ],
      [
        { commandField: 'op', commands: { a: { description: 'A', fields: {}, occur: [] } } },
        /occur is an empty array/,
      ],
      [
        { commandField: 'op', commands: { a: { description: 'A', fields: {}, occur: [() => false, 1] } } },
        /occur\[1\]/,
      ],
      [
        { commandField: 'op', commands: { a: { description: 'A', fields: {}, refines: () => undefined } } },
        /refines is not a field/,
      ],
      [
        { commandField: 'op', commands: { a: { id: 'b', description: 'A', fields: {} } } },
        /the key is the id/,
      ],
      [{ commandField: 'op', commands: {}, openEnvelope: 'x' }, /openEnvelope must be a function/],
    ]
    for (const [definition, message] of cases) {
      expect(() => defineInteractionProtocol(definition as never)).toThrow(message)
      expect(() => defineInteractionProtocol(definition as never)).toThrow(InvalidDefinitionError)
    }
    expect(() =>
      defineInteractionProtocol({
        commandField: 'op',
        commands: [
          { id: 'a', description: 'A', fields: {} },
          { id: 'a', description: 'Again', fields: {} },
        ],
      }),
    ).toThrow(DuplicateIdError)
  })
})

describe('callbacks, in order, on their receivers', () => {
  class Cart {
    readonly #items: string[] = []
    #log: string[]
    constructor(log: string[]) {
      this.#log = log
    }
    readonly description = 'Adds items to the cart'
    readonly fields = {
      sku: new SkuField(this.#logger()),
      quantity: { jsonSchema: { type: 'integer', minimum: 1 }, default: 1 } as ProtocolField<number>,
    }
    #logger() {
      return (entry: string) => this.#log.push(entry)
    }
    when(shop: Shop): boolean {
      this.#log.push('when')
      return shop.open
    }
    readonly occur = [
      function tooMany(this: Cart, input: { quantity: number }) {
        this.#log.push('occur[0]')
        return input.quantity > 10
      },
      function alreadyThere(this: Cart, input: { sku: string }) {
        this.#log.push('occur[1]')
        return this.#items.includes(input.sku)
      },
    ]
    refine(input: { sku: string; quantity: number }): void {
      this.#log.push('refine')
      if (input.sku.startsWith('GIFT') && input.quantity > 1) throw new RangeError('One gift card at a time.')
    }
    format(input: { sku: string; quantity: number }): string[] {
      this.#log.push('format')
      this.#items.push(input.sku)
      return Array.from({ length: input.quantity }, () => input.sku)
    }
  }
  class SkuField implements ProtocolField<string, string> {
    readonly #note: (entry: string) => void
    constructor(note: (entry: string) => void) {
      this.#note = note
    }
    readonly jsonSchema = { type: 'string', pattern: '^[A-Z]+-[0-9]+$' }
    assert(value: string): void {
      this.#note('assert')
      if (value.endsWith('-0')) throw new RangeError('Item 0 does not exist.')
    }
    parse(value: string): string {
      this.#note('parse')
      return value.toUpperCase()
    }
  }

  function cart() {
    const log: string[] = []
    const command = new Cart(log)
    const protocol = defineInteractionProtocol({ commandField: 'action', commands: { add: command } })
    return { protocol, log }
  }
  const open: Shop = { cart: [], open: true }

  it('runs when, assert, parse, occur (each), refine and format, in that order, with private state', () => {
    const { protocol, log } = cart()
    const selection = protocol.select({ action: 'add', sku: 'TEA-1', quantity: 2 }, open)
    expect(log).toEqual(['when', 'assert', 'parse', 'occur[0]', 'occur[1]', 'refine', 'format'])
    expect(selection.value).toEqual(['TEA-1', 'TEA-1'])
    expect(selection.input).toEqual({ sku: 'TEA-1', quantity: 2 })
  })

  it('stops at the first refusal and reports which', () => {
    const { protocol, log } = cart()
    expect(
      refusal(() => protocol.select({ action: 'add', sku: 'TEA-1' }, { ...open, open: false })).details,
    ).toMatchObject({
      reason: 'unavailable',
      commandId: 'add',
    })
    expect(log).toEqual(['when'])
    expect(refusal(() => protocol.select({ action: 'add', sku: 'TEA-0' }, open)).error).toBeInstanceOf(
      RangeError,
    )
    const tooMany = refusal(() => protocol.select({ action: 'add', sku: 'TEA-1', quantity: 11 }, open))
    expect(tooMany.error).toBeInstanceOf(CommandRejectedError)
    expect(tooMany.details).toEqual({ commandId: 'add', predicate: 0, predicateName: 'tooMany' })
    protocol.select({ action: 'add', sku: 'TEA-1' }, open)
    expect(refusal(() => protocol.select({ action: 'add', sku: 'TEA-1' }, open)).details.predicate).toBe(1)
    expect(refusal(() => protocol.select({ action: 'add', sku: 'GIFT-1', quantity: 2 }, open)).message).toBe(
      'One gift card at a time.',
    )
  })

  it('refuses unknown fields and wrong types before any field callback', () => {
    const { protocol, log } = cart()
    const extra = refusal(() => protocol.select({ action: 'add', sku: 'TEA-1', coupon: 'FREE' }, open))
    expect(extra.error).toBeInstanceOf(InvalidInputError)
    expect(extra.message).toContain('has unexpected property "coupon"')
    const wrong = refusal(() => protocol.select({ action: 'add', sku: 12 }, open))
    expect(wrong.details.issues).toEqual([{ path: '/sku', keyword: 'type', message: 'must be string' }])
    expect(log).toEqual(['when', 'when'])
  })

  it('holds callbacks to their contracts: boolean when and occur, void assert and refine, synchronous all', () => {
    const make = (body: object) =>
      defineInteractionProtocol({
        commandField: 'op',
        commands: { a: { description: 'A', fields: { n: { jsonSchema: { type: 'number' } } }, ...body } },
      })
    const run = (body: object) => refusal(() => make(body).select({ op: 'a', n: 1 }, undefined)).error
    expect(run({ when: () => 1 })).toBeInstanceOf(InvalidOutputError)
    expect(run({ when: async () => true })).toBeInstanceOf(RejectedThenableError)
    expect(run({ occur: () => 'yes' })).toBeInstanceOf(InvalidOutputError)
    expect(run({ refine: () => false })).toBeInstanceOf(InvalidOutputError)
    expect(run({ format: () => Promise.resolve(1) })).toBeInstanceOf(RejectedThenableError)
    const field = (body: object) =>
      refusal(() =>
        defineInteractionProtocol({
          commandField: 'op',
          commands: { a: { description: 'A', fields: { n: { jsonSchema: {}, ...body } } } },
        }).select({ op: 'a', n: 1 }, undefined),
      ).error
    expect(field({ assert: () => true })).toBeInstanceOf(InvalidOutputError)
    expect(field({ parse: async (n: number) => n })).toBeInstanceOf(RejectedThenableError)
  })

  it('gives every dispatch its own copy of a default', () => {
    const protocol = defineInteractionProtocol({
      commandField: 'op',
      commands: {
        tag: { description: 'Tags', fields: { tags: { jsonSchema: { type: 'array' }, default: ['new'] } } },
      },
    })
    const first = protocol.select({ op: 'tag' }, undefined).input.tags as string[]
    first.push('changed')
    expect(protocol.select({ op: 'tag' }, undefined).input.tags).toEqual(['new'])
  })
})

describe('selection', () => {
  const protocol = defineInteractionProtocol({ commandField: 'action', commands: { search: searchCommand } })

  it('refuses each way an input can fail to name a command', () => {
    const reasons: [unknown, string][] = [
      ['search', 'not-an-object'],
      [['search'], 'not-an-object'],
      [new (class Message {})(), 'not-an-object'],
      [{ query: 'tea' }, 'missing'],
      [Object.defineProperty({}, 'action', { get: () => 'search', enumerable: true }), 'getter'],
      [{ action: 3 }, 'not-a-string'],
      [{ action: 'toString' }, 'unknown'],
      [{ action: '__proto__' }, 'unknown'],
      [Object.create({ action: 'search' }), 'not-an-object'],
    ]
    for (const [message, reason] of reasons) {
      const { error, details } = refusal(() => protocol.select(message, undefined))
      expect(CommandSelectionError.isInstance(error)).toBe(true)
      expect(details).toMatchObject({ reason, field: 'action', known: ['search'] })
    }
  })

  it('lets the protocol build its own selection errors, on its receiver', () => {
    class Wire {
      readonly #prefix = 'E_COMMAND'
      readonly commandField = 'type'
      readonly commands = { ping: { description: 'Checks the line', fields: {} } }
      selectionError(problem: { reason: string; known: readonly string[] }): Error {
        return new SyntaxError(`${this.#prefix}: ${problem.reason} (try ${problem.known.join('/')})`)
      }
      openEnvelope(message: unknown): unknown {
        return (message as { body?: unknown }).body
      }
    }
    const wire = new InteractionProtocol(new Wire())
    expect(refusal(() => wire.select({ body: { type: 'pong' } }, undefined)).message).toBe(
      'E_COMMAND: unknown (try ping)',
    )
    expect(wire.select({ body: { type: 'ping' } }, undefined).commandId).toBe('ping')
    const broken = defineInteractionProtocol({
      commandField: 'op',
      commands: {},
      selectionError: () => 'nope' as never,
    })
    expect(refusal(() => broken.select({}, undefined)).error).toBeInstanceOf(InvalidOutputError)
  })

  it('lists the commands available now', () => {
    const shop = defineInteractionProtocol({
      commandField: 'op',
      commands: {
        browse: { description: 'Browses', fields: {} },
        checkout: { description: 'Pays', fields: {}, when: (cart: readonly string[]) => cart.length > 0 },
      },
    })
    expect(shop.available([]).map((command) => command.id)).toEqual(['browse'])
    expect(shop.available(['tea']).map((command) => command.id)).toEqual(['browse', 'checkout'])
    expect(() => shop.command('pay' as never)).toThrow(UnknownIdError)
  })
})

describe('bindInteraction', () => {
  const protocol = defineInteractionProtocol({
    commandField: 'action',
    commands: {
      search: searchCommand,
      checkout: { description: 'Pays for the cart', fields: {} },
      toString: { description: 'A command that happens to be named toString', fields: {} },
    },
  })

  it('calls the class method on the instance, with the converted value and the context', async () => {
    class ShopHandlers {
      readonly #orders: string[] = []
      search({ query, limit }: { query: string; limit: number }, context: { user: string }) {
        return `${context.user} searched ${query} (${limit})`
      }
      async checkout(_value: unknown, context: { user: string }) {
        this.#orders.push(context.user)
        return this.#orders.length
      }
      get toString() {
        return () => 'custom toString handler'
      }
    }
    const bound = bindInteraction(protocol, new ShopHandlers())
    expect(bound.dispatch({ action: 'search', query: 'tea' }, { user: 'ana' })).toBe('ana searched tea (5)')
    await expect(bound.dispatch({ action: 'checkout' }, { user: 'ana' })).resolves.toBe(1)
    expect(bound.dispatch({ action: 'toString' }, undefined)).toBe('custom toString handler')
    expect(bound.protocol).toBe(protocol)
  })

  it('never takes a handler from Object.prototype, and refuses missing, wrong or extra handlers', () => {
    const missing = refusal(() => bindInteraction(protocol, { search: () => 1, checkout: () => 2 }))
    expect(missing.details).toMatchObject({ id: 'toString', field: 'handlers.toString' })
    expect(() =>
      bindInteraction(protocol, { search: () => 1, checkout: 'pay', toString: () => 3 } as never),
    ).toThrow(/handler for command "checkout" must be a function/)
    expect(() =>
      bindInteraction(protocol, {
        search: () => 1,
        checkout: () => 2,
        toString: () => 3,
        serach: () => 4,
      } as never),
    ).toThrow(/"serach", which is no command/)
    expect(() => bindInteraction({} as never, {})).toThrow(InvalidDefinitionError)
    expect(() => bindInteraction(protocol, null as never)).toThrow(InvalidDefinitionError)
  })
})

describe('command catalogs', () => {
  it('takes a Record or an array; definitions is the array and toRecord() the mapping', () => {
    const fromRecord = defineCommandCatalog({
      search: searchCommand,
      checkout: { description: 'Pays', fields: {} },
    })
    const fromArray = new CommandCatalog([
      { id: 'search', ...searchCommand },
      { id: 'checkout', description: 'Pays', fields: {} },
    ])
    for (const catalog of [fromRecord, fromArray]) {
      expect(catalog.ids()).toEqual(['search', 'checkout'])
      expect(catalog.definitions.map((definition) => definition.id)).toEqual(['search', 'checkout'])
      const record = catalog.toRecord()
      expect(Object.keys(record)).toEqual(['search', 'checkout'])
      expect(record.search).toBe(catalog.require('search'))
      expect(Object.getPrototypeOf(record)).toBeNull()
      expect((record as Record<string, unknown>).toString).toBeUndefined()
      expect(catalog.has('toString')).toBe(false)
      expect(catalog.get('constructor')).toBeUndefined()
      expect(catalog.entries().map(([id]) => id)).toEqual(['search', 'checkout'])
      expect(catalog.values()).toBe(catalog.definitions)
    }
    // In the Record form, a definition is a view with its id over the object you wrote.
    expect(fromRecord.require('search').description).toBe('Searches products')
    expect(Object.getPrototypeOf(fromRecord.require('search'))).toBe(searchCommand)
    expect(() => fromRecord.require('nope')).toThrow(UnknownIdError)
  })

  it('plugs into a protocol directly, and through the Interaction namespace', () => {
    const commands = Interaction.Commands.define({ ping: { description: 'Checks the line', fields: {} } })
    expect(commands).toBeInstanceOf(Interaction.Commands.Catalog)
    const protocol = new Interaction.Protocol({ commandField: 'op', commands })
    expect(protocol).toBeInstanceOf(InteractionProtocol)
    expect(protocol.commands).toBe(commands)
    expect(Interaction.define({ commandField: 'op', commands })).toBeInstanceOf(InteractionProtocol)
    const bound = Interaction.bind(protocol, { ping: () => 'pong' })
    expect(bound.dispatch({ op: 'ping' }, undefined)).toBe('pong')
    expect(Interaction.field).toBe(defineProtocolField)
  })
})
