/** A counting semaphore: at most `limit` tasks run at once; the others wait in arrival order. */
export class Slots {
  #free: number
  readonly #waiting: (() => void)[] = []

  constructor(limit: number) {
    this.#free = limit
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    // A free slot is taken without an `await` (awaiting `undefined` would still cost a tick).
    const waiting = this.acquire()
    if (waiting !== undefined) await waiting
    try {
      return await task()
    } finally {
      this.release()
    }
  }

  /** Takes a slot (waits in arrival order while none is free). */
  acquire(): Promise<void> | undefined {
    if (this.#free > 0) {
      this.#free--
      return undefined
    }
    return new Promise<void>((resolve) => this.#waiting.push(resolve))
  }

  /** Gives a slot back (to the next task waiting, if any); a task may give it back while it waits and take one again. */
  release(): void {
    const next = this.#waiting.shift()
    if (next) next()
    else this.#free++
  }
}

/** An unbounded queue read as an async iterable; `close` ends it, `fail` ends it with an error. */
export class EventQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = []
  #wake: (() => void) | undefined
  #closed = false
  #error: { readonly error: unknown } | undefined
  #detached = false

  push(item: T): void {
    if (this.#closed || this.#detached) return
    this.#items.push(item)
    this.#wake?.()
  }

  close(): void {
    this.#closed = true
    this.#wake?.()
  }

  fail(error: unknown): void {
    this.#error = { error }
    this.close()
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    try {
      for (;;) {
        if (this.#items.length > 0) {
          yield this.#items.shift() as T
          continue
        }
        if (this.#closed) {
          if (this.#error) throw this.#error.error
          return
        }
        await new Promise<void>((resolve) => {
          this.#wake = resolve
        })
        this.#wake = undefined
      }
    } finally {
      // A consumer that stops early detaches; the run goes on and its result still resolves.
      this.#detached = true
      this.#items.length = 0
    }
  }
}
