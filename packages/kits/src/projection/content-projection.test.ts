import {
  BudgetExhaustedError,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  RejectedThenableError,
} from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type ContentProjectionDefinition, defineContentProjection } from './index.js'

const identity = (definition: Partial<ContentProjectionDefinition<string>> = {}) =>
  defineContentProjection<string>({ id: 'note', render: (value) => value, ...definition })

const unit = fc.oneof(
  fc.constantFrom('a', ' ', '\n', '😀', '\uD83D', '\uDE00', 'é'),
  fc.string({ unit: 'binary', maxLength: 2 }),
)
const anyText = fc.string({ unit, maxLength: 60 })

/** A naive model: try every prefix length from long to short. */
function reference(
  text: string,
  maxChars: number,
  marker: string,
  minPrefixChars: number,
  fallback: string | undefined,
): { text: string; truncated: boolean } | 'rejected' {
  if (text.length <= maxChars) return { text, truncated: false }
  for (let k = maxChars - marker.length; k >= minPrefixChars; k--) {
    const last = text.charCodeAt(k - 1)
    const next = text.charCodeAt(k)
    const cutsPair = last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff
    if (!cutsPair) return { text: text.slice(0, k) + marker, truncated: true }
  }
  if (fallback === undefined || fallback.length > maxChars) return 'rejected'
  return { text: fallback, truncated: true }
}

describe('defineContentProjection: invariants', () => {
  it('never exceeds maxChars and agrees with a naive model', () => {
    fc.assert(
      fc.property(
        anyText,
        fc.integer({ min: 0, max: 70 }),
        fc.constantFrom('', '…', '...', ' [cut]'),
        fc.integer({ min: 1, max: 8 }),
        fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
        (text, maxChars, marker, minPrefixChars, fallback) => {
          const projection = identity({
            marker,
            minPrefixChars,
            ...(fallback === undefined ? {} : { fallback }),
          })
          const expected = reference(text, maxChars, marker, minPrefixChars, fallback)
          if (expected === 'rejected') {
            expect(() => projection.project({ value: text, maxChars })).toThrow(BudgetExhaustedError)
            return
          }
          const result = projection.project({ value: text, maxChars })
          expect(result).toEqual(expected)
          expect(result.text.length).toBeLessThanOrEqual(maxChars)
          expect(result.truncated).toBe(result.text !== text)
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('only ever returns the whole text, a prefix of it plus the marker, or the declared fallback', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 0, max: 70 }), (text, maxChars) => {
        const projection = identity({ marker: '…', fallback: '(omitted)', minPrefixChars: 3 })
        let result: { text: string; truncated: boolean }
        try {
          result = projection.project({ value: text, maxChars })
        } catch (error) {
          expect(BudgetExhaustedError.isInstance(error)).toBe(true)
          expect(maxChars).toBeLessThan('(omitted)'.length)
          return
        }
        if (!result.truncated) expect(result.text).toBe(text)
        else if (result.text !== '(omitted)') {
          expect(result.text.endsWith('…')).toBe(true)
          expect(text.startsWith(result.text.slice(0, -1))).toBe(true)
        }
      }),
      { numRuns: 2000 },
    )
  })
})

describe('defineContentProjection: behaviour', () => {
  it('returns the whole text when it fits', () => {
    expect(identity().project({ value: 'hello', maxChars: 5 })).toEqual({ text: 'hello', truncated: false })
    expect(identity().project({ value: '', maxChars: 0 })).toEqual({ text: '', truncated: false })
  })

  it('keeps a prefix and the marker within the budget', () => {
    expect(identity({ marker: '…' }).project({ value: 'hello world', maxChars: 6 })).toEqual({
      text: 'hello…',
      truncated: true,
    })
  })

  it('does not cut a surrogate pair in half', () => {
    expect(identity().project({ value: 'a😀b', maxChars: 2 })).toEqual({ text: 'a', truncated: true })
  })

  it('uses the fallback when the prefix would be too short, and when overflow is "fallback"', () => {
    const short = identity({ minPrefixChars: 5, fallback: '[…]' })
    expect(short.project({ value: 'x'.repeat(100), maxChars: 5 })).toEqual({ text: 'xxxxx', truncated: true })
    expect(short.project({ value: 'x'.repeat(100), maxChars: 4 })).toEqual({ text: '[…]', truncated: true })
    const whole = identity({ overflow: 'fallback', fallback: ({ length }) => `[${length} chars]` })
    expect(whole.project({ value: 'x'.repeat(100), maxChars: 11 })).toEqual({
      text: '[100 chars]',
      truncated: true,
    })
    expect(whole.project({ value: 'short', maxChars: 11 })).toEqual({ text: 'short', truncated: false })
  })

  it('rejects instead of answering with a fallback that does not fit', () => {
    const projection = identity({ overflow: 'fallback', fallback: '[omitted]' })
    expect(() => projection.project({ value: 'x'.repeat(20), maxChars: 5 })).toThrow(BudgetExhaustedError)
    expect(() => projection.project({ value: 'x'.repeat(20), maxChars: 5 })).toThrow(
      /fallback text has 9 characters, more than maxChars 5.*Shorten the fallback or raise maxChars/,
    )
  })

  it('rejects when nothing fits and there is no fallback', () => {
    const projection = identity({ marker: '[…]' })
    expect(() => projection.project({ value: 'abcdef', maxChars: 3 })).toThrow(BudgetExhaustedError)
    expect(() => projection.project({ value: 'abcdef', maxChars: 0 })).toThrow(
      /Raise maxChars or define a fallback/,
    )
  })

  it('gives the fallback function the value, its rendered length and the budget', () => {
    const seen: unknown[] = []
    const projection = defineContentProjection<{ rows: number[] }>({
      id: 'rows',
      render: (value) => JSON.stringify(value.rows),
      overflow: 'fallback',
      fallback: (overflow) => {
        seen.push(overflow)
        return `[${overflow.value.rows.length} rows]`
      },
    })
    const value = { rows: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }
    expect(projection.project({ value, maxChars: 10 })).toEqual({ text: '[10 rows]', truncated: true })
    expect(seen).toEqual([{ value, length: 22, maxChars: 10 }])
  })

  it('works with a class-based definition: prototype getters and methods keep their receiver', () => {
    class Quoted implements ContentProjectionDefinition<string> {
      readonly #quote = '"'
      get id() {
        return 'quoted'
      }
      get marker() {
        return '…'
      }
      render(value: string) {
        return this.#quote + value + this.#quote
      }
      fallback() {
        return this.#quote + this.#quote
      }
    }
    const projection = defineContentProjection(new Quoted())
    expect(projection.id).toBe('quoted')
    expect(projection.project({ value: 'abc', maxChars: 10 })).toEqual({ text: '"abc"', truncated: false })
    expect(projection.project({ value: 'abcdef', maxChars: 5 })).toEqual({ text: '"abc…', truncated: true })
  })

  it('returns a frozen projection and frozen results', () => {
    expect(Object.isFrozen(identity())).toBe(true)
    expect(Object.isFrozen(identity().project({ value: 'short', maxChars: 10 }))).toBe(true)
  })
})

