import { describe, expect, it } from 'vitest'
import {
  BLANK,
  classifyLine,
  closesFence,
  DASHES,
  EQUALS,
  FENCE,
  type FenceMark,
  HEADING,
  RULE,
  TEXT,
} from './line-kind.js'

const kind = (line: string) => classifyLine(line, 0, line.length, { char: 0, length: 0 })

describe('classifyLine', () => {
  it.each([
    ['', BLANK],
    ['   ', BLANK],
    [' \t ', BLANK],
    ['      ', BLANK],
    ['# Title', HEADING],
    ['#', HEADING],
    ['###### six', HEADING],
    ['#\tTabbed', HEADING],
    ['   # indented 3', HEADING],
    ['    # indented 4', TEXT],
    ['####### seven', TEXT],
    ['#hashtag', TEXT],
    ['***', RULE],
    ['_ _ _', RULE],
    ['- - -', RULE],
    ['  * * *  ', RULE],
    ['---', DASHES],
    ['------  ', DASHES],
    ['--', TEXT],
    ['- item', TEXT],
    ['***bold***', TEXT],
    ['===', EQUALS],
    ['==', TEXT],
    ['=== x', TEXT],
    ['```', FENCE],
    ['```ts no-run', FENCE],
    ['~~~~', FENCE],
    ['``', TEXT],
    ['```a`b', TEXT],
    ['~~~a`b', FENCE],
    ['plain text', TEXT],
    ['😀', TEXT],
  ])('%j is kind %i', (line, expected) => {
    expect(kind(line)).toBe(expected)
  })

  it('only reads inside [start, end)', () => {
    const text = 'xx# Heading\nmore'
    expect(classifyLine(text, 2, 11, { char: 0, length: 0 })).toBe(HEADING)
    expect(classifyLine(text, 0, 11, { char: 0, length: 0 })).toBe(TEXT)
  })

  it('records the fence that opened', () => {
    const fence: FenceMark = { char: 0, length: 0 }
    expect(classifyLine('````js', 0, 6, fence)).toBe(FENCE)
    expect(fence).toEqual({ char: 96, length: 4 })
  })
})

describe('closesFence', () => {
  const backticks: FenceMark = { char: 96, length: 3 }
  it.each([
    ['```', true],
    ['````', true],
    ['   ```  ', true],
    ['``', false],
    ['```js', false],
    ['~~~', false],
    ['    ```', false],
  ])('%j closes a ``` fence: %s', (line, expected) => {
    expect(closesFence(line, 0, line.length, backticks)).toBe(expected)
  })
})
