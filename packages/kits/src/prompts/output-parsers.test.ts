import { InvalidInputError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  correctionPrompt,
  OutputParseError,
  parseChoice,
  parseFencedBlock,
  parseJsonObject,
  parseLines,
  parseList,
} from './index.js'

function caught(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

/** One line of text: no line break, not blank, trimmed. */
const lineText = fc
  .string({ minLength: 1, maxLength: 20 })
  .map((s) => s.replace(/[\r\n\u2028\u2029]/g, ' ').trim())
  .filter((s) => s !== '')

describe('parseLines', () => {
  it('returns the trimmed non-empty lines', () => {
    expect(parseLines('a\n\n  b \r\nc\r')).toEqual(['a', 'b', 'c'])
    expect(parseLines('')).toEqual([])
  })
  it('property: round trip of joined lines', () => {
    fc.assert(
      fc.property(fc.array(lineText), fc.constantFrom('\n', '\r\n', '\n\n'), (lines, sep) => {
        expect(parseLines(lines.join(sep))).toEqual(lines)
      }),
    )
  })
})

describe('parseList', () => {
  it('reads bullets and numbers, skips an introduction and a closing remark', () => {
    expect(parseList('Three ports:\n1. Brest\n2) Lyon\n  (inland)\n3. Nice\n\nEnjoy!')).toEqual([
      'Brest',
      'Lyon (inland)',
      'Nice',
    ])
    expect(parseList('* a\n+ b\n• c\n- d')).toEqual(['a', 'b', 'c', 'd'])
  })
  it('refuses a text without items', () => {
    const error = caught(() => parseList('No list here.'))
    expect(OutputParseError.isInstance(error)).toBe(true)
    expect((error as OutputParseError).details.parser).toBe('list')
  })
  it('property: round trip of formatted items', () => {
    fc.assert(
      fc.property(
        fc.array(lineText, { minLength: 1 }),
        fc.constantFrom('bullet', 'number', 'paren'),
        fc.option(
          lineText.filter((s) => !/^(?:[-*+•]|\d{1,9}[.)])\s/.test(s)),
          { nil: undefined },
        ),
        (items, style, intro) => {
          const list = items
            .map((item, i) =>
              style === 'bullet'
                ? `- ${item}`
                : style === 'number'
                  ? `${i + 1}. ${item}`
                  : `${i + 1}) ${item}`,
            )
            .join('\n')
          expect(parseList(intro === undefined ? list : `${intro}\n\n${list}`)).toEqual(items)
        },
      ),
    )
  })
})

describe('parseChoice', () => {
  const labels = ['positive', 'negative', 'neutral'] as const
  it('takes an exact answer, emphasis and punctuation aside, or the one choice named', () => {
    expect(parseChoice(' "Negative." ', labels)).toBe('negative')
    expect(parseChoice('**NEUTRAL**', labels)).toBe('neutral')
    expect(parseChoice('I think it is positive overall.', labels)).toBe('positive')
    expect(() => parseChoice('POSITIVE', labels, { caseSensitive: true })).toThrow(OutputParseError)
  })
  it('refuses none or several, with the choices in the details', () => {
    const none = caught(() => parseChoice('Hard to say', labels)) as OutputParseError
    expect(none.details).toMatchObject({
      parser: 'choice',
      choices: labels,
      problem: 'names none of the choices',
    })
    const both = caught(() => parseChoice('positive or negative', labels)) as OutputParseError
    expect(both.details.problem).toMatch(/several/)
    // Whole words only: "nonpositive" names no choice.
    expect(() => parseChoice('nonpositive', labels)).toThrow(OutputParseError)
  })
  it('property: every choice round trips, whatever the case', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 1, maxLength: 6 }),
        fc.nat(),
        (choices, pick) => {
          const choice = choices[pick % choices.length]!
          expect(parseChoice(choice.toUpperCase(), choices)).toBe(choice)
        },
      ),
    )
  })
  it('refuses bad choices', () => {
    for (const bad of [[], 'yes', [''], ['a', 'A'], [1]])
      expect(() => parseChoice('a', bad as never)).toThrow(InvalidInputError)
    expect(() => parseChoice('a', ['a'], { caseSensitive: 'yes' as never })).toThrow(InvalidInputError)
    expect(() => parseChoice(3 as never, ['a'])).toThrow(InvalidInputError)
  })
})

