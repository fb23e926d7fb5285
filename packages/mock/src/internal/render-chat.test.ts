import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMockGPT } from '../mock-gpt.js'
import { parseSse } from '../testing/sse.js'
import { PackedFrames } from './frame-writer.js'
import { deterministicId } from './hash.js'

describe('long chat streams (patched template copies)', () => {
  it('carry their own id and timestamp in every frame, whichever released copy they reuse', () => {
    const text = Array.from({ length: 80 }, (_, i) => `piece${i}`).join(' ')
    const request = JSON.stringify({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'stream' }],
    })
    const step = fc.record({
      advanceMs: fc.constantFrom(0, 400, 1000, 86_400_000),
      release: fc.boolean(),
      reset: fc.boolean(),
    })
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 24 }), (steps) => {
        let clock = 1_700_000_000_000
        const mock = createMockGPT({
          seed: 5,
          now: () => clock,
          script: [{ reply: { type: 'text', text }, times: Number.POSITIVE_INFINITY }],
        })
        let n = 0
        for (const { advanceMs, release, reset } of steps) {
          clock += advanceMs
          const response = mock.handle({
            method: 'POST',
            url: '/v1/chat/completions',
            headers: { 'content-type': 'application/json' },
            body: request,
          })
          const body = response.body
          if (body.type !== 'stream' || !(body.steps instanceof PackedFrames)) throw new Error('not packed')
          const frames = parseSse(new TextDecoder().decode(body.steps.whole()))
            .filter((e) => e.data !== '[DONE]')
            .map(
              (e) =>
                JSON.parse(e.data) as {
                  id: string
                  created: number
                  choices: { delta: { content?: string } }[]
                },
            )
          const id = `chatcmpl-${deterministicId(5, `chat:${n}`, 29)}`
          expect(frames.every((f) => f.id === id && f.created === Math.floor(clock / 1000))).toBe(true)
          expect(frames.map((f) => f.choices[0]?.delta.content ?? '').join('')).toBe(text)
          n++
          if (release) body.steps.release()
          if (reset) {
            mock.reset()
            n = 0
          }
        }
      }),
      { numRuns: 200 },
    )
  })
})
