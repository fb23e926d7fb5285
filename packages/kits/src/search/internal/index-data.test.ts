import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { adoptParsedIndexData, copyIndexData } from './index-data.js'

const nested = (depth: number): unknown => {
  let value: unknown = 'leaf'
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { next: value }
  return value
}

describe('adoptParsedIndexData (what restoreFrom does with the documents it parses)', () => {
  it('gives what copyIndexData gives, for any JSON text (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value)
        const adopted = adoptParsedIndexData(JSON.parse(text), 'doc', 'documents[0]')
        const copied = copyIndexData(JSON.parse(text), 'doc', 'documents[0]')
        expect(adopted.json).toBe(copied.json)
        expect(adopted.value).toEqual(copied.value)
        expect(JSON.stringify(adopted.value)).toBe(JSON.stringify(copied.value))
      }),
      { numRuns: 300 },
    )
  })

  it('adopts the parsed value itself, keeps an own "__proto__" key, and refuses nesting too deep like the copy', () => {
    const parsed = JSON.parse('{"id":"a","__proto__":{"x":1},"list":[1,{"b":null}]}')
    const adopted = adoptParsedIndexData(parsed, 'doc', 'documents[0]')
    expect(adopted.value).toBe(parsed)
    expect(Object.keys(adopted.value as object)).toEqual(['id', '__proto__', 'list'])
    expect(adoptParsedIndexData(nested(255), 'doc', 'd').value).toEqual(nested(255))
    const deep = JSON.parse(JSON.stringify(nested(300)))
    const error = (() => {
      try {
        copyIndexData(deep, 'doc', 'documents[0]')
      } catch (caught) {
        return caught as Error
      }
      return undefined
    })()
    expect(error).toBeDefined()
    expect(() => adoptParsedIndexData(deep, 'doc', 'documents[0]')).toThrow(error!.message)
  })
})