describe('parseFencedBlock', () => {
  it('takes the first block, or the first in a language, an unclosed one to the end', () => {
    const text = 'Intro\n```json\n{"a":1}\n```\nthen\n~~~ts title\nconst a = 1\n~~~\n'
    expect(parseFencedBlock(text)).toEqual({ language: 'json', code: '{"a":1}' })
    expect(parseFencedBlock(text, { language: 'TS' })).toEqual({ language: 'ts', code: 'const a = 1' })
    expect(parseFencedBlock('```\nopen\nstill')).toEqual({ language: '', code: 'open\nstill' })
    expect(parseFencedBlock('````md\n```\ninner\n```\n````')).toEqual({
      language: 'md',
      code: '```\ninner\n```',
    })
  })
  it('refuses a text without one', () => {
    expect((caught(() => parseFencedBlock('no code')) as OutputParseError).details.parser).toBe(
      'fenced-block',
    )
    expect(() => parseFencedBlock('```js\nx\n```', { language: 'py' })).toThrow(/no fenced py block/)
    expect(() => parseFencedBlock('x', { language: '' })).toThrow(InvalidInputError)
  })
  it('property: round trip of any code without a fence line', () => {
    const codeLine = fc.string({ maxLength: 12 }).map((s) => s.replace(/[\r\n\u2028\u2029]/g, ''))
    fc.assert(
      fc.property(
        fc.array(codeLine, { maxLength: 6 }),
        fc.stringMatching(/^[a-z]{0,5}$/),
        lineText,
        (lines, language, prose) => {
          fc.pre(lines.every((line) => !/^\s*(`{3,}|~{3,})\s*$/.test(line)) && !/`{3}|~{3}/.test(prose))
          const code = lines.join('\n')
          expect(parseFencedBlock(`${prose}\n\`\`\`${language}\n${code}\n\`\`\`\n${prose}`)).toEqual({
            language,
            code,
          })
        },
      ),
    )
  })
})

describe('parseJsonObject', () => {
  it('finds the first balanced object in prose', () => {
    expect(
      parseJsonObject('Sure {like this} here: {"a": {"b": "}"}, "c": [1, {"d": 2}]} bye {"e": 3}'),
    ).toEqual({
      a: { b: '}' },
      c: [1, { d: 2 }],
    })
    expect(parseJsonObject('```json\n{"ok": true}\n```')).toEqual({ ok: true })
  })
  it('refuses text with no object, and says when one is unclosed', () => {
    expect((caught(() => parseJsonObject('[1, 2]')) as OutputParseError).details.problem).toBe(
      'holds no JSON object',
    )
    expect((caught(() => parseJsonObject('{"a": 1')) as OutputParseError).details.problem).toMatch(
      /never closed/,
    )
  })
  it('property: round trip of any JSON object inside prose', () => {
    const prose = fc.string({ maxLength: 20 }).map((s) => s.replace(/[{}]/g, ''))
    fc.assert(
      fc.property(prose, fc.dictionary(fc.string(), fc.jsonValue()), prose, (before, value, after) => {
        expect(parseJsonObject(`${before}${JSON.stringify(value, null, 1)}${after}`)).toEqual(
          JSON.parse(JSON.stringify(value)),
        )
      }),
    )
  })
})

describe('correctionPrompt', () => {
  it('says what was wrong and what is expected, quoting the output', () => {
    const error = caught(() => parseChoice('Maybe', ['yes', 'no'])) as OutputParseError
    const message = correctionPrompt(error, { output: 'Maybe', instructions: 'One word.' })
    expect(message.role).toBe('user')
    expect(message.content).toBe(
      'Your previous answer names none of the choices.\n\nIt was:\nMaybe\n\nAnswer with exactly one of: "yes", "no", and nothing else.\nOne word.\nAnswer again, in that format.',
    )
  })
  it('refuses anything but an OutputParseError', () => {
    expect(() => correctionPrompt(new Error('x') as never)).toThrow(InvalidInputError)
    const error = caught(() => parseList('')) as OutputParseError
    expect(() => correctionPrompt(error, { output: 3 as never })).toThrow(InvalidInputError)
    expect(() => correctionPrompt(error, null as never)).toThrow(InvalidInputError)
  })
})
