import type { MockStreamStep } from '../mock-http.js'

const encoder = new TextEncoder()

/** A stream step that may be the finish chunk (for the duplicate-finish fault). */
export type RenderedStep = MockStreamStep & { readonly finish?: true }

/**
 * Renders SSE frames straight into one growing byte buffer: constant parts are encoded once and copied,
 * variable parts take an ASCII fast path. `steps()` returns one zero-copy view per frame, so a transport
 * can write consecutive frames as a single slice.
 */
export class FrameWriter {
  private buffer: Uint8Array
  private length = 0
  private readonly ends: number[] = []
  private readonly finishes = new Set<number>()

  /** @param capacity - the expected size in bytes (the buffer grows past it when needed) */
  constructor(capacity = 16 * 1024) {
    this.buffer = new Uint8Array(Math.max(1024, capacity))
  }

  /** Encodes a string that several frames repeat. */
  static encode(text: string): Uint8Array {
    return encoder.encode(text)
  }

  private ensure(extra: number): void {
    const needed = this.length + extra
    if (needed <= this.buffer.length) return
    let size = this.buffer.length * 2
    while (size < needed) size *= 2
    const next = new Uint8Array(size)
    next.set(this.buffer.subarray(0, this.length))
    this.buffer = next
  }

  bytes(bytes: Uint8Array): this {
    this.ensure(bytes.length)
    this.buffer.set(bytes, this.length)
    this.length += bytes.length
    return this
  }

  text(text: string): this {
    const n = text.length
    this.ensure(n * 3)
    const buffer = this.buffer
    let at = this.length
    for (let i = 0; i < n; i++) {
      const code = text.charCodeAt(i)
      if (code >= 0x80) {
        at += encoder.encodeInto(text.slice(i), buffer.subarray(at)).written
        break
      }
      buffer[at++] = code
    }
    this.length = at
    return this
  }

  /** Closes the current frame. */
  end(finish = false): this {
    if (finish) this.finishes.add(this.ends.length)
    this.ends.push(this.length)
    return this
  }

  /** The frames written so far. */
  frames(): PackedFrames {
    return new PackedFrames(this.buffer.subarray(0, this.length), this.ends, this.finishes)
  }
}

/**
 * A fully rendered stream: one byte buffer and the end offset of every frame. Iterating yields one
 * zero-copy view per frame (what fault injection needs); a transport that writes the whole stream at once
 * takes {@link PackedFrames.whole} and creates no views at all.
 */
export class PackedFrames implements Iterable<RenderedStep> {
  constructor(
    private readonly bytes: Uint8Array,
    private readonly ends: readonly number[],
    private readonly finishes: ReadonlySet<number>,
    private readonly onRelease?: () => void,
  ) {}

  /**
   * Tells the renderer that the transport has handed every byte to the system and will not read them
   * again, so the buffer may be reused. Optional: a transport that never calls it only costs allocations.
   */
  release(): void {
    this.onRelease?.()
  }

  /** Every frame, back to back. */
  whole(): Uint8Array {
    return this.bytes
  }

  /** The same frames over other bytes of the same length (a patched copy of a template). */
  withBytes(bytes: Uint8Array, onRelease?: () => void): PackedFrames {
    return new PackedFrames(bytes, this.ends, this.finishes, onRelease)
  }

  *[Symbol.iterator](): Iterator<RenderedStep> {
    let start = 0
    for (let i = 0; i < this.ends.length; i++) {
      const end = this.ends[i] as number
      const chunk = this.bytes.subarray(start, end)
      yield this.finishes.has(i) ? { type: 'data', chunk, finish: true } : { type: 'data', chunk }
      start = end
    }
  }
}
