import {
  AgentCoreError,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidStateError,
  RejectedThenableError,
} from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type CandidateSelectionDefinition, defineCandidateSelection } from './candidate-selection.js'

function caught(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected the call to throw')
}

describe('defineCandidateSelection: ordinary values', () => {
  const selection = defineCandidateSelection({ maxCandidates: 3 })

  it.each(['answer', 0, -0, false, '', null, Number.NaN, ['a', 'b'], { text: 'x' }])(
    'returns %o as a one-element array, whether or not candidates are allowed',
    (value) => {
      for (const allowed of [true, false]) {
        const result = selection.parse({ value, allowed })
        expect(result).toHaveLength(1)
        expect(Object.is(result[0], value)).toBe(true)
      }
    },
  )

  it('returns frozen arrays', () => {
    expect(Object.isFrozen(selection.parse({ value: 'x', allowed: true }))).toBe(true)
    expect(Object.isFrozen(selection.parse({ value: { candidates: ['x'] }, allowed: true }))).toBe(true)
  })

  it('treats a class instance with a candidates field as an ordinary value', () => {
    class Shortlist {
      readonly candidates = ['a', 'b']
    }
    const value = new Shortlist()
    expect(selection.parse({ value, allowed: true })).toEqual([value])
  })

  it('exposes its configuration, with minCandidates defaulting to 1', () => {
    expect(selection.minCandidates).toBe(1)
    expect(selection.maxCandidates).toBe(3)
    expect(selection.envelopeField).toBe('candidates')
  })
})

describe('defineCandidateSelection: envelopes', () => {
  const selection = defineCandidateSelection({ maxCandidates: 3 })

  it('returns the candidates in submitted order, with duplicates and falsy values kept', () => {
    expect(selection.parse({ value: { candidates: ['b', 'a', 'b'] }, allowed: true })).toEqual([
      'b',
      'a',
      'b',
    ])
    expect(selection.parse({ value: { candidates: [0, false, ''] }, allowed: true })).toEqual([0, false, ''])
    expect(selection.parse({ value: { candidates: [null] }, allowed: true })).toEqual([null])
  })

  it('accepts arrays and objects as candidates (only envelopes cannot be nested)', () => {
    expect(selection.parse({ value: { candidates: [[1, 2], { text: 'x' }] }, allowed: true })).toEqual([
      [1, 2],
      { text: 'x' },
    ])
  })

  it('accepts a null-prototype envelope', () => {
    const value = Object.assign(Object.create(null) as Record<string, unknown>, { candidates: ['a'] })
    expect(selection.parse({ value, allowed: true })).toEqual(['a'])
  })

  it('rejects an envelope when the task does not allow candidates', () => {
    const error = caught(() => selection.parse({ value: { candidates: ['a', 'b'] }, allowed: false }))
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/does not accept a candidate envelope/)
  })

  it('rejects too many and too few candidates with the bounds in the details', () => {
    const tooMany = caught(() => selection.parse({ value: { candidates: [1, 2, 3, 4] }, allowed: true }))
    expect(InvalidInputError.isInstance(tooMany)).toBe(true)
    expect((tooMany as InvalidInputError).details).toEqual({ count: 4, minCandidates: 1, maxCandidates: 3 })
    expect((tooMany as Error).message).toMatch(
      /accepts from 1 to 3 candidates in an envelope, but the envelope carries 4/,
    )
    expect(() => selection.parse({ value: { candidates: [] }, allowed: true })).toThrow(InvalidInputError)
  })

  it('rejects nested envelopes', () => {
    const error = caught(() =>
      selection.parse({ value: { candidates: ['a', { candidates: ['b', 'c'] }] }, allowed: true }),
    )
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect((error as InvalidInputError).details).toEqual({ field: 'candidates', index: 1 })
    expect((error as Error).message).toMatch(/envelopes may not contain envelopes/)
  })

  it('rejects an envelope with extra fields instead of dropping them', () => {
    const error = caught(() =>
      selection.parse({ value: { candidates: ['a'], reason: 'why' }, allowed: true }),
    )
    expect(InvalidInputError.isInstance(error)).toBe(true)
    expect((error as InvalidInputError).details.extra).toEqual(['reason'])
  })

  it.each(['a', 3, null, { 0: 'a' }])('rejects an envelope whose candidates field is %o', (list) => {
    expect(() => selection.parse({ value: { candidates: list }, allowed: true })).toThrow(/must be an array/)
  })

  it('applies minCandidates to envelopes only: an ordinary value is [value] whatever minCandidates says', () => {
    const pair = defineCandidateSelection({ minCandidates: 2, maxCandidates: 2 })
    expect(pair.parse({ value: { candidates: ['a', 'b'] }, allowed: true })).toEqual(['a', 'b'])
    expect(() => pair.parse({ value: { candidates: ['a'] }, allowed: true })).toThrow(
      /accepts exactly 2 candidates/,
    )
    // the contract: "an ordinary single value still returns a single-element array"
    for (const allowed of [true, false])
      for (const takenOver of [true, false])
        expect(pair.parse({ value: 'a', allowed, takenOver })).toEqual(['a'])
    const many = defineCandidateSelection({ minCandidates: 5, maxCandidates: 9 })
    for (const value of [0, false, '', null, ['x', 'y'], { text: 'not an envelope' }])
      expect(many.parse({ value, allowed: true })).toEqual([value])
  })

  it('uses a custom envelope field', () => {
    const options = defineCandidateSelection({ maxCandidates: 2, envelopeField: 'options' })
    expect(options.parse({ value: { options: ['x', 'y'] }, allowed: true })).toEqual(['x', 'y'])
    const plain = { candidates: ['x', 'y'] }
    expect(options.parse({ value: plain, allowed: false })).toEqual([plain])
  })
})

