import { describeValue, refuseField } from '@agent-core/core'

/**
 * A deduplication key a ledger has seen, with the retrieval it belongs to.
 * @example
 * ```ts
 * import type { SeenRetrievalKey } from '@agent-core/kits/retrieval'
 * const seen: SeenRetrievalKey = { retrievalId: 'docs', key: 'deploy to cloud foundry' }
 * ```
 */
export interface SeenRetrievalKey {
  readonly retrievalId: string
  readonly key: string
}

/**
 * A ledger's state as plain JSON, to persist it with the request and restore it later.
 * @example
 * ```ts
 * import { RetrievalLedger, type RetrievalLedgerSnapshot } from '@agent-core/kits/retrieval'
 * const snapshot: RetrievalLedgerSnapshot = new RetrievalLedger({ limit: 3 }).toJSON()
 * const restored = new RetrievalLedger(snapshot)
 * ```
 */
export interface RetrievalLedgerSnapshot {
  /** How many queries the request may start: a non-negative safe integer. */
  readonly limit: number
  /** How many it started: a non-negative safe integer, at most `limit`. */
  readonly queryCount: number
  /** How many source ids it allocated (`S1` ... `S<n>`). */
  readonly sourceCount: number
  /** Every key a query was started for. */
  readonly seen: readonly SeenRetrievalKey[]
}

/**
 * What {@link RetrievalLedger} takes: a limit, and optionally the rest of an earlier snapshot (`queryCount`,
 * `sourceCount`, `seen`), to resume a request where it stopped.
 * @example
 * ```ts
 * import { RetrievalLedger, type RetrievalLedgerInit } from '@agent-core/kits/retrieval'
 *
 * const fresh: RetrievalLedgerInit = { limit: 4 }
 * const resumed: RetrievalLedgerInit = { limit: 4, queryCount: 1, sourceCount: 3, seen: [{ retrievalId: 'docs', key: 'deploy' }] }
 * new RetrievalLedger(fresh).remaining // 4
 * new RetrievalLedger(resumed).has('docs', 'deploy') // true
 * ```
 */
export type RetrievalLedgerInit = Pick<RetrievalLedgerSnapshot, 'limit'> & Partial<RetrievalLedgerSnapshot>

function checkCount(value: unknown, field: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > max) {
    refuseField(
      'input',
      field,
      `must be a non-negative safe integer${max < Number.MAX_SAFE_INTEGER ? ` of at most ${max}` : ''}, but got ${describeValue(value)}`,
      value,
      { details: { min: 0, max } },
    )
  }
  return value
}

/** The ledger's own operations, reachable by the retrieval kit and no one else. */
export interface LedgerAccess {
  /** Starts a query for `key` if it is fresh and the limit has room; answers why not otherwise. */
  reserve(ledger: RetrievalLedger, retrievalId: string, key: string): 'reserved' | 'duplicate' | 'budget'
  /** Allocates `count` consecutive source ids. */
  allocateSourceIds(ledger: RetrievalLedger, count: number): readonly string[]
}

export let ledgerAccess: LedgerAccess

/**
 * The retrieval state and budget of one request: how many queries it may start (`limit`), how many it
 * started (`queryCount`), which keys it already read and how many source ids it handed out. The App creates
 * one per request and keeps it in its `context.app`; retrieval definitions find it there and never hold one
 * themselves. Only the retrieval kit changes it: a query is reserved atomically (deduplication first, then
 * the limit) and never given back, even when the read fails.
 *
 * @example
 * ```ts
 * import { RetrievalLedger } from '@agent-core/kits/retrieval'
 * const ledger = new RetrievalLedger({ limit: 5 })
 * ledger.remaining // 5
 * ledger.has('docs', 'deploy') // false
 * ```
 */
export class RetrievalLedger {
  /** The most queries the request may start. */
  readonly limit: number
  #queryCount: number
  #sourceCount: number
  readonly #seen = new Map<string, Set<string>>()

  static {
    ledgerAccess = {
      reserve(ledger, retrievalId, key) {
        if (ledger.has(retrievalId, key)) return 'duplicate'
        if (ledger.#queryCount >= ledger.limit) return 'budget'
        ledger.#queryCount += 1
        ledger.#remember(retrievalId, key)
        return 'reserved'
      },
      allocateSourceIds(ledger, count) {
        const ids: string[] = []
        for (let i = 0; i < count; i++) {
          ledger.#sourceCount += 1
          ids.push(`S${ledger.#sourceCount}`)
        }
        return ids
      },
    }
  }

  /**
   * @param init - `{ limit }` for a new request, or a {@link RetrievalLedgerSnapshot} to continue one
   * @throws `InvalidInputError` when a count is not a non-negative safe integer, `queryCount` exceeds
   *   `limit`, or a seen key is malformed
   */
  constructor(init: RetrievalLedgerInit) {
    if (typeof init !== 'object' || init === null) {
      refuseField(
        'input',
        'init',
        `must be { limit } (or a snapshot), but got ${describeValue(init)}`,
        init,
        { prefix: 'A retrieval ledger: ' },
      )
    }
    const { limit, queryCount = 0, sourceCount = 0, seen = [] } = init
    this.limit = checkCount(limit, 'limit')
    this.#queryCount = checkCount(queryCount, 'queryCount', this.limit)
    this.#sourceCount = checkCount(sourceCount, 'sourceCount')
    if (!Array.isArray(seen)) {
      refuseField(
        'input',
        'seen',
        `must be an array of { retrievalId, key }, but got ${describeValue(seen)}`,
        seen,
      )
    }
    for (const [index, entry] of seen.entries()) {
      const { retrievalId, key } = (
        typeof entry === 'object' && entry !== null ? entry : {}
      ) as Partial<SeenRetrievalKey>
      if (typeof retrievalId !== 'string' || retrievalId === '' || typeof key !== 'string') {
        refuseField(
          'input',
          `seen[${index}]`,
          `must be { retrievalId: non-empty string, key: string }, but got ${describeValue(entry)}`,
          entry,
        )
      }
      this.#remember(retrievalId, key)
    }
  }

  /** Queries started so far. */
  get queryCount(): number {
    return this.#queryCount
  }

  /** Queries that may still start. */
  get remaining(): number {
    return this.limit - this.#queryCount
  }

  /** Source ids handed out so far. */
  get sourceCount(): number {
    return this.#sourceCount
  }

  /** True when a query for `key` of retrieval `retrievalId` was started (whether or not it succeeded). */
  has(retrievalId: string, key: string): boolean {
    return this.#seen.get(retrievalId)?.has(key) === true
  }

  /** Every key a query was started for, in the order they were first seen. */
  seen(): readonly SeenRetrievalKey[] {
    return [...this.#seen].flatMap(([retrievalId, keys]) => [...keys].map((key) => ({ retrievalId, key })))
  }

  /** The state as plain JSON (see {@link RetrievalLedgerSnapshot}). */
  toJSON(): RetrievalLedgerSnapshot {
    return {
      limit: this.limit,
      queryCount: this.#queryCount,
      sourceCount: this.#sourceCount,
      seen: this.seen(),
    }
  }

  #remember(retrievalId: string, key: string): void {
    let keys = this.#seen.get(retrievalId)
    if (keys === undefined) {
      keys = new Set()
      this.#seen.set(retrievalId, keys)
    }
    keys.add(key)
  }
}
