/** Garbage in, typed errors out: every public entry of the models kit (property). */
import { AgentCoreError, createOperationContext } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppError, deepGarbage } from '../testing/garbage.js'
import {
  chooseRoute,
  defineModelBinding,
  defineStructuredOutput,
  generateStructured,
  ModelCalls,
  ModelProviderError,
  parseRetryAfterMs,
  withRetry,
} from './index.js'

/** A thenable that settles at once, so no call under test can hang on it. */
const settling = { then: (resolve: (value: unknown) => void) => resolve('{}') }

const garbage: fc.Arbitrary<unknown> = deepGarbage(
  [settling, () => settling, () => Number.NaN, new AbortController().signal, { '~standard': 1 }],
  fc.sparseArray(fc.anything(), { maxLength: 4 }),
)

function maybe<T>(valid: T): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: fc.constant(valid), weight: 3 }, { arbitrary: garbage, weight: 1 })
}

async function typedOrSuccess(run: () => unknown): Promise<void> {
  try {
    await run()
  } catch (error) {
    if (error instanceof AppError) return
    if (!AgentCoreError.isInstance(error)) {
      throw new Error(`expected an AgentCoreError, got ${String(error)}`, { cause: error })
    }
    expect(AgentCoreError.isInstance(error)).toBe(true)
  }
}

// biome-ignore lint/suspicious/noExplicitAny: garbage goes through the public API on purpose
type Loose = any

const echo = defineModelBinding({ id: 'echo', identity: 'e', invoke: (_input: unknown) => 'ok' })
const schema = { type: 'object', properties: { a: { type: 'number' } } }

describe('models kit: garbage input (property)', () => {
  it('ModelCalls and invoke reject garbage only with AgentCoreError', async () => {
    const models = new ModelCalls([echo])
    await fc.assert(
      fc.asyncProperty(
        garbage,
        fc.record({ modelId: maybe('echo'), input: garbage, timeoutMs: maybe(100) }, { requiredKeys: [] }),
        fc.oneof(
          garbage,
          fc.record(
            { signal: garbage, app: garbage, attemptBudget: garbage, now: garbage, diagnostics: garbage },
            { requiredKeys: [] },
          ),
        ),
        async (bindings, request, context) => {
          await typedOrSuccess(() => new ModelCalls(bindings as Loose))
          await typedOrSuccess(() => new ModelCalls([bindings] as Loose))
          await typedOrSuccess(() => models.invoke(request as Loose, context as Loose))
          await typedOrSuccess(() => models.invoke(bindings as Loose))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('withRetry, provider errors and retry headers reject garbage only with AgentCoreError', async () => {
    await fc.assert(
      fc.asyncProperty(garbage, garbage, garbage, async (target, policy, headers) => {
        await typedOrSuccess(() => withRetry(target as Loose, policy as Loose))
        await typedOrSuccess(() => withRetry(echo, policy as Loose))
        await typedOrSuccess(() => new ModelProviderError(String(typeof target), policy as Loose))
        await typedOrSuccess(() => ModelProviderError.fromHttp(target as Loose))
        await typedOrSuccess(() => ModelProviderError.fromHttp({ status: 503, headers: headers as Loose }))
        const ms = parseRetryAfterMs(headers as Loose, target as Loose)
        expect(ms === undefined || (Number.isSafeInteger(ms) && ms >= 0)).toBe(true)
      }),
      { numRuns: 300 },
    )
  })

  it('structured output and routes reject garbage only with AgentCoreError', async () => {
    const context = createOperationContext()
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            model: maybe(async () => '{"a": 1}'),
            schema: maybe(schema),
            prompt: maybe('x'),
            messages: garbage,
            maxCorrections: maybe(1),
            mode: maybe('prompt'),
            system: maybe('s'),
            name: maybe('n'),
            timeoutMs: maybe(1000),
            request: garbage,
          },
          { requiredKeys: [] },
        ),
        garbage,
        garbage,
        async (request, routes, reply) => {
          await typedOrSuccess(() => generateStructured(request as Loose, context))
          await typedOrSuccess(() => defineStructuredOutput(request as Loose))
          await typedOrSuccess(() => chooseRoute({ ...(request as object), routes } as Loose))
          await typedOrSuccess(() =>
            generateStructured({ model: async () => reply, schema, prompt: 'x' } as Loose, context),
          )
          await typedOrSuccess(() =>
            chooseRoute({
              model: async () => reply,
              routes: [{ name: 'a', description: '' }],
              prompt: 'x',
            } as Loose),
          )
          const output = defineStructuredOutput({ schema })
          const parsed = await output.parse(reply as Loose)
          expect(typeof parsed.ok).toBe('boolean')
        },
      ),
      { numRuns: 300 },
    )
  })
})
