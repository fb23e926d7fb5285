import { InvalidInputError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { defineChatPrompt, definePromptTemplate, MissingPromptVariablesError } from './index.js'

const name = fc.constantFrom('a', 'b', 'c', 'user_name', 'x.y', 'n-1')
const literal = fc.string({ maxLength: 8 }).map((s) => s.replaceAll('{', '(').replaceAll('\\', '/'))
/** A template as pieces, with the reference rendering done by hand. */
const pieces = fc.array(
  fc.oneof(
    literal.map((text) => ({ text })),
    name.map((n) => ({ name: n })),
  ),
  {
    maxLength: 12,
  },
)
const source = (list: readonly ({ text: string } | { name: string })[]) =>
  list.map((p) => ('text' in p ? p.text : `{{${p.name}}}`)).join('')
const reference = (list: readonly ({ text: string } | { name: string })[], values: Record<string, string>) =>
  list.map((p) => ('text' in p ? p.text : values[p.name])).join('')
/** Values may themselves look like templates: they are never read as one. */
const value = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('{{a}}', '\\{{b}}', '}}'))

describe('definePromptTemplate', () => {
  it('renders placeholders, with spaces in the braces and escaped braces', () => {
    const template = definePromptTemplate('Hi {{ name }}, \\{{literal}} {{name}}!')
    expect(template.variables).toEqual(['name'])
    expect(template.render({ name: 'Ada' })).toBe('Hi Ada, {{literal}} Ada!')
    expect(definePromptTemplate('{{n}} {{ok}}').render({ n: 3, ok: false })).toBe('3 false')
  })

  it('names every missing placeholder in a typed error', () => {
    const template = definePromptTemplate('{{a}} {{b}} {{a}} {{c}}')
    const error = (() => {
      try {
        template.render({ b: 'x', d: 'unused' })
      } catch (caught) {
        return caught
      }
    })()
    expect(MissingPromptVariablesError.isInstance(error)).toBe(true)
    expect((error as MissingPromptVariablesError).details).toEqual({ missing: ['a', 'c'], given: ['b', 'd'] })
    expect((error as Error).message).toMatch(/"a", "c".*partial/)
  })

  it('reports missing and unused names without throwing', () => {
    expect(definePromptTemplate('{{a}}{{b}}').check({ a: 1, z: 2 })).toEqual({
      missing: ['b'],
      unused: ['z'],
    })
    expect(definePromptTemplate('plain').check()).toEqual({ missing: [], unused: [] })
  })

  it('partial keeps unknown placeholders and never re-reads a value', () => {
    const template = definePromptTemplate('{{a}} and {{b}}')
    const half = template.partial({ a: '{{b}}' })
    expect(half.variables).toEqual(['b'])
    expect(half.render({ b: 'B' })).toBe('{{b}} and B')
    expect(half.segments).toEqual([{ text: '{{b}} and ' }, { name: 'b' }])
  })

  it('property: rendering after a partial rendering equals the full rendering (and the reference)', () => {
    fc.assert(
      fc.property(pieces, fc.dictionary(name, value), fc.dictionary(name, value), (list, first, second) => {
        const template = definePromptTemplate(source(list))
        const all = {
          ...Object.fromEntries(template.variables.map((n) => [n, `<${n}>`])),
          ...second,
          ...first,
        }
        const rest = Object.fromEntries(Object.entries(all).filter(([key]) => !(key in first)))
        const full = template.render(all)
        expect(template.partial(first).render(rest)).toBe(full)
        expect(full).toBe(reference(list, all))
        expect(template.partial(first).check(rest).missing).toEqual([])
      }),
    )
  })

  it('property: missing is exactly the variables without a value', () => {
    fc.assert(
      fc.property(pieces, fc.dictionary(name, value), (list, values) => {
        const template = definePromptTemplate(source(list))
        const check = template.check(values)
        expect(check.missing).toEqual(template.variables.filter((n) => !(n in values)))
        expect(check.unused).toEqual(Object.keys(values).filter((n) => !template.variables.includes(n)))
      }),
    )
  })

  it('refuses bad input with typed errors', () => {
    for (const bad of ['{{}}', '{{1a}}', '{{a b}}', 'open {{a', '{{ a }'])
      expect(() => definePromptTemplate(bad)).toThrow(InvalidInputError)
    expect(() => definePromptTemplate(3 as never)).toThrow(InvalidInputError)
    const template = definePromptTemplate('{{a}}')
    for (const bad of [null, undefined, { x: 1 }, [1], Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => template.render({ a: bad as never })).toThrow(
        bad === undefined ? MissingPromptVariablesError : InvalidInputError,
      )
    expect(() => template.render('a' as never)).toThrow(InvalidInputError)
    expect(() => template.partial(undefined as never)).toThrow(InvalidInputError)
    expect(() => template.partial({ a: Symbol('s') as never })).toThrow(InvalidInputError)
  })
})

describe('defineChatPrompt', () => {
  const prompt = defineChatPrompt([
    { role: 'system', template: 'Answer in {{language}}.' },
    { role: 'user', template: '{{question}}' },
    { role: 'assistant', template: 'In {{language}}: ok.' },
  ])

  it('renders one message per part and shares variables', () => {
    expect(prompt.variables).toEqual(['language', 'question'])
    expect(prompt.render({ language: 'French', question: 'Why?' })).toEqual([
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: 'Why?' },
      { role: 'assistant', content: 'In French: ok.' },
    ])
    expect(prompt.partial({ language: 'Basque' }).variables).toEqual(['question'])
    expect(prompt.check({ question: 'q', tone: 'x' })).toEqual({ missing: ['language'], unused: ['tone'] })
  })

  it('names missing variables across parts', () => {
    expect(() => prompt.render({ question: 'q' })).toThrow(MissingPromptVariablesError)
    try {
      prompt.render({})
    } catch (error) {
      expect((error as MissingPromptVariablesError).details.missing).toEqual(['language', 'question'])
    }
  })

  it('refuses malformed parts', () => {
    for (const bad of [
      [],
      null,
      [{ role: 'tool', template: 'x' }],
      [{ role: 'user' }],
      [{ role: 'user', template: 'x', extra: 1 }],
      ['text'],
    ])
      expect(() => defineChatPrompt(bad as never)).toThrow(InvalidInputError)
    expect(() => defineChatPrompt([{ role: 'user', template: '{{bad name}}' }])).toThrow(
      /parts\[0\]\.template/,
    )
  })
})
