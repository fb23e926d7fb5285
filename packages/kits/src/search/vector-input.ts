/**
 * What a vector may be given as: exactly `dimensions` finite numbers, not all zero.
 *
 * @example
 * ```ts
 * import type { VectorInput } from '@agent-core/kits/search'
 * const fromJson: VectorInput = [0.12, -0.5, 0.33]
 * const fromModel: VectorInput = new Float32Array([0.12, -0.5, 0.33])
 * ```
 */
export type VectorInput = readonly number[] | Float32Array | Float64Array
