import { compileJsonSchema } from '@agent-core/core/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FORMAT_LENGTHS, generateFormat } from './formats.js'
import { createRng } from './rng.js'

describe('generateFormat', () => {
  it('produces strings ajv-formats accepts, for any seed', () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(FORMAT_LENGTHS)), fc.integer(), (format, seed) => {
        const [lo, hi] = FORMAT_LENGTHS[format]!
        const value = generateFormat(format, createRng(seed), lo, hi)
        expect(compileJsonSchema({ type: 'string', format }).validate(value)).toEqual({ ok: true })
      }),
      { numRuns: 500 },
    )
  })

  it('hits a requested length for the formats whose length can vary', () => {
    const flexible = fc.oneof(
      fc.tuple(fc.constant('email'), fc.integer({ min: 7, max: 254 })),
      fc.tuple(fc.constant('uri'), fc.integer({ min: 12, max: 400 })),
      fc.tuple(fc.constant('hostname'), fc.integer({ min: 1, max: 253 })),
      fc.tuple(fc.constant('date-time'), fc.integer({ min: 22, max: 60 })),
      fc.tuple(fc.constant('time'), fc.integer({ min: 11, max: 40 })),
    )
    fc.assert(
      fc.property(flexible, fc.integer(), ([format, length], seed) => {
        const value = generateFormat(format, createRng(seed), length, length)
        expect([...value].length).toBe(length)
        expect(compileJsonSchema({ type: 'string', format }).validate(value)).toEqual({ ok: true })
      }),
      { numRuns: 500 },
    )
  })
})
