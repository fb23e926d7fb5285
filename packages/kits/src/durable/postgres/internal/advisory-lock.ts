import { AgentCoreError, raceSignal, throwIfAborted } from '@agent-core/core'
import type pg from 'pg'
import { errorCode, storeFailure } from './failures.js'
import { checkout, type Session } from './sessions.js'

/**
 * Waits for a session-level advisory lock for at most one slice: `lock_timeout` is set for this statement
 * only (`set_config(..., true)` in a subquery that runs first), so the pooled connection keeps its settings.
 */
const LOCK_SQL =
  "SELECT pg_advisory_lock(hashtextextended($1, 0)) FROM (SELECT set_config('lock_timeout', $2, true) OFFSET 0) AS wait"
const UNLOCK_SQL = 'SELECT pg_advisory_unlock(hashtextextended($1, 0)) AS unlocked'
/** SQLSTATEs of a wait that ended without the lock: our lock_timeout slice, or a statement timeout/cancel. */
const WAIT_ENDED = new Set(['55P03', '57014'])

/** What {@link acquireAdvisoryLock} needs. */
export interface LockRequest {
  readonly pool: pg.Pool
  /** The lock's name; PostgreSQL hashes it to the 64-bit advisory key with `hashtextextended(key, 0)`. */
  readonly key: string
  readonly taskId: string
  readonly sliceMs: number
  readonly signal: AbortSignal | undefined
  /** Where an abort is reported, e.g. `waiting for the lease of task "t1"`. */
  readonly point: string
}

/**
 * Checks out a connection and takes the session-level advisory lock on it, waiting in slices until it is
 * granted or the signal aborts. On abort or failure the connection is closed (never returned to the pool),
 * which ends a server-side wait and drops a lock granted at the last moment.
 */
export async function acquireAdvisoryLock(request: LockRequest): Promise<Session> {
  const { pool, key, taskId, sliceMs, signal, point } = request
  let session: Session
  try {
    session = await checkout(pool, signal, point)
  } catch (error) {
    throw storeFailure(error, 'connect', taskId)
  }
  for (;;) {
    let waiting: Promise<unknown> | undefined
    try {
      throwIfAborted(signal, point)
      waiting = session.client.query(LOCK_SQL, [key, `${sliceMs}ms`])
      await raceSignal(waiting, signal, point)
      if (session.lost !== undefined) throw session.lost
      return session
    } catch (error) {
      if (
        !AgentCoreError.isInstance(error) &&
        WAIT_ENDED.has(errorCode(error) ?? '') &&
        session.lost === undefined
      ) {
        continue
      }
      if (waiting === undefined && session.lost === undefined) session.release()
      else session.destroy(error)
      throw AgentCoreError.isInstance(error) ? error : storeFailure(error, 'lock', taskId)
    }
  }
}

/**
 * Releases the lock and returns the connection to the pool, but only when the server confirms the unlock;
 * otherwise (lost connection, failed query, lock not held) it closes the connection, which is the one sure
 * way to drop whatever the session still holds. Never throws: the operation's outcome stands.
 */
export async function releaseAdvisoryLock(session: Session, key: string): Promise<void> {
  if (session.lost !== undefined) {
    session.destroy(session.lost)
    return
  }
  try {
    const result = await session.client.query<{ unlocked: boolean }>(UNLOCK_SQL, [key])
    if (result.rows[0]?.unlocked === true) session.release()
    else session.destroy()
  } catch (error) {
    session.destroy(error)
  }
}
