/**
 * The attempt budget is never overdrawn under concurrent invokes, for any interleaving: fast-check's
 * scheduler decides when each call starts and when each binding answers.
 */
import { AttemptBudget, BudgetExhaustedError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { defineModelBinding, ModelCalls, ModelProviderError, withRetry } from './index.js'

interface CallPlan {
  readonly aborted: boolean
  readonly validInput: boolean
  readonly fails: boolean
}

const callPlan: fc.Arbitrary<CallPlan> = fc.record({
  aborted: fc.oneof(
    { arbitrary: fc.constant(false), weight: 5 },
    { arbitrary: fc.constant(true), weight: 1 },
  ),
  validInput: fc.oneof(
    { arbitrary: fc.constant(true), weight: 5 },
    { arbitrary: fc.constant(false), weight: 1 },
  ),
  fails: fc.boolean(),
})

describe('attempt budget under concurrent invokes (property)', () => {
  it('accepts exactly min(limit, eligible calls) attempts, each once, for any interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.nat({ max: 6 }),
        fc.array(callPlan, { maxLength: 12 }),
        async (s, limit, plans) => {
          const budget = new AttemptBudget(limit)
          let invocations = 0
          const binding = defineModelBinding({
            id: 'm',
            identity: 'scheduled',
            assertInput(input: unknown): asserts input is CallPlan {
              if (!(input as CallPlan).validInput) throw new TypeError('bad input')
            },
            invoke: (plan: CallPlan, context) => {
              invocations += 1
              // Every accepted call took its attempt before its I/O started.
              expect(budget.used).toBeGreaterThanOrEqual(invocations)
              expect(context.attemptBudget).toBe(budget)
              return s.schedule(Promise.resolve(), 'answer').then(() => {
                if (plan.fails) throw new Error('provider failed')
                return 'done'
              })
            },
          })
          const models = new ModelCalls([binding])
          const aborted = new AbortController()
          aborted.abort()
          const calls = plans.map((plan) =>
            s
              .schedule(Promise.resolve(), 'start')
              .then(() =>
                models.invoke(
                  { modelId: 'm', input: plan, timeoutMs: 60_000 },
                  { attemptBudget: budget, ...(plan.aborted ? { signal: aborted.signal } : {}) },
                ),
              ),
          )
          const settled = await s.waitFor(Promise.allSettled(calls))
          const eligible = plans.filter((plan) => !plan.aborted && plan.validInput).length
          expect(budget.used).toBeLessThanOrEqual(limit)
          expect(invocations).toBe(budget.used)
          expect(budget.used).toBe(Math.min(limit, eligible))
          const exhausted = settled.filter(
            (result) => result.status === 'rejected' && BudgetExhaustedError.isInstance(result.reason),
          ).length
          expect(exhausted).toBe(Math.max(0, eligible - limit))
          const tickets = settled.flatMap((result) =>
            result.status === 'fulfilled' ? [result.value.invocation.attempt?.attempt] : [],
          )
          expect(new Set(tickets).size).toBe(tickets.length)
        },
      ),
      { numRuns: 200 },
    )
  })

  it('retries through withRetry never overdraw the shared budget either', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 8 }),
        fc.array(fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 8 }),
        async (limit, outcomes, delays) => {
          const budget = new AttemptBudget(limit)
          let httpAttempts = 0
          let delayIndex = 0
          const flaky = defineModelBinding({
            id: 'flaky',
            identity: 'flaky',
            invoke: async (script: boolean[]) => {
              httpAttempts += 1
              expect(budget.used).toBeLessThanOrEqual(limit)
              const delay = delays[delayIndex++ % delays.length] ?? 0
              await new Promise((resolve) => setTimeout(resolve, delay))
              const ok = script.shift() ?? true
              if (!ok) throw new ModelProviderError('overloaded', { status: 503, retryAfterMs: 0 })
              return 'ok'
            },
          })
          const models = new ModelCalls([withRetry(flaky, { maxAttempts: 5 })])
          await Promise.allSettled(
            outcomes.map((script) =>
              models.invoke(
                { modelId: 'flaky', input: [...script], timeoutMs: 10_000 },
                { attemptBudget: budget },
              ),
            ),
          )
          expect(budget.used).toBeLessThanOrEqual(limit)
          expect(httpAttempts).toBe(budget.used)
        },
      ),
      { numRuns: 60 },
    )
  })
})
