import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  AgentCoreError,
  AttemptBudget,
  assertSafeInteger,
  createOperationContext,
  Registry,
} from './index.js'
import { compileJsonSchema, defineModelTool, invokeModelTool } from './tools/index.js'

/** Runs `action`; any error it throws must be an agent-core error (never a TypeError or RangeError). */
function onlyTypedErrors(action: () => unknown): void {
  try {
    action()
  } catch (error) {
    expect(AgentCoreError.isInstance(error), String(error)).toBe(true)
  }
}

const garbage = fc.oneof(
  fc.anything(),
  fc.constantFrom(
    Number.NaN,
    -1,
    2 ** 53,
    Number.POSITIVE_INFINITY,
    1.5,
    Promise.resolve(1),
    Symbol('s'),
    10n,
  ),
)

describe('core rejects any bad input with a typed error', () => {
  it('createOperationContext', () => {
    fc.assert(
      fc.property(
        fc.record(
          { signal: garbage, diagnostics: garbage, attemptBudget: garbage, now: garbage },
          { requiredKeys: [] },
        ),
        (init) => {
          onlyTypedErrors(() => createOperationContext(init as never))
        },
      ),
    )
    fc.assert(fc.property(garbage, (init) => onlyTypedErrors(() => createOperationContext(init as never))))
  })

  it('Registry construction, registration and lookup', () => {
    fc.assert(
      fc.property(garbage, garbage, garbage, (policy, definitions, id) => {
        onlyTypedErrors(() => new Registry(policy as never))
        const registry = new Registry<{ id: string }>()
        onlyTypedErrors(() => registry.registerAll(definitions as never))
        onlyTypedErrors(() => registry.register(definitions as never))
        onlyTypedErrors(() => registry.require(id as never))
        expect(registry.get(id as never)).toBeUndefined()
      }),
    )
  })

  it('AttemptBudget and assertSafeInteger', () => {
    fc.assert(
      fc.property(garbage, (value) => {
        onlyTypedErrors(() => new AttemptBudget(value as never))
        onlyTypedErrors(() => assertSafeInteger(value, 'n', { min: 0 }))
      }),
    )
  })

  it('model tool definitions, schemas and invocations', async () => {
    fc.assert(
      fc.property(garbage, garbage, (definition, schema) => {
        onlyTypedErrors(() => defineModelTool(definition as never))
        onlyTypedErrors(() => compileJsonSchema(schema as never))
      }),
    )
    const tool = defineModelTool({
      id: 'echo',
      description: 'echo',
      inputSchema: { type: 'object' },
      execute: (input) => input,
    })
    await fc.assert(
      fc.asyncProperty(garbage, async (input) => {
        try {
          await invokeModelTool(tool, input, createOperationContext())
        } catch (error) {
          expect(AgentCoreError.isInstance(error)).toBe(true)
        }
      }),
    )
  })
})
