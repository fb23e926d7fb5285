// The strict field reader lives in core; the kit's modules keep their short local names for it.
export {
  FieldReader as Fields,
  type FieldReaderKind as FieldsKind,
  refuseField as refuse,
} from '@agent-core/core'

/** True for an object that is neither null nor an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
