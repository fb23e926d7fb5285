import { describe, expect, it } from 'vitest'
import { checkedFiles, checkFunctionLengths, findLongFunctions, functionSpans } from './function-length.mjs'

/** `count` statement lines, to make a body of a known length. */
const statements = (count: number, indent = '  ') =>
  Array.from({ length: count }, (_, i) => `${indent}void ${i}`).join('\n')

describe('engines as pipelines: no function over 150 lines (issue 29)', () => {
  it('finds no long function in packages/mock/src and packages/kits/src/sandbox', () => {
    expect(checkedFiles().length).toBeGreaterThan(10)
    expect(checkFunctionLengths()).toEqual([])
  })

  it('reports a long function by file, line, name and length, not a short one', () => {
    const text = [
      'export function short() {',
      statements(3),
      '}',
      'export function long() {',
      statements(150),
      '}',
    ].join('\n')
    expect(findLongFunctions(text, 'x.ts')).toEqual(['x.ts:6 long (152 lines)'])
    expect(findLongFunctions(text, 'x.ts', 152)).toEqual([])
  })

  it('counts nested functions separately, and each kind of function with a body', () => {
    const text = [
      'const outer = () => {',
      '  const inner = function () {',
      statements(4, '    '),
      '  }',
      '  return inner',
      '}',
      'class Box {',
      '  constructor() {}',
      '  get size() { return 1 }',
      '  set size(value: number) {}',
      '  open(): void {',
      '    [1].map((n) => n)',
      '  }',
      '  declare(): void',
      '}',
    ].join('\n')
    expect(functionSpans(text, 'y.ts').map(({ line, name, lines }) => `${line} ${name} ${lines}`)).toEqual([
      '1 outer 9',
      '2 inner 6',
      '11 constructor 1',
      '12 get size 1',
      '13 set size 1',
      '14 open 3',
      '15 (callback of [1].map) 1',
    ])
    expect(findLongFunctions(text, 'y.ts', 6)).toEqual(['y.ts:1 outer (9 lines)'])
  })
})
