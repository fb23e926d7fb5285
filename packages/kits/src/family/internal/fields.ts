/** True for an object that is neither null nor an array: core's one helper. */
export { isRecord } from '@agent-core/core'
