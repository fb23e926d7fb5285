/**
 * Normalization: bring a value into shape with sequential, synchronous steps. Each step may have a `when`
 * condition, and an optional `isComplete` decision ends the run as soon as the value needs nothing more.
 * Falsy values (`0`, `false`, `''`) are preserved like any other value, never treated as missing. The
 * second argument of `normalize` is an algorithm context the caller declares; there is no signal or
 * lifecycle.
 *
 * @example
 * ```ts
 * import { defineNormalization } from '@agent-core/kits/normalization'
 * const count = defineNormalization<unknown>({
 *   steps: [{ id: 'parse', when: (v) => typeof v === 'string', transform: (v) => Number.parseInt(v as string, 10) }],
 *   isComplete: (v) => Number.isSafeInteger(v),
 * })
 * count.normalize('0') // { value: 0, complete: true, appliedStepIds: ['parse'] }
 * ```
 *
 * @module
 */
export {
  defineNormalization,
  type Normalization,
  type NormalizationContextArgs,
  type NormalizationDefinition,
  type NormalizationResult,
  type NormalizationStep,
} from './normalization.js'
