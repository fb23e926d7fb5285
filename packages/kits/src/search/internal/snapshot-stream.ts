/**
 * The binary snapshot container shared by the search indexes: a magic line, then records of
 * `[type: u8][length: u32 LE][payload]`, then an END record whose payload is the CRC-32 of every byte
 * before it. A writer never needs to know sizes in advance and a reader never holds more than one record
 * (vector records are copied straight into their destination), so a snapshot can be far larger than a
 * JavaScript string or a Buffer.
 *
 * With a split checksum (the vector stream's version 2, which its header announces), the CRC-32 covers
 * every byte before the END record except the FLOATS payloads, which the word hash (word-hash.ts) covers,
 * about four times faster; the END payload is then 8 bytes: the CRC-32, then the word hash.
 */
import { crc32 } from './node-builtins.js'
import { WordHash } from './word-hash.js'

/** The first bytes of every snapshot stream. */
export const MAGIC = new TextEncoder().encode('agent-core-snapshot\n')

/** Record types. */
export const RECORD = {
  /** JSON: the header (format, version, fingerprint, counts, ...). */
  HEADER: 1,
  /** A JSON array of items (documents or entries); a long list spans several records. */
  LINES: 2,
  /** Little-endian float32 values. */
  FLOATS: 3,
  /** JSON: one named part (e.g. the text index's snapshot). */
  PART: 4,
  /** Raw bytes: a piece of a nested snapshot stream. */
  RAW: 5,
  /**
   * The CRC-32 of everything before this record, as a u32 LE; with a split checksum, the CRC-32 of all
   * but the FLOATS payloads and then the word hash of those, 8 bytes.
   */
  END: 255,
} as const

/** The largest record payload the writer produces (the reader accepts up to `MAX_RECORD_BYTES`). */
export const CHUNK_BYTES = 4 * 1024 * 1024
/** Records larger than this are refused as corrupt before anything is allocated. */
export const MAX_RECORD_BYTES = 1024 * 1024 * 1024

const encoder = new TextEncoder()
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** Accumulates records and hands out finished byte chunks with a running CRC-32. */
export class RecordWriter {
  #crc = 0
  /** The word hash of the FLOATS payloads, when the checksum is split. */
  readonly #floatHash: WordHash | undefined

  /** `splitChecksum`: the FLOATS payloads go into a word hash instead of the CRC-32 (see the module). */
  constructor(options: { readonly splitChecksum?: boolean } = {}) {
    this.#floatHash = options.splitChecksum === true ? new WordHash() : undefined
  }

  /** The magic line. */
  start(): Uint8Array {
    return this.#track(MAGIC.slice())
  }

  /** One record holding `payload`. */
  record(type: number, payload: Uint8Array): Uint8Array {
    const out = new Uint8Array(5 + payload.length)
    out[0] = type
    new DataView(out.buffer).setUint32(1, payload.length, true)
    out.set(payload, 5)
    return this.#track(out)
  }

  /** One JSON record. */
  json(type: number, value: unknown): Uint8Array {
    return this.record(type, encoder.encode(JSON.stringify(value)))
  }

  /** LINES records: JSON arrays of the items, each record up to about {@link CHUNK_BYTES}. */
  *lines(items: Iterable<unknown>): Generator<Uint8Array> {
    let parts: string[] = []
    let size = 0
    for (const item of items) {
      const text = JSON.stringify(item)
      if (size > 0 && size + text.length > CHUNK_BYTES) {
        yield this.record(RECORD.LINES, encoder.encode(`[${parts.join(',')}]`))
        parts = []
        size = 0
      }
      parts.push(text)
      size += text.length + 1
    }
    if (size > 0) yield this.record(RECORD.LINES, encoder.encode(`[${parts.join(',')}]`))
  }

