/**
 * Test kits of `@agent-core/core`, framework-neutral: {@link MemoryDiagnosticSink} collects the diagnostic
 * events of the code under test so a test can assert on them. Nothing here is needed in production code.
 *
 * @example
 * ```ts
 * import { createDiagnostics } from '@agent-core/core'
 * import { MemoryDiagnosticSink } from '@agent-core/core/testing'
 * const memory = new MemoryDiagnosticSink()
 * createDiagnostics({ sink: memory.sink }).child('loop').emit('turn-start', { turn: 1 })
 * memory.kinds(['loop']) // ['turn-start']
 * ```
 *
 * @module
 */
export { MemoryDiagnosticSink } from './memory-diagnostic-sink.js'
