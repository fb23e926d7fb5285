import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { countTokens, tokenize } from '../tokenizer.js'
import { type AnswerContext, planAnswer, snippet } from './answer.js'
import type { NormalizedRequest } from './normalize.js'

/** `snippet` as written before its char-loop shortcut: the reference it must agree with. */
function referenceSnippet(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

describe('snippet', () => {
  it('flattens and cuts text as the replace-and-trim form does', () => {
    const spaced = fc.string({
      unit: fc.constantFrom(
        'a',
        'Z',
        ' ',
        '  ',
        '\t',
        '\n',
        '\r',
        '\v',
        '\f',
        '\u00a0',
        '\u2028',
        '\ufeff',
        '.',
        '~',
        '\u007f',
        '\u001f',
        'é',
      ),
    })
    const ascii = fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)) })
    fc.assert(
      fc.property(
        fc.oneof(spaced, ascii, fc.string({ unit: 'binary' })),
        fc.integer({ min: 1, max: 200 }),
        (text, max) => {
          expect(snippet(text, max)).toBe(referenceSnippet(text, max))
          expect(snippet(text)).toBe(referenceSnippet(text))
        },
      ),
      { numRuns: 1000 },
    )
  })
})

/** A text answer as planned before its pieces were cut lazily (always cut, then counted). */
function referenceTextAnswer(
  text: string,
  chunks: readonly string[] | undefined,
  stops: readonly string[],
  max: number | undefined,
) {
  let finalText = text
  let finishReason = 'stop'
  for (const stop of stops) {
    const at = finalText.indexOf(stop)
    if (at >= 0) {
      finalText = finalText.slice(0, at)
      chunks = undefined
    }
  }
  let tokens = tokenize(finalText)
  if (max !== undefined && tokens.length > max) {
    tokens = tokens.slice(0, max)
    finalText = tokens.join('')
    chunks = undefined
    finishReason = 'length'
  }
  return { text: finalText, pieces: chunks ?? tokens, outputTokens: tokens.length, finishReason }
}

describe('text answers (pieces cut on first read)', () => {
  it('have the text, pieces, token count and finish reason of the always-cut form, short or long', () => {
    const context: AnswerContext = { contentSeed: 1, callId: (i) => `call_${i}` }
    const word = fc.constantFrom('amber', ' ', 'b1', '.', 'é', '\n', 'basil cedar', '😀')
    const text = fc.oneof(
      fc.string(),
      fc.array(word, { maxLength: 40 }).map((w) => w.join('')),
      fc.array(word, { minLength: 80, maxLength: 200 }).map((w) => w.join('')),
    )
    fc.assert(
      fc.property(
        text,
        fc.option(fc.array(fc.string(), { minLength: 1, maxLength: 4 }), { nil: undefined }),
        fc.array(fc.constantFrom('.', 'ber', 'zz', '\n'), { maxLength: 2 }),
        fc.option(fc.integer({ min: 1, max: 120 }), { nil: undefined }),
        fc.option(fc.string(), { nil: undefined }),
        (value, chunks, stop, maxOutputTokens, reasoning) => {
          const request = { stop, maxOutputTokens } as unknown as NormalizedRequest
          const answer = planAnswer(request, { type: 'text', text: value, chunks, reasoning }, context)
          const expected = referenceTextAnswer(value, chunks, stop, maxOutputTokens)
          const reasoningTokens = reasoning ? countTokens(reasoning) : 0
          expect(answer.text).toBe(expected.text)
          expect(answer.finishReason).toBe(expected.finishReason)
          expect(answer.outputTokens).toBe(expected.outputTokens + reasoningTokens)
          expect(answer.pieces).toEqual(expected.pieces)
          expect(answer.reasoning).toBe(reasoning ?? '')
          expect(answer.toolCalls).toEqual([])
        },
      ),
      { numRuns: 500 },
    )
  })
})