  /** FLOATS records of the first `length` values of `values` (copied, little-endian). */
  *floats(values: Float32Array, length: number): Generator<Uint8Array> {
    const per = CHUNK_BYTES / 4
    for (let from = 0; from < length; from += per) {
      const to = Math.min(length, from + per)
      const size = (to - from) * 4
      const out = new Uint8Array(5 + size)
      const view = new DataView(out.buffer)
      out[0] = RECORD.FLOATS
      view.setUint32(1, size, true)
      const source = new Uint8Array(values.buffer, values.byteOffset + from * 4, size)
      if (LITTLE_ENDIAN) out.set(source, 5)
      else for (let i = from; i < to; i++) view.setFloat32(5 + (i - from) * 4, values[i]!, true)
      if (this.#floatHash === undefined) yield this.#track(out)
      else {
        this.#crc = crc32(out.subarray(0, 5), this.#crc)
        // Hashed where the values live (in place in a kernel's memory) on little-endian hosts.
        this.#floatHash.update(LITTLE_ENDIAN ? source : out.subarray(5))
        yield out
      }
    }
  }

  /** The END record. */
  end(): Uint8Array {
    const size = this.#floatHash === undefined ? 4 : 8
    const out = new Uint8Array(5 + size)
    const view = new DataView(out.buffer)
    out[0] = RECORD.END
    view.setUint32(1, size, true)
    view.setUint32(5, this.#crc >>> 0, true)
    if (this.#floatHash !== undefined) view.setUint32(9, this.#floatHash.digest(), true)
    return out
  }

  #track(bytes: Uint8Array): Uint8Array {
    this.#crc = crc32(bytes, this.#crc)
    return bytes
  }
}

/** A problem with a snapshot stream; the index turns it into an InvalidStateError. */
export class CorruptStream extends Error {}

/** What a reader found in one record. */
export type StreamRecord =
  | { readonly type: typeof RECORD.HEADER | typeof RECORD.PART; readonly value: unknown }
  | { readonly type: typeof RECORD.RAW; readonly bytes: Uint8Array }
  | { readonly type: typeof RECORD.LINES; readonly lines: readonly unknown[] }
  | { readonly type: typeof RECORD.FLOATS; readonly length: number }

/**
 * Reads records from a byte source. FLOATS payloads are not returned: they are copied into the
 * destination that {@link RecordReader.floatsInto} names before reading on.
 */
export class RecordReader {
  readonly #source: AsyncIterator<Uint8Array> | Iterator<Uint8Array>
  #chunk: Uint8Array = new Uint8Array(0)
  #at = 0
  #crc = 0
  #done = false
  #floats: Float32Array | undefined
  #floatsAt = 0
  /** The word hash of the FLOATS payloads, once {@link RecordReader.splitChecksum} was called. */
  #floatHash: WordHash | undefined
  readonly #decoder = new TextDecoder('utf-8', { fatal: true })

  constructor(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>) {
    if (!isByteSource(source))
      throw new CorruptStream('the source is neither an iterable nor an async iterable of bytes')
    const asyncIterator = (source as Partial<AsyncIterable<Uint8Array>>)[Symbol.asyncIterator]
    const iterator = (source as Partial<Iterable<Uint8Array>>)[Symbol.iterator]
    if (typeof asyncIterator === 'function') this.#source = asyncIterator.call(source)
    else if (typeof iterator === 'function') this.#source = iterator.call(source)
    else throw new CorruptStream('the source is neither an iterable nor an async iterable of bytes')
  }

  /** Where FLOATS records go, and how many floats fit there. */
  floatsInto(target: Float32Array): void {
    this.#floats = target
    this.#floatsAt = 0
  }

  /**
   * From now on the FLOATS payloads go into the word hash instead of the CRC-32, and the END record holds
   * both (the vector stream's version 2). Call it before the first FLOATS record.
   */
  splitChecksum(): void {
    this.#floatHash ??= new WordHash()
  }

  /** How many floats FLOATS records have written so far. */
  get floatsWritten(): number {
    return this.#floatsAt
  }

  /** Checks the magic line. */
  async start(): Promise<void> {
    const magic = await this.#read(MAGIC.length)
    if (!magic.every((byte, i) => byte === MAGIC[i]))
      throw new CorruptStream('it does not start like a snapshot')
  }

  /** The next record, or `undefined` after a valid END record (then the source must be exhausted). */
  async next(): Promise<StreamRecord | undefined> {
    const head = await this.#read(5, false)
    const type = head[0]!
    const length = new DataView(head.buffer, head.byteOffset, 5).getUint32(1, true)
    if (length > MAX_RECORD_BYTES) throw new CorruptStream(`a record claims ${length} bytes`)
    if (type === RECORD.END) {
      const expected = this.#crc >>> 0
      const payload = await this.#read(length, false)
      if (length !== (this.#floatHash === undefined ? 4 : 8))
        throw new CorruptStream('the end record is malformed')
      const view = new DataView(payload.buffer, payload.byteOffset, length)
      if (
        view.getUint32(0, true) !== expected ||
        (this.#floatHash !== undefined && view.getUint32(4, true) !== this.#floatHash.digest())
      )
        throw new CorruptStream('its checksum does not match its content')
      if (!(await this.#exhausted())) throw new CorruptStream('there are bytes after its end record')
      return undefined
    }
    this.#crc = crc32(head, this.#crc)
    if (type === RECORD.FLOATS) {
      if (length % 4 !== 0) throw new CorruptStream('a float record has a partial float')
      const target = this.#floats
      const count = length / 4
      if (target === undefined || this.#floatsAt + count > target.length)
        throw new CorruptStream('it holds more vector values than its header announces')
      await this.#readInto(target, this.#floatsAt, length)
      this.#floatsAt += count
      return { type, length: count }
    }
    const payload = await this.#read(length)
    if (type === RECORD.RAW) return { type, bytes: payload }
    let text: string
    try {
      text = this.#decoder.decode(payload)
    } catch {
      throw new CorruptStream('a record is not valid UTF-8')
    }
    try {
      if (type === RECORD.HEADER || type === RECORD.PART) return { type, value: JSON.parse(text) }
      if (type === RECORD.LINES) {
        const lines: unknown = JSON.parse(text)
        if (!Array.isArray(lines)) throw new CorruptStream('a list record does not hold a JSON array')
        return { type, lines }
      }
    } catch (error) {
      if (error instanceof CorruptStream) throw error
      throw new CorruptStream(`a record is not valid JSON (${(error as Error).message})`)
    }
    throw new CorruptStream(`it has a record of unknown type ${type}`)
  }

  async #pull(): Promise<boolean> {
    if (this.#done) return false
    const step = await this.#source.next()
    if (step.done) {
      this.#done = true
      return false
    }
    const value: unknown = step.value
    if (!(value instanceof Uint8Array))
      throw new CorruptStream('the source yielded something else than bytes')
    this.#chunk = value
    this.#at = 0
    return true
  }

  async #exhausted(): Promise<boolean> {
    while (this.#at >= this.#chunk.length) if (!(await this.#pull())) return true
    return false
  }

  /** The next `n` bytes (a copy), counted into the CRC unless `track` is false. */
  async #read(n: number, track = true): Promise<Uint8Array> {
    const out = new Uint8Array(n)
    let filled = 0
    while (filled < n) {
      if (this.#at >= this.#chunk.length && !(await this.#pull()))
        throw new CorruptStream('it ends in the middle of a record')
      const take = Math.min(n - filled, this.#chunk.length - this.#at)
      out.set(this.#chunk.subarray(this.#at, this.#at + take), filled)
      this.#at += take
      filled += take
    }
    if (track) this.#crc = crc32(out, this.#crc)
    return out
  }

  /** Copies the next `bytes` bytes (little-endian floats) into `target` from float `offset`. */
  async #readInto(target: Float32Array, offset: number, bytes: number): Promise<void> {
    const hash = this.#floatHash
    if (!LITTLE_ENDIAN) {
      const copy = await this.#read(bytes, hash === undefined)
      hash?.update(copy)
      const view = new DataView(copy.buffer)
      for (let i = 0; i < bytes; i += 4) target[offset + i / 4] = view.getFloat32(i, true)
      return
    }
    let done = 0
    while (done < bytes) {
      if (this.#at >= this.#chunk.length && !(await this.#pull()))
        throw new CorruptStream('it ends in the middle of a record')
      const take = Math.min(bytes - done, this.#chunk.length - this.#at)
      const piece = this.#chunk.subarray(this.#at, this.#at + take)
      const into = new Uint8Array(target.buffer, target.byteOffset + offset * 4 + done, take)
      into.set(piece)
      // The word hash reads the copy, in place when the target lives in a kernel's memory.
      if (hash === undefined) this.#crc = crc32(piece, this.#crc)
      else hash.update(into)
      this.#at += take
      done += take
    }
  }
}

/** True for an iterable or async iterable (what a snapshot can be read from). */
export function isByteSource(value: unknown): value is AsyncIterable<Uint8Array> | Iterable<Uint8Array> {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false
  return (
    typeof (value as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] === 'function' ||
    typeof (value as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function'
  )
}
