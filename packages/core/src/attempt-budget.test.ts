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

  describe('takeMany', () => {
    it('takes consecutive attempts at once and numbers them', () => {
      const budget = new AttemptBudget(10)
      budget.take()
      expect(budget.takeMany(4, { label: 'child' })).toEqual({ first: 2, last: 5, count: 4, limit: 10 })
      expect(budget.take().attempt).toBe(6)
      expect(budget.takeMany(4)).toEqual({ first: 7, last: 10, count: 4, limit: 10 })
      expect(budget.remaining).toBe(0)
    })

    it('takes all or nothing, and says how many were left', () => {
      const budget = new AttemptBudget(5)
      budget.takeMany(3)
      let error: unknown
      try {
        budget.takeMany(3, { label: 'child "b"' })
      } catch (caught) {
        error = caught
      }
      expect(BudgetExhaustedError.isInstance(error)).toBe(true)
      expect((error as BudgetExhaustedError).details).toEqual({
        limit: 5,
        used: 3,
        label: 'child "b"',
        requested: 3,
      })
      expect((error as Error).message).toMatch(
        /2 attempt\(s\) left, fewer than the 3 asked for .*none were taken/,
      )
      expect(budget.used).toBe(3)
      expect(budget.takeMany(2).last).toBe(5)
    })

    it('consumes nothing for a pre-cancelled signal', () => {
      const budget = new AttemptBudget(3)
      expect(() => budget.takeMany(2, { signal: AbortSignal.abort() })).toThrow(AbortedError)
      expect(budget.used).toBe(0)
    })

    it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '2', undefined, null, 2n])(
      'rejects count %s and takes nothing',
      (bad) => {
        const budget = new AttemptBudget(3)
        expect(() => budget.takeMany(bad as number)).toThrow(InvalidInputError)
        expect(budget.used).toBe(0)
      },
    )

    it('never accepts more than the limit among concurrent take and takeMany callers (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 30 }),
          fc.array(
            fc.record({ delay: fc.integer({ min: 0, max: 5 }), count: fc.integer({ min: 1, max: 6 }) }),
            {
              minLength: 1,
              maxLength: 40,
            },
          ),
          async (limit, callers) => {
            const budget = new AttemptBudget(limit)
            const taken: number[] = []
            let refused = 0
            let accepted = 0
            await Promise.all(
              callers.map(async ({ delay, count }) => {
                for (let i = 0; i < delay; i++) await Promise.resolve()
                const before = budget.used
                try {
                  if (count === 1) {
                    taken.push(budget.take().attempt)
                    accepted++
                  } else {
                    const range = budget.takeMany(count)
                    expect(range.first).toBe(before + 1)
                    expect(range.last - range.first + 1).toBe(count)
                    for (let n = range.first; n <= range.last; n++) taken.push(n)
                    accepted++
                  }
                } catch (error) {
                  if (!BudgetExhaustedError.isInstance(error)) throw error
                  expect(budget.used).toBe(before) // all or nothing
                  expect(limit - before).toBeLessThan(count)
                  refused++
                }
              }),
            )
            // Every attempt number from 1 to used was handed out exactly once.
            expect([...taken].sort((a, b) => a - b)).toEqual(
              Array.from({ length: budget.used }, (_, i) => i + 1),
            )
            expect(budget.used).toBeLessThanOrEqual(limit)
            expect(accepted + refused).toBe(callers.length)
          },
        ),
        { numRuns: 200 },
      )
    })
  })
})
