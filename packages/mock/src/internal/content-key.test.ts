import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { contentKeyOf } from './content-key.js'
import type { NormalizedRequest } from './normalize.js'

/** The content key as one `JSON.stringify` of the array: the reference the piecewise form must equal. */
function referenceKey(request: NormalizedRequest): string {
  return JSON.stringify([
    request.model,
    request.messages,
    request.tools.map((t) => t.name),
    request.format.type,
    request.format.type === 'json_schema' ? request.format.schema : null,
  ])
}

describe('contentKeyOf', () => {
  it('equals the JSON text of [model, messages, tool names, format type, schema] for any request', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }))
    const call = fc.record({ id: text, name: text, arguments: text })
    const message = fc.oneof(
      fc.record({ role: text, text }),
      fc.record({ role: text, text, toolCalls: fc.array(call, { maxLength: 2 }) }),
      fc.record({ role: text, text, toolCallId: text }),
    )
    const format = fc.oneof(
      fc.constant({ type: 'text' as const }),
      fc.constant({ type: 'json_object' as const }),
      fc.record({ type: fc.constant('json_schema' as const), name: text, schema: fc.object() }),
    )
    const request = fc.record({
      model: text,
      messages: fc.array(message, { maxLength: 5 }),
      tools: fc.array(fc.record({ name: text }), { maxLength: 3 }),
      format,
    })
    fc.assert(
      fc.property(request, (value) => {
        const normalized = value as unknown as NormalizedRequest
        expect(contentKeyOf(normalized)).toBe(referenceKey(normalized))
      }),
      { numRuns: 1000 },
    )
  })
})
