import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { InvalidDefinitionError, InvalidInputError } from './errors/errors.js'
import {
  assertFunction,
  assertNonEmptyString,
  assertObject,
  assertSafeInteger,
  isRecord,
} from './validate.js'

describe('validation helpers', () => {
  it('assertSafeInteger accepts exactly the safe integers in range (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: -100, max: 100 }), fc.double(), fc.constant(2 ** 53), fc.string()),
        (value) => {
          const ok = typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= 50
          if (ok) assertSafeInteger(value, 'limit', { min: 0, max: 50 })
          else expect(() => assertSafeInteger(value, 'limit', { min: 0, max: 50 })).toThrow(InvalidInputError)
        },
      ),
    )
  })

  it('says what was wrong and which range is expected', () => {
    expect(() => assertSafeInteger(-1, 'limit', { min: 0 })).toThrow(
      'limit must be a safe integer that is not negative, but got the number -1.',
    )
    expect(() => assertSafeInteger(Number.NaN, 'targetChars', { min: 1 })).toThrow(
      'targetChars must be a safe integer of at least 1, but got NaN.',
    )
    expect(() => assertSafeInteger(0, 'timeoutMs', { min: 1, max: 2147483647 })).toThrow(
      'from 1 to 2147483647',
    )
    expect(() => assertSafeInteger(1.5, 'n')).toThrow('n must be a safe integer, but got the number 1.5.')
  })

  it('other asserts', () => {
    expect(() => assertNonEmptyString('', 'taskId')).toThrow(InvalidInputError)
    expect(() => assertFunction(1, 'run')).toThrow('run must be a function')
    expect(() => assertObject(null, 'request')).toThrow('request must be an object, but got null.')
    assertNonEmptyString('a', 'x')
    assertFunction(() => {}, 'x')
    assertObject([], 'x')
  })

  it('report through the options: where, hint, error class and extra details', () => {
    const caught = (fn: () => void): unknown => {
      try {
        fn()
      } catch (error) {
        return error
      }
      throw new Error('expected a throw')
    }
    const error = caught(() =>
      assertSafeInteger(0, 'maxCandidates', {
        min: 1,
        where: 'defineCandidateSelection',
        hint: 'Configure it explicitly, for example maxCandidates: 3.',
        error: InvalidDefinitionError,
        details: { id: 'pick' },
      }),
    )
    expect(InvalidDefinitionError.isInstance(error)).toBe(true)
    expect((error as InvalidDefinitionError).message).toBe(
      'defineCandidateSelection: maxCandidates must be a safe integer of at least 1, but got the number 0. Configure it explicitly, for example maxCandidates: 3.',
    )
    expect((error as InvalidDefinitionError).details).toEqual({
      id: 'pick',
      field: 'maxCandidates',
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
      received: 'the number 0',
    })
    // the vocabulary wins over extra details of the same name
    const overridden = caught(() =>
      assertFunction('x', 'run', { details: { field: 'other', received: 'y' } }),
    )
    expect((overridden as InvalidInputError).details).toEqual({ field: 'run', received: 'the string "x"' })
    expect(() => assertNonEmptyString('', 'taskId', { hint: 'Pass the id of the task.' })).toThrow(
      'taskId must be a non-empty string, but got the string "". Pass the id of the task.',
    )
  })

  it('assertObject refuses arrays only when asked', () => {
    assertObject([], 'request')
    expect(() => assertObject([], 'request', { arrays: false })).toThrow(
      'request must be an object (not an array), but got an array of length 0.',
    )
    expect(() => assertObject(() => {}, 'request')).toThrow(InvalidInputError)
    assertObject({}, 'request', { arrays: false })
  })

  it('never throws anything but the chosen validation error, whatever the value (property)', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        for (const check of [
          () => assertSafeInteger(value, 'n', { min: 0, max: 10 }),
          () => assertNonEmptyString(value, 's'),
          () => assertFunction(value, 'f'),
          () => assertObject(value, 'o', { arrays: false }),
        ]) {
          try {
            check()
          } catch (error) {
            expect(InvalidInputError.isInstance(error)).toBe(true)
            expect((error as InvalidInputError).details.received).toEqual(expect.any(String))
          }
        }
      }),
    )
  })

  it('isRecord is true exactly for objects that are neither null nor arrays (property)', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const reference = value !== null && typeof value === 'object' && !Array.isArray(value)
        expect(isRecord(value)).toBe(reference)
      }),
    )
    expect(isRecord(Object.create(null))).toBe(true)
    expect(isRecord(new Map())).toBe(true)
    expect(isRecord(() => ({}))).toBe(false)
    expect(isRecord([])).toBe(false)
  })
})