describe('defineCandidateSelection: after the task has taken over', () => {
  const selection = defineCandidateSelection({ maxCandidates: 3 })

  it('rejects new candidates with an InvalidStateError', () => {
    const error = caught(() =>
      selection.parse({ value: { candidates: ['again', 'more'] }, allowed: true, takenOver: true }),
    )
    expect(InvalidStateError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/after the task had taken over/)
    expect(() => selection.parse({ value: { candidates: ['x'] }, allowed: false, takenOver: true })).toThrow(
      InvalidStateError,
    )
  })

  it('still accepts an ordinary value for the task that took over', () => {
    expect(selection.parse({ value: 'final answer', allowed: true, takenOver: true })).toEqual([
      'final answer',
    ])
  })

  it('treats takenOver: false like leaving it out', () => {
    expect(selection.parse({ value: { candidates: ['a'] }, allowed: true, takenOver: false })).toEqual(['a'])
  })
})

describe('defineCandidateSelection: class instances', () => {
  it('reads a class-instance definition through its getters', () => {
    class Config implements CandidateSelectionDefinition {
      readonly #max = 4
      get maxCandidates(): number {
        return this.#max
      }
      get minCandidates(): number {
        return this.#max / 2
      }
    }
    const selection = defineCandidateSelection(new Config())
    expect([selection.minCandidates, selection.maxCandidates]).toEqual([2, 4])
  })

  it('accepts a class-instance request', () => {
    class Request {
      readonly allowed = true
      get value(): unknown {
        return { candidates: ['a', 'b'] }
      }
    }
    expect(defineCandidateSelection({ maxCandidates: 2 }).parse(new Request())).toEqual(['a', 'b'])
  })
})

/** Reference model: a plain (or null-prototype) object with an own `candidates` field is an envelope. */
const isEnvelope = (v: unknown): v is { candidates: unknown } =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  [Object.prototype, null].includes(Object.getPrototypeOf(v)) &&
  Object.hasOwn(v, 'candidates')

describe('defineCandidateSelection: properties', () => {
  const bounds = fc
    .tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 5 }))
    .map(([min, extra]) => ({ min, max: min + extra }))
  const plainValue = fc.anything().filter((v) => v !== undefined)
  const submission = fc.oneof(
    plainValue,
    fc.array(plainValue, { maxLength: 12 }).map((candidates) => ({ candidates })),
  )

  it('for any input: an error is a typed agent-core error, and a result respects the bounds', () => {
    fc.assert(
      fc.property(
        bounds,
        submission,
        fc.boolean(),
        fc.boolean(),
        ({ min, max }, value, allowed, takenOver) => {
          const selection = defineCandidateSelection({ minCandidates: min, maxCandidates: max })
          let result: readonly unknown[]
          try {
            result = selection.parse({ value, allowed, takenOver })
          } catch (error) {
            expect(AgentCoreError.isInstance(error)).toBe(true)
            return
          }
          if (allowed && !takenOver && isEnvelope(value)) {
            expect(result.length).toBeGreaterThanOrEqual(min)
            expect(result.length).toBeLessThanOrEqual(max)
          } else {
            expect(result).toHaveLength(1)
            expect(Object.is(result[0], value)).toBe(true)
          }
        },
      ),
    )
  })

  it('matches a reference model of when a submission is accepted and what comes back', () => {
    fc.assert(
      fc.property(
        bounds,
        submission,
        fc.boolean(),
        fc.boolean(),
        ({ min, max }, value, allowed, takenOver) => {
          const open = allowed && !takenOver
          let expected: unknown[] | 'rejected'
          if (!isEnvelope(value)) expected = [value]
          else {
            const list = value.candidates
            const wellFormed =
              Object.keys(value).length === 1 &&
              Array.isArray(list) &&
              list.every((candidate, i) => i in list && candidate !== undefined && !isEnvelope(candidate))
            expected =
              !open || !wellFormed || list.length < min || list.length > max
                ? 'rejected'
                : (list as unknown[])
          }
          const selection = defineCandidateSelection({ minCandidates: min, maxCandidates: max })
          if (expected === 'rejected') {
            expect(() => selection.parse({ value, allowed, takenOver })).toThrow(AgentCoreError)
          } else {
            expect(selection.parse({ value, allowed, takenOver })).toEqual(expected)
          }
        },
      ),
    )
  })
})

