// The strict field reader lives in core; the kit's modules keep their short local names for it.
/** True for an object that is neither null nor an array: core's one helper. */
export {
  FieldReader as Fields,
  type FieldReaderKind as FieldsKind,
  isRecord,
  refuseField as refuse,
} from '@agent-core/core'
