import { abortedError } from '@agent-core/core'
import type pg from 'pg'

/**
 * A pool client checked out by the store. While checked out, a client has no listener of the pool's, so a
 * dropped socket would surface as an unhandled `'error'` event and crash the process: the session listens
 * for the whole checkout and records the failure instead. It goes back to the pool healthy only through
 * {@link Session.release}; anything doubtful goes through {@link Session.destroy}, which closes the
 * connection (and with it every session-level lock it might hold).
 */
export class Session {
  /** Why the connection is known to be gone, or `undefined` while it looks alive. */
  lost: unknown = undefined
  readonly client: pg.PoolClient
  #done = false
  readonly #lostController = new AbortController()
  readonly #onError = (error: unknown): void => {
    this.#markLost(error)
  }
  readonly #onEnd = (): void => {
    this.#markLost(new Error('Connection terminated unexpectedly'))
  }

  constructor(client: pg.PoolClient) {
    this.client = client
    client.on('error', this.#onError)
    client.on('end', this.#onEnd)
  }

  /** Aborts (with the connection's error as the reason) once the connection is known to be gone. */
  get lostSignal(): AbortSignal {
    return this.#lostController.signal
  }

  #markLost(reason: unknown): void {
    if (this.lost !== undefined) return
    this.lost = reason
    this.#lostController.abort(reason)
  }

  /** Returns a healthy connection to the pool (destroys it instead when it was lost). */
  release(): void {
    if (this.lost !== undefined) {
      this.destroy(this.lost)
      return
    }
    if (this.#done) return
    this.#done = true
    this.client.removeListener('error', this.#onError)
    this.client.removeListener('end', this.#onEnd)
    this.client.release()
  }

  /** Closes the connection instead of returning it to the pool. Keeps listening so late socket errors stay handled. */
  destroy(reason?: unknown): void {
    if (this.#done) return
    this.#done = true
    this.client.release(reason instanceof Error ? reason : true)
  }
}

/**
 * Checks out a pool client; when the signal aborts first, a client that arrives later is returned to the
 * pool unused, so an abandoned wait never leaks a connection.
 */
export async function checkout(
  pool: pg.Pool,
  signal: AbortSignal | undefined,
  point: string,
): Promise<Session> {
  if (signal?.aborted) throw abortedError(signal, point)
  const connecting = pool.connect()
  if (!signal) return new Session(await connecting)
  return new Promise<Session>((resolve, reject) => {
    const onAbort = () => {
      connecting.then(
        (client) => client.release(),
        () => {},
      )
      reject(abortedError(signal, point))
    }
    signal.addEventListener('abort', onAbort, { once: true })
    connecting.then(
      (client) => {
        signal.removeEventListener('abort', onAbort)
        resolve(new Session(client))
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/**
 * One FIFO queue per task id inside this process, in front of the database lock: concurrent `exclusive`
 * calls of one store on one task wait here instead of each holding a pooled connection that waits on the
 * server.
 */
export class LocalQueue {
  readonly #queues = new Map<string, Array<() => void>>()

  /** Waits for this process's turn on `taskId`; resolves to the function that gives the turn back. */
  async enter(taskId: string, signal: AbortSignal | undefined, point: string): Promise<() => void> {
    const queue = this.#queues.get(taskId)
    if (queue === undefined) {
      this.#queues.set(taskId, [])
      return this.#leaver(taskId)
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }
      const onAbort = () => {
        const index = queue.indexOf(grant)
        if (index >= 0) queue.splice(index, 1)
        reject(abortedError(signal as AbortSignal, point))
      }
      queue.push(grant)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
    return this.#leaver(taskId)
  }

  #leaver(taskId: string): () => void {
    let left = false
    return () => {
      if (left) return
      left = true
      const queue = this.#queues.get(taskId)
      const next = queue?.shift()
      if (next) next()
      else this.#queues.delete(taskId)
    }
  }
}