describe('defineCandidateSelection: bad input', () => {
  const define = (definition: unknown) => () =>
    defineCandidateSelection(definition as CandidateSelectionDefinition)

  it.each([undefined, null, 3, 'max', [3]])('rejects the definition %o', (definition) => {
    expect(define(definition)).toThrow(InvalidDefinitionError)
    expect(define(definition)).toThrow(/Pass \{ maxCandidates, minCandidates\? \}/)
  })

  it('requires maxCandidates to be configured explicitly', () => {
    expect(define({})).toThrow(InvalidDefinitionError)
    expect(define({ minCandidates: 2 })).toThrow(/maxCandidates must be configured explicitly/)
  })

  it.each([Number.NaN, 0, -1, 1.5, 2 ** 53, Number.POSITIVE_INFINITY, '3', null, 3n])(
    'rejects maxCandidates = %s',
    (maxCandidates) => {
      expect(define({ maxCandidates })).toThrow(InvalidDefinitionError)
      expect(define({ maxCandidates })).toThrow(/maxCandidates must be a safe integer of at least 1/)
    },
  )

  it.each([Number.NaN, 0, -2, 2.5, Number.MAX_SAFE_INTEGER + 2, '1', null])(
    'rejects minCandidates = %s',
    (minCandidates) => {
      expect(define({ maxCandidates: 3, minCandidates })).toThrow(InvalidDefinitionError)
      expect(define({ maxCandidates: 3, minCandidates })).toThrow(/minCandidates must be a safe integer/)
    },
  )

  it('rejects maxCandidates below minCandidates', () => {
    const error = caught(define({ minCandidates: 3, maxCandidates: 2 }))
    expect(InvalidDefinitionError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(
      /maxCandidates must be a safe integer of at least 3, but got the number 2\. It may not be below minCandidates \(3\)/,
    )
    expect((error as InvalidDefinitionError).details).toMatchObject({ field: 'maxCandidates', min: 3 })
  })

  it.each(['', 5, null])('rejects envelopeField = %o', (envelopeField) => {
    expect(define({ maxCandidates: 2, envelopeField })).toThrow(InvalidDefinitionError)
  })

  const selection = defineCandidateSelection({ maxCandidates: 3 })
  const parse = (request: unknown) => () => selection.parse(request as never)

  it.each([undefined, null, 'value', 1, [{ value: 1, allowed: true }]])(
    'rejects the request %o',
    (request) => {
      expect(parse(request)).toThrow(InvalidInputError)
      expect(parse(request)).toThrow(/Pass parse\(\{ value, allowed/)
    },
  )

  it.each([undefined, 'true', 1, null])('rejects allowed = %o', (allowed) => {
    expect(parse({ value: 'x', allowed })).toThrow(InvalidInputError)
    expect(parse({ value: 'x', allowed })).toThrow(/allowed must be a boolean/)
  })

  it.each(['yes', 1, null])('rejects takenOver = %o', (takenOver) => {
    expect(parse({ value: 'x', allowed: true, takenOver })).toThrow(/takenOver must be a boolean/)
  })

  it('rejects a missing value and a missing candidate (holes included)', () => {
    expect(parse({ allowed: true })).toThrow(/candidate value is missing/)
    expect(parse({ value: undefined, allowed: false })).toThrow(InvalidInputError)
    expect(parse({ value: { candidates: ['a', undefined] }, allowed: true })).toThrow(
      /candidates\[1\] is missing/,
    )
    // biome-ignore lint/suspicious/noSparseArray: the hole is what this test is about
    expect(parse({ value: { candidates: ['a', , 'c'] }, allowed: true })).toThrow(
      /candidates\[1\] is missing/,
    )
  })

  it('rejects a Promise as the value or as a candidate, consuming its rejection', async () => {
    expect(parse({ value: Promise.reject(new Error('late')), allowed: true })).toThrow(RejectedThenableError)
    expect(parse({ value: { candidates: ['a', { then: () => undefined }] }, allowed: true })).toThrow(
      RejectedThenableError,
    )
    await new Promise((resolve) => setTimeout(resolve, 0))
  })
})
