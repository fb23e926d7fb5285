import { describe, expect, it, vi } from 'vitest'
import { AbortedError, InvalidOutputError, RejectedThenableError, TimeoutError } from './errors/errors.js'
import {
  assertBoolean,
  assertNotThenable,
  deadlineSignal,
  isThenable,
  raceSignal,
  throwIfAborted,
} from './sync.js'

describe('sync/async discipline', () => {
  it('isThenable recognizes promises and thenable objects or functions only', () => {
    expect(isThenable(Promise.resolve())).toBe(true)
    expect(isThenable({ then() {} })).toBe(true)
    const fn = Object.assign(() => {}, { then() {} })
    expect(isThenable(fn)).toBe(true)
    for (const v of [null, undefined, 0, '', {}, { then: 1 }, []]) expect(isThenable(v)).toBe(false)
  })

  it('assertNotThenable rejects a promise and consumes its rejection', async () => {
    const unhandled = vi.fn()
    process.on('unhandledRejection', unhandled)
    try {
      expect(() => assertNotThenable(Promise.reject(new Error('late')), 'stage hook')).toThrow(
        RejectedThenableError,
      )
      expect(() =>
        assertNotThenable(
          {
            then: () => {
              throw new Error('hostile')
            },
          },
          'hook',
        ),
      ).toThrow(RejectedThenableError)
      await new Promise((r) => setTimeout(r, 10))
      expect(unhandled).not.toHaveBeenCalled()
    } finally {
      process.off('unhandledRejection', unhandled)
    }
    expect(assertNotThenable(0, 'hook')).toBe(0)
    expect(assertNotThenable(undefined, 'hook')).toBeUndefined()
  })

  it('assertBoolean accepts only booleans', () => {
    expect(assertBoolean(false, 'filter')).toBe(false)
    expect(() => assertBoolean(Promise.resolve(true), 'filter')).toThrow(RejectedThenableError)
    expect(() => assertBoolean(1, 'filter')).toThrow(InvalidOutputError)
    expect(() => assertBoolean(undefined, 'filter')).toThrow(/must return a boolean/)
  })

  it('throwIfAborted names the point and keeps the reason as cause', () => {
    const controller = new AbortController()
    throwIfAborted(controller.signal, 'start')
    throwIfAborted(undefined, 'start')
    const reason = new Error('user left')
    controller.abort(reason)
    try {
      throwIfAborted(controller.signal, 'before save')
      expect.unreachable()
    } catch (error) {
      expect(AbortedError.isInstance(error)).toBe(true)
      expect((error as AbortedError).details.point).toBe('before save')
      expect((error as AbortedError).cause).toBe(reason)
    }
  })

  it('raceSignal resolves, rejects, and on abort rejects while consuming the late rejection', async () => {
    await expect(raceSignal(Promise.resolve(1), undefined, 'x')).resolves.toBe(1)
    const controller = new AbortController()
    await expect(raceSignal(Promise.resolve(2), controller.signal, 'x')).resolves.toBe(2)
    await expect(raceSignal(Promise.reject(new Error('boom')), controller.signal, 'x')).rejects.toThrow(
      'boom',
    )
    const unhandled = vi.fn()
    process.on('unhandledRejection', unhandled)
    try {
      let rejectLate!: (e: Error) => void
      const pending = new Promise<number>((_, reject) => {
        rejectLate = reject
      })
      const raced = raceSignal(pending, controller.signal, 'reading')
      controller.abort()
      await expect(raced).rejects.toSatisfy((e) => AbortedError.isInstance(e))
      rejectLate(new Error('late'))
      await new Promise((r) => setTimeout(r, 10))
      expect(unhandled).not.toHaveBeenCalled()
      await expect(raceSignal(Promise.reject(new Error('x')), controller.signal, 'pre')).rejects.toSatisfy(
        (e) => AbortedError.isInstance(e),
      )
      await new Promise((r) => setTimeout(r, 10))
      expect(unhandled).not.toHaveBeenCalled()
    } finally {
      process.off('unhandledRejection', unhandled)
    }
  })

  it('deadlineSignal aborts with a TimeoutError after the time limit and follows its parent', async () => {
    const { signal, dispose } = deadlineSignal(undefined, 5, 'model call')
    await new Promise((r) => signal.addEventListener('abort', r))
    expect(TimeoutError.isInstance(signal.reason)).toBe(true)
    try {
      throwIfAborted(signal, 'after call')
    } catch (error) {
      expect(TimeoutError.isInstance(error)).toBe(true)
    }
    dispose()
    const parent = new AbortController()
    const child = deadlineSignal(parent.signal, 60_000, 'x')
    parent.abort('stop')
    expect(child.signal.aborted).toBe(true)
    expect(child.signal.reason).toBe('stop')
    child.dispose()
  })
})
