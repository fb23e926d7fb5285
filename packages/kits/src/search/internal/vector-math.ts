import { describeValue, InvalidInputError } from '@agent-core/core'

/** What a vector may be given as. */
export type VectorInput = readonly number[] | Float32Array | Float64Array

/**
 * Checks `value` (exactly `dimensions` finite numbers, not all zero, no holes) and writes its unit-length
 * version to `target` from `offset`. The norm is computed on values scaled by their largest magnitude, so
 * very large or very small vectors neither overflow nor underflow.
 */
export function writeNormalized(
  value: unknown,
  dimensions: number,
  target: Float32Array,
  offset: number,
  where: string,
): void {
  const isArray = Array.isArray(value)
  if (!isArray && !(value instanceof Float32Array) && !(value instanceof Float64Array)) {
    throw new InvalidInputError(
      `${where} must be an array, Float32Array or Float64Array of ${dimensions} numbers, but got ${describeValue(value)}.`,
      { details: { where, dimensions, received: describeValue(value) } },
    )
  }
  const vector = value as ArrayLike<number>
  if (vector.length !== dimensions) {
    throw new InvalidInputError(
      `${where} has ${vector.length} dimensions, but this VectorSearch expects ${dimensions}. Embed with the model the index was built for.`,
      { details: { where, dimensions, received: vector.length } },
    )
  }
  // Copy into one Float64Array first, so that the checks and the arithmetic below always see the same
  // element kind (fast, monomorphic code) whatever the caller passed.
  const scratch = scratchOf(dimensions)
  if (isArray) {
    const array = value as readonly unknown[]
    for (let i = 0; i < dimensions; i++) {
      const x = array[i]
      if (typeof x !== 'number') badDimension(where, i, i in array ? x : HOLE)
      scratch[i] = x
    }
  } else {
    scratch.set(value as Float32Array | Float64Array)
  }
  let maxAbs = 0
  for (let i = 0; i < dimensions; i++) {
    const x = scratch[i]!
    // False for NaN and ±Infinity.
    if (!(x - x === 0)) badDimension(where, i, x)
    const abs = x < 0 ? -x : x
    if (abs > maxAbs) maxAbs = abs
  }
  if (maxAbs === 0) {
    throw new InvalidInputError(`${where} is all zeros, so it has no direction for cosine similarity.`, {
      details: { where },
    })
  }
  let sum = 0
  for (let i = 0; i < dimensions; i++) {
    const x = scratch[i]! / maxAbs
    sum += x * x
  }
  const scale = 1 / (maxAbs * Math.sqrt(sum))
  if (Number.isFinite(scale)) {
    for (let i = 0; i < dimensions; i++) target[offset + i] = scratch[i]! * scale
  } else {
    // maxAbs below ~1e-308: dividing first keeps the values representable.
    const norm = Math.sqrt(sum)
    for (let i = 0; i < dimensions; i++) target[offset + i] = scratch[i]! / maxAbs / norm
  }
}

const HOLE = Symbol('hole')
let scratchBuffer = new Float64Array(1024)

function scratchOf(dimensions: number): Float64Array {
  if (scratchBuffer.length < dimensions) scratchBuffer = new Float64Array(dimensions)
  return scratchBuffer
}

function badDimension(where: string, index: number, value: unknown): never {
  const hole = value === HOLE
  throw new InvalidInputError(
    hole
      ? `${where} is a sparse array: dimension ${index} has no value. Give every dimension a finite number.`
      : `${where} dimension ${index} is ${describeValue(value)}; every dimension must be a finite number.`,
    { details: { where, index, received: hole ? 'hole' : describeValue(value) } },
  )
}

/**
 * Writes the dot product of `query` with each of the first `count` rows of `data` (row length
 * `dimensions`) to `out`. Four independent accumulators let the CPU pipeline the multiply-adds; when
 * `dimensions` is a multiple of 8 (384, 768, 1024, 1536, ...), each accumulator takes two products per
 * step, which measured about 12% faster than one (bench/search).
 */
export function scoreAll(
  data: Float32Array,
  count: number,
  dimensions: number,
  query: Float32Array,
  out: Float64Array,
): void {
  if ((dimensions & 7) === 0) scoreAllBy8(data, count, dimensions, query, out)
  else scoreAllAnyLength(data, count, dimensions, query, out)
}

function scoreAllBy8(
  data: Float32Array,
  count: number,
  dimensions: number,
  query: Float32Array,
  out: Float64Array,
) {
  for (let row = 0, base = 0; row < count; row++, base += dimensions) {
    let s0 = 0
    let s1 = 0
    let s2 = 0
    let s3 = 0
    for (let j = 0; j < dimensions; j += 8) {
      const b = base + j
      s0 += query[j]! * data[b]! + query[j + 4]! * data[b + 4]!
      s1 += query[j + 1]! * data[b + 1]! + query[j + 5]! * data[b + 5]!
      s2 += query[j + 2]! * data[b + 2]! + query[j + 6]! * data[b + 6]!
      s3 += query[j + 3]! * data[b + 3]! + query[j + 7]! * data[b + 7]!
    }
    out[row] = s0 + s1 + (s2 + s3)
  }
}

function scoreAllAnyLength(
  data: Float32Array,
  count: number,
  dimensions: number,
  query: Float32Array,
  out: Float64Array,
) {
  const body = dimensions - (dimensions & 3)
  for (let row = 0, base = 0; row < count; row++, base += dimensions) {
    let s0 = 0
    let s1 = 0
    let s2 = 0
    let s3 = 0
    let j = 0
    for (; j < body; j += 4) {
      s0 += query[j]! * data[base + j]!
      s1 += query[j + 1]! * data[base + j + 1]!
      s2 += query[j + 2]! * data[base + j + 2]!
      s3 += query[j + 3]! * data[base + j + 3]!
    }
    for (; j < dimensions; j++) s0 += query[j]! * data[base + j]!
    out[row] = s0 + s1 + (s2 + s3)
  }
}
