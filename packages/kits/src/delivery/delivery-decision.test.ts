import { InvalidOutputError, RejectedThenableError } from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { readDecision } from './delivery-decision.js'

describe('readDecision', () => {
  it('turns continue into the next state and complete into the final value, keeping falsy payloads', () => {
    expect(readDecision({ type: 'continue', state: 0 }, 's', false)).toEqual({ done: false, state: 0 })
    expect(readDecision({ type: 'continue', state: undefined }, 's', false)).toEqual({
      done: false,
      state: undefined,
    })
    expect(readDecision({ type: 'complete', value: '' }, 's', true)).toEqual({ done: true, value: '' })
    expect(readDecision({ type: 'complete', value: undefined }, 's', false)).toEqual({
      done: true,
      value: undefined,
    })
  })

  it('reads payloads from prototype getters of class-instance decisions', () => {
    class Complete {
      readonly type = 'complete'
      get value(): number {
        return 7
      }
    }
    expect(readDecision(new Complete(), 's', true)).toEqual({ done: true, value: 7 })
  })

  it.each([
    ['undefined', undefined, /returned undefined, not a decision/],
    ['an array', [], /returned an array of length 0, not a decision/],
    ['an unknown type', { type: 'skip' }, /decision of type the string "skip"/],
    ['continue without state', { type: 'continue' }, /without a state field/],
    ['continue with a value', { type: 'continue', state: 1, value: 2 }, /with a value field/],
    ['complete without value', { type: 'complete' }, /without a value field/],
    ['complete with a state', { type: 'complete', value: 1, state: 2 }, /with a state field/],
  ])('rejects %s with InvalidOutputError naming the stage', (_label, decision, message) => {
    let error: unknown
    try {
      readDecision(decision, 'render', false)
    } catch (caught) {
      error = caught
    }
    expect(InvalidOutputError.isInstance(error)).toBe(true)
    expect((error as InvalidOutputError).message).toMatch(message)
    expect((error as InvalidOutputError).message).toMatch(/delivery stage "render" handle/)
    expect((error as InvalidOutputError).details.id).toBe('render')
  })

  it('rejects continue from the last stage', () => {
    expect(() => readDecision({ type: 'continue', state: 1 }, 'last', true)).toThrow(/is the last stage/)
  })

  it('rejects thenable payloads', () => {
    expect(() => readDecision({ type: 'continue', state: Promise.resolve(1) }, 's', false)).toThrow(
      RejectedThenableError,
    )
    expect(() => readDecision({ type: 'complete', value: { then: () => undefined } }, 's', true)).toThrow(
      RejectedThenableError,
    )
  })
})
