import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMockGPT } from '../mock-gpt.js'
import { parseSse } from '../testing/sse.js'
import { type Answer, TextAnswer } from './answer.js'
import { PackedFrames } from './frame-writer.js'
import { deterministicId } from './hash.js'
import type { NormalizedRequest } from './normalize.js'
import { chatCompletionBody, type RenderMeta } from './render-chat.js'

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

/** The `chat.completion` body as an object serialized whole: the form the rendered template must equal. */
function referenceChatBody(inputTokens: number, answer: Answer, meta: RenderMeta): string {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: answer.toolCalls.length && answer.text === '' ? null : answer.text,
    refusal: null,
    annotations: [],
  }
  if (answer.reasoning) message.reasoning_content = answer.reasoning
  if (answer.toolCalls.length) {
    message.tool_calls = answer.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }))
  }
  return JSON.stringify({
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finishReason }],
    usage: {
      prompt_tokens: inputTokens,
      completion_tokens: answer.outputTokens,
      total_tokens: inputTokens + answer.outputTokens,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: answer.reasoningPieces.length,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_mockgpt',
  })
}

describe('chat.completion bodies (written as a template)', () => {
  it('equal the object form serialized whole, for any answer, and again when the rendered tail is reused', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constant(''))
    const plain = fc.record({
      text,
      pieces: fc.constant([] as readonly string[]),
      toolCalls: fc.array(fc.record({ id: text, name: text, arguments: text }), { maxLength: 3 }),
      finishReason: fc.constantFrom('stop', 'length', 'tool_calls'),
      outputTokens: fc.nat(),
      reasoning: fc.oneof(fc.constant(''), text),
      reasoningPieces: fc.array(fc.string(), { maxLength: 5 }),
    }) as fc.Arbitrary<Answer>
    // Text answers keep their rendered tails (from the second rendering on).
    const textOnly = fc
      .tuple(text, fc.constantFrom('stop' as const, 'length' as const), fc.nat())
      .map(([value, reason, tokens]) => new TextAnswer(value, reason, tokens, undefined))
    const answer = fc.oneof(plain, textOnly)
    const meta = fc.record({ id: text, created: fc.nat(), model: text })
    fc.assert(
      fc.property(answer, fc.array(fc.tuple(fc.nat(), meta), { minLength: 1, maxLength: 4 }), (a, uses) => {
        // The same answer rendered again (kept tails) for the same or another model and prompt size.
        for (const [inputTokens, m] of [...uses, ...uses, ...uses]) {
          const request = { inputTokens } as NormalizedRequest
          expect(chatCompletionBody(request, a, m)).toBe(referenceChatBody(inputTokens, a, m))
        }
      }),
      { numRuns: 500 },
    )
  })
})
