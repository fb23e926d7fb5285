import { DOT_F64X2_WASM } from './dot-f64x2-wasm.js'
import { lazyWasmModule } from './wasm-module.js'

/**
 * VectorSearch's storage and its WebAssembly SIMD scoring kernel (dot-f64x2.wat). Vectors of a
 * dimension that is a multiple of 8 live in a WebAssembly memory of their own, of a fixed size (so views
 * on it never detach), laid out as
 *
 *   [ rows x dims float32: the vectors ][ dims float64: the query ][ rows float64: the scores ][ 64 bytes ]
 *
 * and a search scores them there, with the same float64 sums in the same order as the JavaScript loop
 * (`scoreAll` in vector-math.ts), so the scores are bit-for-bit the same. Anything the kernel cannot
 * serve (no WebAssembly or no SIMD, another dimension, a memory above 4 GiB, a small index) gets a plain
 * `Float32Array`, which the JavaScript loop scores. The last 64 bytes are where the word hash of the
 * vector stream (word-hash.ts) keeps its lanes while it hashes the vectors in place.
 */

/** Below this many float32 values (64 KiB) an index stays in a plain array: a memory of its own would cost more than it saves. */
const MIN_FLOATS = 16_384
const PAGE_BYTES = 65_536
/** A 32-bit WebAssembly memory holds at most 65,536 pages (4 GiB). */
const MAX_PAGES = 65_536

interface Kernel {
  readonly scores: (data: number, count: number, dims: number, query: number, out: number) => void
  /** The query, widened to float64, inside the memory. */
  readonly query: Float64Array
  /** The scores, inside the memory. */
  readonly out: Float64Array
  readonly memory: WebAssembly.Memory
  /** The byte offset of the 64 spare bytes at the end. */
  readonly spare: number
}

const kernels = new WeakMap<ArrayBufferLike, Kernel>()

/** The compiled kernel, or null when this runtime has no WebAssembly SIMD. */
const kernelModule = lazyWasmModule(DOT_F64X2_WASM)

/**
 * Room for `floats` float32 values (`floats / dimensions` vectors), zeroed: in a kernel's memory when the
 * kernel can score them, else a plain `Float32Array`.
 */
export function allocateVectors(floats: number, dimensions: number): Float32Array {
  if (floats < MIN_FLOATS || dimensions % 8 !== 0 || floats % dimensions !== 0)
    return new Float32Array(floats)
  const module = kernelModule()
  if (module === null) return new Float32Array(floats)
  const rows = floats / dimensions
  const queryByte = floats * 4
  const outByte = queryByte + dimensions * 8
  const spareByte = outByte + rows * 8
  const pages = Math.ceil((spareByte + 64) / PAGE_BYTES)
  if (pages > MAX_PAGES) return new Float32Array(floats)
  let memory: WebAssembly.Memory
  let instance: WebAssembly.Instance
  try {
    memory = new WebAssembly.Memory({ initial: pages, maximum: pages })
    instance = new WebAssembly.Instance(module, { env: { memory } })
  } catch {
    // Out of address space or memory for one more memory: the plain array may still fit.
    return new Float32Array(floats)
  }
  const { buffer } = memory
  kernels.set(buffer, {
    scores: instance.exports.scores as Kernel['scores'],
    query: new Float64Array(buffer, queryByte, dimensions),
    out: new Float64Array(buffer, outByte, rows),
    memory,
    spare: spareByte,
  })
  return new Float32Array(buffer, 0, floats)
}

/** True when `data` lives in a kernel's memory (bench and tests: which path a search takes). */
export function hasKernel(data: Float32Array): boolean {
  return kernels.has(data.buffer)
}

/**
 * The WebAssembly memory whose buffer is `buffer`, when it is a kernel's, and the byte offset of its 64
 * spare bytes (for the word hash).
 */
export function kernelMemory(
  buffer: ArrayBufferLike,
): { readonly memory: WebAssembly.Memory; readonly spare: number } | undefined {
  return kernels.get(buffer)
}

/**
 * The cosine scores of the first `count` vectors of `data` against the unit `query`, computed by the
 * kernel, or `undefined` when `data` has none (then use `scoreAll`). The returned array is the kernel's
 * own and is overwritten by the next call: read it before scoring again.
 */
export function kernelScores(
  data: Float32Array,
  count: number,
  dimensions: number,
  query: Float32Array,
): Float64Array | undefined {
  const kernel = kernels.get(data.buffer)
  if (kernel === undefined) return undefined
  // float32 to float64 is exact.
  kernel.query.set(query)
  kernel.scores(data.byteOffset, count, dimensions, kernel.query.byteOffset, kernel.out.byteOffset)
  return kernel.out
}
