import { describe, expect, it } from 'vitest'
import { AgentCoreError, describeValue } from './agent-core-error.js'
import * as errors from './errors.js'

const classes = Object.entries(errors).filter(([, v]) => typeof v === 'function') as [
  string,
  typeof errors.DuplicateIdError,
][]

describe('errors', () => {
  it('every class carries its stable code, name, details and cause', () => {
    const codes = new Set<string>()
    for (const [name, ErrorClass] of classes) {
      const cause = new Error('root')
      const error = new ErrorClass('what happened; what to do', { cause, details: { a: 1 } })
      expect(error).toBeInstanceOf(AgentCoreError)
      expect(error).toBeInstanceOf(Error)
      expect(error.name).toBe(name)
      expect(error.code).toBe(ErrorClass.code)
      expect(error.cause).toBe(cause)
      expect(error.details).toEqual({ a: 1 })
      expect(Object.isFrozen(error.details)).toBe(true)
      codes.add(error.code)
    }
    expect(codes.size).toBe(classes.length)
  })

  it('isInstance matches by code, and the base class matches any agent-core error', () => {
    const dup = new errors.DuplicateIdError('x')
    expect(errors.DuplicateIdError.isInstance(dup)).toBe(true)
    expect(errors.UnknownIdError.isInstance(dup)).toBe(false)
    expect(AgentCoreError.isInstance(dup)).toBe(true)
    expect(AgentCoreError.isInstance(new Error('plain'))).toBe(false)
    expect(AgentCoreError.isInstance({ code: 'duplicate-id' })).toBe(false)
    expect(AgentCoreError.isInstance(null)).toBe(false)
  })

  it('isInstance works across two loaded copies of the module', async () => {
    const copy = (await import('./errors.js?second-copy' as string)) as typeof errors
    expect(copy.DuplicateIdError).not.toBe(errors.DuplicateIdError)
    const foreign = new copy.DuplicateIdError('from the other copy')
    expect(foreign instanceof errors.DuplicateIdError).toBe(false)
    expect(errors.DuplicateIdError.isInstance(foreign)).toBe(true)
    expect(AgentCoreError.isInstance(foreign)).toBe(true)
    expect(errors.TimeoutError.isInstance(foreign)).toBe(false)
    const base = (await import(
      './agent-core-error.js?second-copy' as string
    )) as typeof import('./agent-core-error.js')
    expect(base.AgentCoreError).not.toBe(AgentCoreError)
    const fromOtherBase = new base.AgentCoreError('duplicate-id', 'raised by another copy of the base class')
    expect(fromOtherBase instanceof AgentCoreError).toBe(false)
    expect(AgentCoreError.isInstance(fromOtherBase)).toBe(true)
    expect(errors.DuplicateIdError.isInstance(fromOtherBase)).toBe(true)
  })

  it('lets kits define their own codes', () => {
    class StaleLeaseError extends AgentCoreError {
      static override readonly code = 'stale-lease'
      constructor() {
        super('stale-lease', 'The lease expired; acquire it again.')
      }
    }
    const e = new StaleLeaseError()
    expect(StaleLeaseError.isInstance(e)).toBe(true)
    expect(errors.ConflictError.isInstance(e)).toBe(false)
  })

  it('describeValue names values without dumping them', () => {
    expect(describeValue(Number.NaN)).toBe('NaN')
    expect(describeValue(null)).toBe('null')
    expect(describeValue([1, 2])).toBe('an array of length 2')
    expect(describeValue(Promise.resolve())).toBe('a thenable (Promise)')
    expect(describeValue(new Map())).toBe('an instance of Map')
    expect(describeValue('x'.repeat(100))).toBe('a string of length 100')
    expect(describeValue(2n)).toBe('the bigint 2n')
  })

  it('describeValue never throws, whatever the object does when looked at', () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    expect(describeValue(proxy)).toBe('an object (it threw when looked at)')
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('no reads')
        },
        getPrototypeOf() {
          throw new Error('no prototype')
        },
      },
    )
    expect(describeValue(hostile)).toBe('an object (it threw when looked at)')
    const thenGetter = Object.defineProperty({}, 'then', {
      get() {
        throw new Error('then')
      },
    })
    expect(describeValue(thenGetter)).toBe('an object (it threw when looked at)')
    expect(describeValue(Object.create(null))).toBe('an object')
    expect(describeValue(new (class Named {})())).toBe('an instance of Named')
    const { proxy: revokedArray, revoke: revokeArray } = Proxy.revocable([1], {})
    revokeArray()
    expect(describeValue(revokedArray)).toBe('an object (it threw when looked at)')
  })
})
