import { describe, expectTypeOf, it } from 'vitest'
import type { MockGPT, RecordedRequest } from './mock-gpt.js'
import type { MockStreamStep } from './mock-http.js'
import type { MockFault, MockReply, MockScriptEntry } from './script.js'
import { createStreamController } from './stream-controller.js'

describe('script types', () => {
  it('narrows replies and faults on type', () => {
    const reply = {} as MockReply
    if (reply.type === 'tool-calls')
      expectTypeOf(reply.calls[0]!.arguments).toEqualTypeOf<
        string | Readonly<Record<string, unknown>> | undefined
      >()
    if (reply.type === 'error') expectTypeOf(reply.status).toBeNumber()
    const fault = {} as MockFault
    if (fault.type === 'disconnect') expectTypeOf(fault.afterChunks).toEqualTypeOf<number | undefined>()
    const step = {} as MockStreamStep
    if (step.type === 'data') expectTypeOf(step.chunk).toEqualTypeOf<string | Uint8Array>()
  })

  it('accepts well-formed entries and rejects malformed ones', () => {
    expectTypeOf<{ reply: { type: 'text'; text: string } }>().toMatchTypeOf<MockScriptEntry>()
    expectTypeOf({
      reply: { type: 'controlled-stream' as const, controller: createStreamController() },
    }).toMatchTypeOf<MockScriptEntry>()
    // @ts-expect-error a text reply needs text
    const missingText: MockScriptEntry = { reply: { type: 'text' } }
    // @ts-expect-error an unknown reply type
    const unknownType: MockScriptEntry = { reply: { type: 'banana' } }
    // @ts-expect-error predicates receive a request view and return a boolean
    const badPredicate: MockScriptEntry = { reply: { type: 'text', text: 'x' }, match: (r: number) => r > 1 }
    void [missingText, unknownType, badPredicate]
  })

  it('exposes read-only recordings', () => {
    expectTypeOf<MockGPT['requests']>().toEqualTypeOf<readonly RecordedRequest[]>()
    expectTypeOf<RecordedRequest['status']>().toBeNumber()
  })
})
