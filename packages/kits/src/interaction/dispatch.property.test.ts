import { AgentCoreError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bindInteraction, CommandSelectionError, defineInteractionProtocol } from './index.js'

/** Every key of Object.prototype, including non-enumerable ones and `__proto__`. */
const PROTOTYPE_KEYS = Object.getOwnPropertyNames(Object.prototype)

const REGISTERED = ['search', 'checkout', 'add_to_cart', 'valueOf_report'] as const

/** One protocol for every run (compiling schemas is the slow part); each run starts with no calls. */
const compiled = build()
function shop() {
  compiled.calls.length = 0
  return compiled
}

function build() {
  const calls: string[] = []
  const protocol = defineInteractionProtocol({
    commandField: 'action',
    commands: Object.fromEntries(
      REGISTERED.map((id) => [id, { description: `The ${id} command`, fields: {} }]),
    ) as Record<(typeof REGISTERED)[number], { description: string; fields: Record<string, never> }>,
  })
  const handlers = Object.fromEntries(REGISTERED.map((id) => [id, () => calls.push(id)])) as Record<
    (typeof REGISTERED)[number],
    () => number
  >
  return { bound: bindInteraction(protocol, handlers), calls }
}

const commandName = fc.oneof(
  fc.constantFrom(...REGISTERED),
  fc.constantFrom(...PROTOTYPE_KEYS),
  fc.string(),
  fc.constantFrom(
    'Search',
    'search ',
    'SEARCH',
    'checkout\u0000',
    '__proto__',
    'prototype',
    'hasOwnProperty',
  ),
)

describe('dispatch runs a handler if and only if the command is registered', () => {
  it('checks every key of Object.prototype', () => {
    expect(PROTOTYPE_KEYS).toEqual(
      expect.arrayContaining(['__proto__', 'constructor', 'toString', 'hasOwnProperty']),
    )
  })

  it('for generated command names', () => {
    fc.assert(
      fc.property(commandName, fc.boolean(), (name, asGetter) => {
        const { bound, calls } = shop()
        const registered = (REGISTERED as readonly string[]).includes(name)
        const message: Record<string, unknown> = {}
        if (asGetter) Object.defineProperty(message, 'action', { get: () => name, enumerable: true })
        else Object.defineProperty(message, 'action', { value: name, enumerable: true, writable: true })
        let threw: unknown
        try {
          bound.dispatch(message, undefined)
        } catch (error) {
          threw = error
        }
        const ran = calls.length === 1 && calls[0] === name
        expect(ran).toBe(registered && !asGetter)
        expect(calls.length).toBe(ran ? 1 : 0)
        if (!ran) {
          expect(AgentCoreError.isInstance(threw)).toBe(true)
          expect(CommandSelectionError.isInstance(threw)).toBe(true)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('whatever else the message holds: unknown fields, wrong types, inherited command fields', () => {
    fc.assert(
      fc.property(
        commandName,
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }),
        fc.boolean(),
        (name, extra, inherited) => {
          const { bound, calls } = shop()
          const base: Record<string, unknown> = { ...extra }
          const message = inherited
            ? Object.assign(Object.create({ action: name }), base)
            : { ...base, action: name }
          if (!inherited) Object.defineProperty(message, 'action', { value: name, enumerable: true })
          try {
            bound.dispatch(message, undefined)
          } catch (error) {
            expect(AgentCoreError.isInstance(error)).toBe(true)
          }
          const registered = (REGISTERED as readonly string[]).includes(name)
          const extraKeys = Object.keys(extra).filter((key) => key !== 'action')
          const shouldRun = registered && !inherited && extraKeys.length === 0
          expect(calls).toEqual(shouldRun ? [name] : [])
        },
      ),
      { numRuns: 1000 },
    )
  })
})
