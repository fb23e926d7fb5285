/** Garbage in, typed errors out: defineRetrieval, run and the ledger (property). */
import { AgentCoreError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppError, deepGarbage } from '../testing/garbage.js'
import { defineRetrieval, RetrievalLedger } from './index.js'

const settling = { then: (resolve: (value: unknown) => void) => resolve([]) }
const garbage: fc.Arbitrary<unknown> = deepGarbage(
  [
    settling,
    () => settling,
    () => Number.NaN,
    new AbortController().signal,
    new RetrievalLedger({ limit: 1 }),
  ],
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
    if (!AgentCoreError.isInstance(error))
      throw new Error(`expected an AgentCoreError, got ${String(error)}`, { cause: error })
    expect(AgentCoreError.isInstance(error)).toBe(true)
  }
}

// biome-ignore lint/suspicious/noExplicitAny: garbage goes through the public API on purpose
type Loose = any

describe('retrieval kit: garbage input (property)', () => {
  it('rejects garbage only with AgentCoreError', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            id: maybe('r'),
            mode: maybe(undefined),
            assertInput: maybe(() => undefined),
            key: maybe(() => 'k'),
            ledger: maybe((context: { app?: { ledger?: RetrievalLedger } }) => context.app?.ledger),
            authorize: maybe(undefined),
            execute: maybe(() => ['x']),
            assertResult: maybe(undefined),
            effects: maybe([{ id: 'e', apply: () => undefined }]),
            errors: maybe(undefined),
          },
          { requiredKeys: [] },
        ),
        garbage,
        fc.oneof(
          garbage,
          fc.record({ app: maybe({ ledger: 'fresh' }), signal: garbage, now: garbage }, { requiredKeys: [] }),
        ),
        garbage,
        async (definition, input, context, ledgerInit) => {
          await typedOrSuccess(() => new RetrievalLedger(ledgerInit as Loose))
          await typedOrSuccess(
            () => new RetrievalLedger({ limit: 3, queryCount: ledgerInit, seen: [ledgerInit] } as Loose),
          )
          let retrieval: { run(input: unknown, context: unknown): unknown } | undefined
          await typedOrSuccess(() => {
            retrieval = defineRetrieval(definition as Loose) as Loose
          })
          if (retrieval === undefined) return
          const run = retrieval.run
          const withLedger =
            typeof context === 'object' &&
            context !== null &&
            (context as { app?: unknown }).app !== undefined
              ? { ...(context as object), app: { ledger: new RetrievalLedger({ limit: 2 }) } }
              : context
          await typedOrSuccess(() => run(input, withLedger))
          await typedOrSuccess(() => run(input, context))
        },
      ),
      { numRuns: 400 },
    )
  })
})
