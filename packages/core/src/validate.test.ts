import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { InvalidInputError } from './errors/errors.js'
import { assertFunction, assertNonEmptyString, assertObject, assertSafeInteger } from './validate.js'

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
})
