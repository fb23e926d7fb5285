import { DOT_I8X16_WASM } from './dot-i8x16-wasm.js'
import { lazyWasmModule } from './wasm-module.js'

/**
 * The int8 copy of VectorSearch's unit vectors for `precision: 'int8'`: each vector is scaled by its own
 * largest magnitude to [-127, 127] and rounded (symmetric scalar quantization), the query likewise, and
 * an approximate cosine is the integer dot product times both scales. The integer dot products come from a
 * WebAssembly SIMD kernel (dot-i8x16.wat) when the dimension is a multiple of 16 and the runtime has SIMD,
 * else from a JavaScript loop that computes the same integers. The copy is a quarter of the float32
 * vectors' size and is rebuilt from them when the index changed since it was made.
 */

const PAGE_BYTES = 65_536
const MAX_PAGES = 65_536

type Kernel = (data: number, count: number, dims: number, query: number, out: number) => void

const kernelModule = lazyWasmModule(DOT_I8X16_WASM)

/** Quantizes `dims` values of `source` from `offset` into `target` at `at`; returns the scale. */
function quantize(source: Float32Array, offset: number, dims: number, target: Int8Array, at: number): number {
  let max = 0
  for (let i = 0; i < dims; i++) {
    const v = Math.abs(source[offset + i]!)
    if (v > max) max = v
  }
  if (max === 0) return 0
  const factor = 127 / max
  for (let i = 0; i < dims; i++) target[at + i] = Math.round(source[offset + i]! * factor)
  return max / 127
}

/** The integer dot products of `count` rows of `data` with `query` (the JavaScript path). */
export function int8DotAll(
  data: Int8Array,
  count: number,
  dims: number,
  query: Int8Array,
  out: Int32Array,
): void {
  for (let row = 0, base = 0; row < count; row++, base += dims) {
    let sum = 0
    for (let j = 0; j < dims; j++) sum += data[base + j]! * query[j]!
    out[row] = sum
  }
}

/** An int8 copy of the first `count` vectors of an index, made at one version of it. */
export class Int8Vectors {
  readonly version: number
  readonly count: number
  readonly dims: number
  readonly #data: Int8Array
  readonly #scales: Float64Array
  readonly #query: Int8Array
  readonly #dots: Int32Array
  readonly #kernel: Kernel | undefined

  constructor(vectors: Float32Array, count: number, dims: number, version: number) {
    this.version = version
    this.count = count
    this.dims = dims
    const floats = count * dims
    const module = dims % 16 === 0 ? kernelModule() : null
    // [ count x dims int8: the vectors ][ dims int8: the query ][ pad to 4 ][ count int32: the dots ]
    const dotsAt = Math.ceil((floats + dims) / 4) * 4
    const bytes = dotsAt + count * 4
    const pages = Math.ceil(bytes / PAGE_BYTES)
    let buffer: ArrayBuffer | undefined
    let kernel: Kernel | undefined
    if (module !== null && pages <= MAX_PAGES) {
      try {
        const memory = new WebAssembly.Memory({ initial: pages, maximum: pages })
        const instance = new WebAssembly.Instance(module, { env: { memory } })
        kernel = instance.exports.scores as Kernel
        buffer = memory.buffer
      } catch {
        // Out of memory for one more WebAssembly memory: the JavaScript loop computes the same dots.
        kernel = undefined
      }
    }
    this.#kernel = kernel
    buffer ??= new ArrayBuffer(bytes)
    this.#data = new Int8Array(buffer, 0, floats)
    this.#query = new Int8Array(buffer, floats, dims)
    this.#dots = new Int32Array(buffer, dotsAt, count)
    this.#scales = new Float64Array(count)
    for (let row = 0; row < count; row++)
      this.#scales[row] = quantize(vectors, row * dims, dims, this.#data, row * dims)
  }

  /** For tests and the bench: whether the WebAssembly kernel scores this copy. */
  get kernel(): boolean {
    return this.#kernel !== undefined
  }

  /** Approximate cosine scores of every row against the unit `query`, into `out[0 .. count)`. */
  scores(query: Float32Array, out: Float64Array): void {
    const queryScale = quantize(query, 0, this.dims, this.#query, 0)
    if (this.#kernel !== undefined) {
      this.#kernel(
        this.#data.byteOffset,
        this.count,
        this.dims,
        this.#query.byteOffset,
        this.#dots.byteOffset,
      )
    } else int8DotAll(this.#data, this.count, this.dims, this.#query, this.#dots)
    const dots = this.#dots
    const scales = this.#scales
    for (let row = 0; row < this.count; row++) out[row] = dots[row]! * scales[row]! * queryScale
  }
}
