import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AttemptBudget } from './attempt-budget.js'
import { AbortedError, BudgetExhaustedError, InvalidInputError } from './errors/errors.js'

describe('AttemptBudget', () => {
  it('accepts exactly n attempts, numbering them, then throws a typed error', () => {
    const budget = new AttemptBudget(2)
    expect(budget.take()).toEqual({ attempt: 1, limit: 2 })
    expect(budget.take({ label: 'draft' })).toEqual({ attempt: 2, limit: 2 })
    expect(() => budget.take({ label: 'draft' })).toThrow(BudgetExhaustedError)
    expect(budget.used).toBe(2)
    expect(budget.remaining).toBe(0)
    expect(budget.tryTake()).toBeUndefined()
  })

  it('consumes nothing for a pre-cancelled signal', () => {
    const budget = new AttemptBudget(1)
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    expect(() => budget.take({ signal: controller.signal })).toThrow(AbortedError)
    expect(() => budget.tryTake({ signal: controller.signal })).toThrow(AbortedError)
    expect(budget.used).toBe(0)
    expect(budget.take().attempt).toBe(1)
  })

  it('zero allows nothing', () => {
    expect(() => new AttemptBudget(0).take()).toThrow(BudgetExhaustedError)
  })

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '3', undefined, null, 3n])(
    'rejects limit %s',
    (bad) => {
      expect(() => new AttemptBudget(bad as number)).toThrow(InvalidInputError)
    },
  )

  it('is never refunded when the attempted call fails', async () => {
    const budget = new AttemptBudget(3)
    const attempt = async () => {
      budget.take()
      throw new Error('network')
    }
    await expect(attempt()).rejects.toThrow('network')
    expect(budget.used).toBe(1)
  })

  it('never accepts more than n among many concurrent callers (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 60 }),
        async (limit, delays) => {
          const budget = new AttemptBudget(limit)
          const accepted: number[] = []
          let exhausted = 0
          await Promise.all(
            delays.map(async (delay) => {
              for (let i = 0; i < delay; i++) await Promise.resolve()
              try {
                accepted.push(budget.take().attempt)
                await new Promise((r) => setTimeout(r, 0))
              } catch (error) {
                if (!BudgetExhaustedError.isInstance(error)) throw error
                exhausted++
              }
            }),
          )
          expect(accepted.length).toBe(Math.min(limit, delays.length))
          expect(new Set(accepted).size).toBe(accepted.length)
          expect(exhausted).toBe(delays.length - accepted.length)
          expect(budget.used).toBeLessThanOrEqual(limit)
        },
      ),
      { numRuns: 100 },
    )
  })
})
