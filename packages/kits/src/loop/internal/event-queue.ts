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
