import { throwIfAborted } from '@agent-core/core'
import type { DurableLease, DurableLeaseHolder, DurableLeaseTakeover } from '@agent-core/kits/durable'
import { leaseLost } from '../internal/store-support.js'
import { HOST_ID, processIsGone } from './process-identity.js'
import type { LeaseRow, SqliteStatements } from './sqlite-schema.js'

/** How leases are timed. */
export interface LeaseTiming {
  readonly leaseMs: number
  readonly renewMs: number
  readonly pollMs: number
  readonly maxPollMs: number
}

/** A failure of a lease statement, classified: SQLite busy (try again) or anything else. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return (
    typeof code === 'string' &&
    (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED')
  )
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    function done(): void {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}

function holderOf(row: LeaseRow): DurableLeaseHolder {
  return {
    ownerId: row.owner,
    expiresAtMs: row.expires_at_ms,
    ...(row.host === null ? {} : { host: row.host }),
    ...(row.pid === null ? {} : { pid: row.pid }),
  }
}

/**
 * Takes the lease row of `taskId` for `ownerId`: at once when the row is free; by a compare-and-set on the
 * holder when its lease lapsed or its holder is a process of this host that no longer exists; otherwise
 * waits with exponential backoff and jitter, telling `report` who holds it on every poll.
 * `onFailure` turns a non-busy database error into the store's error.
 */
export async function acquireLease(
  sql: SqliteStatements,
  timing: LeaseTiming,
  taskId: string,
  ownerId: string,
  signal: AbortSignal | undefined,
  report: (holder: DurableLeaseHolder) => void,
  onFailure: (error: unknown) => Error,
): Promise<{ readonly takenOver?: DurableLeaseTakeover }> {
  let delay = timing.pollMs
  for (;;) {
    throwIfAborted(signal, `waiting for the lease of task "${taskId}"`)
    const now = Date.now()
    const expiresAtMs = now + timing.leaseMs
    let held: LeaseRow | undefined
    try {
      if (sql.acquire.run(taskId, ownerId, expiresAtMs, HOST_ID, process.pid).changes === 1) return {}
      held = sql.holder.get(taskId)
      // Released between the two statements: try again at once.
      if (held === undefined) continue
      const reason =
        held.expires_at_ms <= now
          ? 'expired'
          : held.host === HOST_ID && held.pid !== null && processIsGone(held.pid)
            ? 'holder-gone'
            : undefined
      if (
        reason !== undefined &&
        sql.takeOver.run(ownerId, expiresAtMs, HOST_ID, process.pid, taskId, held.owner).changes === 1
      ) {
        return { takenOver: { reason, previous: holderOf(held) } }
      }
    } catch (error) {
      if (!isBusy(error)) throw onFailure(error)
    }
    if (held !== undefined) report(holderOf(held))
    await sleep(delay / 2 + Math.random() * (delay / 2), signal)
    delay = Math.min(delay * 2, timing.maxPollMs)
  }
}

/** A lease row this store still owns after its hold ended, until it is handed to the next hold or deleted. */
export interface IdleLease {
  readonly taskId: string
  readonly ownerId: string
}

/**
 * Takes the lease of `taskId` for `ownerId` with one write by handing it a row this store already owns:
 * the task's own idle row (a new owner on it), or another task's idle row moved to `taskId` (an
 * `UPDATE OR IGNORE` of its key, which changes nothing while another holder has a row for `taskId`, or
 * once a waiter took the idle row over after it lapsed). True when the row is now `ownerId`'s.
 */
export function reuseIdleLease(
  sql: SqliteStatements,
  timing: LeaseTiming,
  idle: IdleLease,
  taskId: string,
  ownerId: string,
): boolean {
  const expiresAtMs = Date.now() + timing.leaseMs
  return (
    sql.reassign.run(taskId, ownerId, expiresAtMs, HOST_ID, process.pid, idle.taskId, idle.ownerId)
      .changes === 1
  )
}

/**
 * A lease this process holds: renewed every `renewMs`, with a signal that aborts as soon as the store can
 * no longer vouch for it: a renewal finds another owner in the row (or no row), a renewal fails with an
 * error other than "busy", or the lease lapses while renewals keep failing.
 */
export class HeldLease {
  readonly lease: DurableLease
  readonly #sql: SqliteStatements
  readonly #timing: LeaseTiming
  readonly #controller = new AbortController()
  readonly #renewal: ReturnType<typeof setInterval>
  #expiresAtMs: number

  constructor(
    sql: SqliteStatements,
    timing: LeaseTiming,
    taskId: string,
    ownerId: string,
    takenOver: DurableLeaseTakeover | undefined,
  ) {
    this.#sql = sql
    this.#timing = timing
    this.#expiresAtMs = Date.now() + timing.leaseMs
    this.lease = Object.freeze({
      taskId,
      ownerId,
      signal: this.#controller.signal,
      ...(takenOver === undefined ? {} : { takenOver }),
    })
    this.#renewal = setInterval(() => this.#renew(), timing.renewMs)
    this.#renewal.unref?.()
  }

  /** The holder as a waiter of this process sees it. */
  holder(): DurableLeaseHolder {
    return { ownerId: this.lease.ownerId, expiresAtMs: this.#expiresAtMs, host: HOST_ID, pid: process.pid }
  }

  /**
   * Stops renewing. Returns the row for the store to keep idle (handed to its next hold, or deleted at the
   * next turn of the event loop), or `undefined` when the lease was lost and the row is no longer this
   * holder's.
   */
  end(): IdleLease | undefined {
    clearInterval(this.#renewal)
    if (this.#controller.signal.aborted) return undefined
    return { taskId: this.lease.taskId, ownerId: this.lease.ownerId }
  }

  #renew(): void {
    const { taskId, ownerId } = this.lease
    const now = Date.now()
    try {
      if (this.#sql.renew.run(now + this.#timing.leaseMs, taskId, ownerId).changes === 1) {
        this.#expiresAtMs = now + this.#timing.leaseMs
        return
      }
      this.#lose('another owner took it over after it lapsed')
    } catch (error) {
      if (!isBusy(error)) this.#lose(`renewing it failed (${String(error)})`, error)
      else if (now >= this.#expiresAtMs) this.#lose('it lapsed while the database was busy', error)
    }
  }

  #lose(why: string, cause?: unknown): void {
    clearInterval(this.#renewal)
    this.#controller.abort(leaseLost(this.lease.taskId, this.lease.ownerId, why, cause))
  }
}
