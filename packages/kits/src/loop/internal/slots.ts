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
