import { BudgetExhaustedError } from './errors/errors.js'
import { throwIfAborted } from './sync.js'
import { assertSafeInteger } from './validate.js'

/**
 * What {@link AttemptBudget.take} returns: the 1-based number of the attempt it accepted, and the limit.
 * @example
 * ```ts
 * import { AttemptBudget, type AttemptTicket } from '@agent-core/core'
 * const ticket: AttemptTicket = new AttemptBudget(3).take()
 * console.log(`attempt ${ticket.attempt} of ${ticket.limit}`) // attempt 1 of 3
 * ```
 */
export interface AttemptTicket {
  readonly attempt: number
  readonly limit: number
}

/**
 * What {@link AttemptBudget.takeMany} returns: the consecutive attempts it accepted, `first` to `last`
 * (1-based, both included).
 * @example
 * ```ts
 * import type { AttemptRange } from '@agent-core/core'
 * const range: AttemptRange = { first: 3, last: 5, count: 3, limit: 10 }
 * ```
 */
export interface AttemptRange {
  readonly first: number
  readonly last: number
  readonly count: number
  readonly limit: number
}

/**
 * A call-attempt port: at most `limit` attempts are ever accepted.
 *
 * Resolving what to call, or finding the signal already aborted, consumes nothing. An accepted attempt
 * takes one unit synchronously (so atomically, before any I/O starts) and is never refunded, even when
 * the call then fails. Share one budget between bindings to meter them together.
 *
 * @example
 * ```ts
 * import { AttemptBudget } from '@agent-core/core'
 * declare const signal: AbortSignal
 * const budget = new AttemptBudget(2)
 * budget.take({ signal })   // attempt 1
 * budget.take({ signal })   // attempt 2
 * budget.take({ signal })   // throws BudgetExhaustedError
 * ```
 */
export class AttemptBudget {
  readonly limit: number
  #used = 0

  /** @param limit - how many attempts may be accepted; a non-negative safe integer */
  constructor(limit: number) {
    assertSafeInteger(limit, 'AttemptBudget limit', { min: 0 })
    this.limit = limit
  }

  /** Attempts accepted so far. */
  get used(): number {
    return this.#used
  }

  /** Attempts still available. */
  get remaining(): number {
    return this.limit - this.#used
  }

  /**
   * Accepts one attempt. Checks the signal first (an aborted signal consumes nothing), then the limit.
   * @throws {@link AbortedError} when the signal is aborted; {@link BudgetExhaustedError} when none is left
   */
  take(options: { readonly signal?: AbortSignal | undefined; readonly label?: string } = {}): AttemptTicket {
    throwIfAborted(options.signal, `before attempt${options.label ? ` "${options.label}"` : ''}`)
    if (this.#used >= this.limit) {
      throw new BudgetExhaustedError(
        `The attempt budget of ${this.limit} is used up${options.label ? ` (at "${options.label}")` : ''}. Give the run a larger AttemptBudget or stop retrying.`,
        { details: { limit: this.limit, used: this.#used, label: options.label } },
      )
    }
    this.#used += 1
    return { attempt: this.#used, limit: this.limit }
  }

  /**
   * Accepts `count` attempts at once, all or none: checks the signal (an aborted signal consumes nothing),
   * then that `count` attempts are left, then takes them in one synchronous step, so no other caller can
   * take one in between. Use it to hand a share of the budget to someone else (a child run gets
   * `new AttemptBudget(count)`); like every accepted attempt, the share is never refunded.
   * @param count - how many attempts to accept; a safe integer of at least 1
   * @throws {@link InvalidInputError} for a bad `count`; {@link AbortedError} when the signal is aborted;
   *   {@link BudgetExhaustedError} when fewer than `count` are left (then nothing is taken)
   * @example
   * ```ts
   * import { AttemptBudget } from '@agent-core/core'
   * const parent = new AttemptBudget(10)
   * parent.take() // attempt 1
   * const share = parent.takeMany(4, { label: 'child "research"' }) // { first: 2, last: 5, count: 4, limit: 10 }
   * const child = new AttemptBudget(share.count)
   * ```
   */
  takeMany(
    count: number,
    options: { readonly signal?: AbortSignal | undefined; readonly label?: string } = {},
  ): AttemptRange {
    assertSafeInteger(count, 'count', { min: 1 })
    throwIfAborted(options.signal, `before attempts${options.label ? ` "${options.label}"` : ''}`)
    if (this.limit - this.#used < count) {
      throw new BudgetExhaustedError(
        `The attempt budget of ${this.limit} has ${this.limit - this.#used} attempt(s) left, fewer than the ${count} asked for${options.label ? ` (at "${options.label}")` : ''}; none were taken. Ask for fewer or give the run a larger AttemptBudget.`,
        { details: { limit: this.limit, used: this.#used, label: options.label, requested: count } },
      )
    }
    const first = this.#used + 1
    this.#used += count
    return { first, last: this.#used, count, limit: this.limit }
  }

  /** Like {@link AttemptBudget.take} but returns `undefined` instead of throwing when none is left. */
  tryTake(
    options: { readonly signal?: AbortSignal | undefined; readonly label?: string } = {},
  ): AttemptTicket | undefined {
    throwIfAborted(options.signal, `before attempt${options.label ? ` "${options.label}"` : ''}`)
    if (this.#used >= this.limit) return undefined
    this.#used += 1
    return { attempt: this.#used, limit: this.limit }
  }
}
