import { describe, expect, it } from 'vitest'
import { checkPackages, countInvalidThrows, findOtherReaders } from './one-reader.mjs'

describe("one field reader: core's FieldReader (issue 29)", () => {
  it('finds no other reader in the packages', () => {
    expect(checkPackages()).toEqual([])
  })

  it('refuses a kit reader of its own and the renamed core reader', () => {
    const text = `
      export { FieldReader as Fields, refuseField as refuse } from '@agent-core/core'
      import { FieldReader as Reader } from '@agent-core/core'
      export class Fields {
        has(key: string) { return true }
        string(key: string) { return '' }
        oneOf(key: string, allowed: string[]) { return allowed[0] }
        done() {}
      }
    `
    expect(findOtherReaders(text, 'x.ts')).toEqual([
      'x.ts:2 FieldReader renamed to Fields',
      'x.ts:2 refuseField renamed to refuse',
      'x.ts:3 FieldReader renamed to Reader',
      'x.ts:4 class Fields reads fields (string, oneOf)',
    ])
  })

  it('allows core reader by its own name and classes that are not readers', () => {
    const text = `
      import { FieldReader, refuseField } from '@agent-core/core'
      class Session { done() {} string() { return '' } }
      class Parser { string() {} boolean() {} }
      export { FieldReader }
    `
    expect(findOtherReaders(text, 'y.ts')).toEqual([])
  })

  it('counts hand-written Invalid*Error throws per package folder', () => {
    const counts = countInvalidThrows()
    expect(Object.keys(counts)).toContain('core')
    for (const n of Object.values(counts)) expect(Number.isSafeInteger(n) && n > 0).toBe(true)
  })
})