describe('defineContentProjection: bad input', () => {
  it.each([
    ['a non-object', null],
    ['no id', { render: String }],
    ['an empty id', { id: '', render: String }],
    ['no render', { id: 'x' }],
    ['a bad overflow', { id: 'x', render: String, overflow: 'cut' }],
    ['a non-string marker', { id: 'x', render: String, marker: 1 }],
    ['minPrefixChars 0', { id: 'x', render: String, minPrefixChars: 0 }],
    ['minPrefixChars NaN', { id: 'x', render: String, minPrefixChars: Number.NaN }],
    ['minPrefixChars 1.5', { id: 'x', render: String, minPrefixChars: 1.5 }],
    ['a numeric fallback', { id: 'x', render: String, fallback: 3 }],
    ['overflow fallback without a fallback', { id: 'x', render: String, overflow: 'fallback' }],
  ])('rejects a definition with %s', (_, definition) => {
    expect(() => defineContentProjection(definition as never)).toThrow(InvalidDefinitionError)
  })

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '10', undefined, null])(
    'rejects maxChars %s',
    (maxChars) => {
      expect(() => identity().project({ value: 'a', maxChars: maxChars as number })).toThrow(
        InvalidInputError,
      )
      expect(() => identity().project({ value: 'a', maxChars: maxChars as number })).toThrow(
        /maxChars must be a safe integer that is not negative, but got .*UTF-16 code units/,
      )
      try {
        identity().project({ value: 'a', maxChars: maxChars as number })
      } catch (error) {
        expect((error as InvalidInputError).details).toMatchObject({ field: 'maxChars', min: 0 })
      }
    },
  )

  it('rejects a request that is not an object', () => {
    expect(() => identity().project(undefined as never)).toThrow(InvalidInputError)
    expect(() => identity().project('text' as never)).toThrow(InvalidInputError)
  })

  it('rejects a Promise as the value instead of rendering it', () => {
    const projection = defineContentProjection<unknown>({ id: 'any', render: String })
    expect(() => projection.project({ value: Promise.resolve('a'), maxChars: 10 })).toThrow(/Await it/)
  })

  it('rejects a render or fallback that returns a Promise', () => {
    const asyncRender = defineContentProjection<string>({
      id: 'x',
      render: (async (v: string) => v) as never,
    })
    expect(() => asyncRender.project({ value: 'a', maxChars: 10 })).toThrow(RejectedThenableError)
    const asyncFallback = identity({ overflow: 'fallback', fallback: (async () => '') as never })
    expect(() => asyncFallback.project({ value: 'abc', maxChars: 1 })).toThrow(RejectedThenableError)
  })

  it('rejects a render or fallback that returns a non-string, without coercing it', () => {
    const numeric = defineContentProjection<number>({ id: 'n', render: ((v: number) => v) as never })
    expect(() => numeric.project({ value: 1, maxChars: 10 })).toThrow(InvalidOutputError)
    const missing = defineContentProjection<unknown>({ id: 'u', render: (() => undefined) as never })
    expect(() => missing.project({ value: 1, maxChars: 10 })).toThrow(
      /must return a string, but returned undefined/,
    )
    const badFallback = identity({ overflow: 'fallback', fallback: (() => null) as never })
    expect(() => badFallback.project({ value: 'abc', maxChars: 1 })).toThrow(InvalidOutputError)
  })
})
