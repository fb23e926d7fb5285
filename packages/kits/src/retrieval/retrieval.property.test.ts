/**
 * queryCount never exceeds the quota, for any sequence (synchronous runs, against a reference model) and any
 * interleaving (asynchronous runs under fast-check's scheduler) of duplicate and fresh inputs.
 */
import { AgentCoreError, BudgetExhaustedError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DuplicateRetrievalError, defineRetrieval, RetrievalLedger } from './index.js'

interface Op {
  readonly retrieval: 0 | 1
  readonly key: string
  readonly authorized: boolean
  readonly readFails: boolean
}

const op: fc.Arbitrary<Op> = fc.record({
  retrieval: fc.constantFrom(0 as const, 1 as const),
  key: fc.constantFrom('a', 'b', 'c', 'd'),
  authorized: fc.oneof(
    { arbitrary: fc.constant(true), weight: 4 },
    { arbitrary: fc.constant(false), weight: 1 },
  ),
  readFails: fc.oneof(
    { arbitrary: fc.constant(false), weight: 4 },
    { arbitrary: fc.constant(true), weight: 1 },
  ),
})

class Refused extends Error {}
class ReadFailed extends Error {}

type Outcome = 'ok' | 'duplicate' | 'budget' | 'unauthorized' | 'read-failed'

function outcomeOf(error: unknown): Outcome {
  if (DuplicateRetrievalError.isInstance(error)) return 'duplicate'
  if (BudgetExhaustedError.isInstance(error)) return 'budget'
  if (error instanceof Refused) return 'unauthorized'
  if (error instanceof ReadFailed) return 'read-failed'
  throw error
}

interface App {
  readonly ledger: RetrievalLedger
}

function definitions(reads: string[]) {
  return [0, 1].map((index) =>
    defineRetrieval({
      id: `r${index}`,
      assertInput(input: unknown): asserts input is Op {
        if (typeof input !== 'object' || input === null) throw new TypeError('an op')
      },
      key: (input: Op) => input.key,
      ledger: (context: { app: App }) => context.app.ledger,
      authorize: (input: Op) => {
        if (!input.authorized) throw new Refused()
      },
      execute: (input: Op) => {
        reads.push(`r${index}:${input.key}`)
        if (input.readFails) throw new ReadFailed()
        return [input.key]
      },
    }),
  )
}

describe('retrieval quota (property)', () => {
  it('synchronous runs match the reference model: dedup, then budget, then authorization', () => {
    fc.assert(
      fc.property(fc.nat({ max: 5 }), fc.array(op, { maxLength: 25 }), (limit, ops) => {
        const reads: string[] = []
        const retrievals = definitions(reads)
        const app: App = { ledger: new RetrievalLedger({ limit }) }
        const seen = new Set<string>()
        let count = 0
        for (const step of ops) {
          const name = `r${step.retrieval}:${step.key}`
          let expected: Outcome
          if (seen.has(name)) expected = 'duplicate'
          else if (count >= limit) expected = 'budget'
          else if (!step.authorized) expected = 'unauthorized'
          else {
            count += 1
            seen.add(name)
            expected = step.readFails ? 'read-failed' : 'ok'
          }
          let actual: Outcome = 'ok'
          try {
            const receipt = retrievals[step.retrieval]?.run(step, { app })
            expect(receipt?.queryCount).toBe(count)
          } catch (error) {
            actual = outcomeOf(error)
          }
          expect(actual).toBe(expected)
          expect(app.ledger.queryCount).toBe(count)
          expect(app.ledger.queryCount).toBeLessThanOrEqual(limit)
        }
        expect(reads).toEqual([...seen])
      }),
      { numRuns: 500 },
    )
  })

  it('asynchronous runs never exceed the quota or read a key twice, for any interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.nat({ max: 5 }),
        fc.array(op, { maxLength: 14 }),
        async (s, limit, ops) => {
          const reads: string[] = []
          const app: App = { ledger: new RetrievalLedger({ limit }) }
          const retrievals = [0, 1].map((index) =>
            defineRetrieval({
              id: `r${index}`,
              mode: 'async',
              assertInput(input: unknown): asserts input is Op {
                if (typeof input !== 'object' || input === null) throw new TypeError('an op')
              },
              key: (input: Op) => input.key,
              ledger: (context: { app: App }) => context.app.ledger,
              authorize: (input: Op) =>
                s.schedule(Promise.resolve(), 'authorize').then(() => {
                  if (!input.authorized) throw new Refused()
                }),
              execute: (input: Op) => {
                reads.push(`r${index}:${input.key}`)
                expect(app.ledger.queryCount).toBeLessThanOrEqual(limit)
                return s.schedule(Promise.resolve(), 'read').then(() => {
                  if (input.readFails) throw new ReadFailed()
                  return [input.key]
                })
              },
            }),
          )
          const runs = ops.map((step) =>
            s.schedule(Promise.resolve(), 'start').then(() => retrievals[step.retrieval]?.run(step, { app })),
          )
          const settled = await s.waitFor(Promise.allSettled(runs))
          expect(app.ledger.queryCount).toBeLessThanOrEqual(limit)
          expect(reads.length).toBe(app.ledger.queryCount)
          expect(new Set(reads).size).toBe(reads.length)
          for (const result of settled) {
            if (result.status === 'rejected') {
              expect(AgentCoreError.isInstance(result.reason) || result.reason instanceof Error).toBe(true)
              outcomeOf(result.reason)
            } else {
              expect(result.value?.queryCount).toBeLessThanOrEqual(limit)
            }
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
