import assert from 'node:assert/strict'
import { createOperationContext, MemoryDiagnosticSink as DeprecatedSink } from '@agent-core/core'
import { MemoryDiagnosticSink } from '@agent-core/core/testing'

const memory = new MemoryDiagnosticSink()
const context = createOperationContext({ app: {}, diagnostics: memory.sink })
const span = context.diagnostics.child('checkout').span('charge', { orderId: 'A-17' })
span.end('ok')
assert.deepEqual(memory.kinds(['checkout']), ['charge-start', 'charge-end'])
assert.equal(memory.ofKind('charge-end')[0]?.data?.outcome, 'ok')
memory.clear()
assert.equal(memory.events.length, 0)
// The root export is the same class for one release.
assert.equal(DeprecatedSink, MemoryDiagnosticSink)
