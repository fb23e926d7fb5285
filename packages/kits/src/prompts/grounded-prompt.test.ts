import { InvalidInputError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { groundedPrompt, NOT_IN_CONTEXT, parseCitations } from './index.js'

describe('groundedPrompt', () => {
  it('numbers the passages as context blocks and states the rules', () => {
    const prompt = groundedPrompt(
      ' When is high tide? ',
      [{ source: 'tides.md', text: 'High tide is at 06:12.\n' }, 'Brest is in Brittany.'],
      { instructions: 'Answer in one sentence.' },
    )
    expect(prompt.user.content).toBe(
      'Context:\n\n[1] (tides.md)\nHigh tide is at 06:12.\n\n[2]\nBrest is in Brittany.\n\nQuestion: When is high tide?',
    )
    expect(prompt.system.content).toContain(`answer exactly: ${NOT_IN_CONTEXT}`)
    expect(prompt.system.content).toMatch(/\[1\] or \[2\]\[3\]/)
    expect(prompt.system.content.endsWith('Answer in one sentence.')).toBe(true)
    expect(prompt.messages).toEqual([prompt.system, prompt.user])
    expect(prompt.passages).toEqual([
      { source: 'tides.md', text: 'High tide is at 06:12.\n' },
      { text: 'Brest is in Brittany.' },
    ])
  })
  it('says when there is no context', () => {
    expect(groundedPrompt('Why?', []).user.content).toBe('Context:\n\n(no context blocks)\n\nQuestion: Why?')
  })
  it('refuses bad input', () => {
    expect(() => groundedPrompt('', [])).toThrow(InvalidInputError)
    expect(() => groundedPrompt('q', 'text' as never)).toThrow(InvalidInputError)
    expect(() => groundedPrompt('q', [{ text: 1 }] as never)).toThrow(/passages\[0\]\.text/)
    expect(() => groundedPrompt('q', [{ body: 'x' }] as never)).toThrow(/passages\[0\]\.body/)
    expect(() => groundedPrompt('q', [null] as never)).toThrow(InvalidInputError)
    expect(() => groundedPrompt('q', [], { instructions: 3 } as never)).toThrow(InvalidInputError)
  })
})

describe('parseCitations', () => {
  const passages = ['a', 'b', 'c'].map((text) => ({ text }))
  it('maps markers to passages, reports invented numbers and strips the markers', () => {
    const cited = parseCitations('One [2], two [1, 3][2] and [9].', passages)
    expect(cited.text).toBe('One, two and.')
    expect(cited.citations).toEqual([
      { number: 2, passage: passages[1] },
      { number: 1, passage: passages[0] },
      { number: 3, passage: passages[2] },
    ])
    expect(cited.unknown).toEqual([9])
    expect(cited.notInContext).toBe(false)
  })
  it('recognises the exact not-in-context answer', () => {
    expect(parseCitations(`"${NOT_IN_CONTEXT.toUpperCase()}" `, passages).notInContext).toBe(true)
    expect(parseCitations('The context does not contain it.', passages).notInContext).toBe(false)
  })
  it('refuses bad input', () => {
    expect(() => parseCitations(undefined as never, passages)).toThrow(InvalidInputError)
    expect(() => parseCitations('x', {} as never)).toThrow(InvalidInputError)
  })
  it('property: the citations written into an answer come back, in first-citation order', () => {
    const sentence = fc.stringMatching(/^[A-Za-z ,]{1,15}$/)
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(sentence, fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 3 }))),
        (count, parts) => {
          const list = Array.from({ length: count }, (_, i) => ({ text: `p${i + 1}` }))
          const answer = parts
            .map(([text, numbers]) => `${text}${numbers.map((n) => `[${n}]`).join('')}.`)
            .join(' ')
          const order = [...new Set(parts.flatMap(([, numbers]) => numbers))]
          const cited = parseCitations(answer, list)
          expect(cited.citations.map((c) => c.number)).toEqual(order.filter((n) => n <= count))
          expect(cited.unknown).toEqual(order.filter((n) => n > count))
          for (const c of cited.citations) expect(c.passage).toBe(list[c.number - 1])
          expect(cited.text).not.toMatch(/\[\d+\]/)
        },
      ),
    )
  })
})
