import { afterEach, describe, expect, it, vi } from 'vitest'
import { createId } from './create-id.js'
import { InvalidInputError } from './errors/errors.js'

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('createId', () => {
  it('is the prefix, an underscore and 32 hex digits, never twice the same', () => {
    const ids = new Set<string>()
    for (let n = 0; n < 2000; n++) {
      const id = createId('run')
      expect(id).toMatch(/^run_[0-9a-f]{32}$/)
      ids.add(id)
    }
    expect(ids.size).toBe(2000)
  })

  it('draws from getRandomValues where randomUUID is missing, and from Math.random without either', () => {
    const real = globalThis.crypto
    vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array) => real.getRandomValues(bytes) })
    expect(createId('call')).toMatch(/^call_[0-9a-f]{32}$/)
    expect(createId('call')).not.toBe(createId('call'))
    vi.stubGlobal('crypto', undefined)
    expect(createId('claim')).toMatch(/^claim_[0-9a-f]{32}$/)
    expect(createId('claim')).not.toBe(createId('claim'))
  })

  it('refuses a prefix that is not a non-empty string', () => {
    for (const bad of ['', undefined, 42, null, { toString: () => 'run' }]) {
      let error: unknown
      try {
        createId(bad as string)
      } catch (caught) {
        error = caught
      }
      expect(InvalidInputError.isInstance(error)).toBe(true)
      expect((error as InvalidInputError).details).toMatchObject({ field: 'prefix' })
    }
  })
})
