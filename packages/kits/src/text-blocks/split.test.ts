import { InvalidInputError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TextBlocks } from './index.js'

const texts = (text: string, targetChars = 2000) => TextBlocks.split(text, { targetChars }).map((b) => b.text)

/** Units that exercise every rule: terminators, structure markers, whitespace, astral and lone surrogates. */
const tricky = fc.constantFrom(
  '\n',
  '\r',
  '\r\n',
  '\n\n',
  ' ',
  '   ',
  '    ',
  '\t',
  '#',
  '# ',
  '###### ',
  '####### ',
  '---',
  '- - -',
  '***',
  '___',
  '===',
  '```',
  '````',
  '~~~',
  '`',
  '-',
  '=',
  '*',
  'a',
  'word ',
  '😀',
  '𝔘',
  '\uD800',
  '\uDFFF',
  '\u2028',
  '\u00A0',
)
const anyText = fc.string({
  unit: fc.oneof(tricky, fc.string({ unit: 'binary', maxLength: 4 })),
  maxLength: 80,
})
const lineText = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(
          '',
          ' ',
          '  ',
          '# A',
          '## B c',
          '#x',
          '---',
          '- - -',
          '***',
          '___',
          '===',
          '```js',
          '```',
          '~~~',
        ),
        fc.string({ unit: fc.constantFrom('a', 'b', ' ', '#', '-', '=', '`', '😀', '\t'), maxLength: 12 }),
      ),
      fc.constantFrom('\n', '\r\n', '\r', '\n'),
    ),
    { maxLength: 30 },
  )
  .map((lines) => lines.map(([line, end]) => line + end).join(''))
const target = fc.integer({ min: 1, max: 60 })

// ---------------------------------------------------------------------------------------------------------
// A reference model: the same rules, written with regular expressions and arrays of lines.

const lineRe = /[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g
const blankRe = /^[ \t]*$/
const headingRe = /^ {0,3}#{1,6}(?:[ \t]|$)/
const dashesRe = /^ {0,3}-{3,}[ \t]*$/
const equalsRe = /^ {0,3}={3,}[ \t]*$/
const ruleRe = /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|(?:-[ \t]*){3,})$/
// `s`: an info string may hold any character but the line terminators \r and \n (U+2028 included)
const fenceRe = /^ {0,3}(`{3,}|~{3,})(.*)$/s

function referenceSplit(text: string, targetChars: number): string[] {
  const blocks: string[][] = []
  let current: string[] = []
  let hasContent = false
  let closed = false
  let contentLines = 0
  let previousIsParagraph = false
  let fence: string | undefined
  const size = () => current.join('').length
  const cut = (keepLast: boolean) => {
    const moved = keepLast ? current.splice(current.length - 1, 1) : []
    blocks.push(current)
    current = moved
    contentLines = moved.length
    closed = false
  }
  for (const line of text.match(lineRe) ?? []) {
    const body = line.replace(/\r\n$|\r$|\n$/, '')
    if (fence !== undefined) {
      const closer = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`)
      if (closer.test(body)) fence = undefined
      if (hasContent && size() + line.length > targetChars) cut(false)
      current.push(line)
      hasContent = true
      contentLines++
      previousIsParagraph = false
      continue
    }
    if (blankRe.test(body)) {
      if (hasContent) closed = true
      current.push(line)
      previousIsParagraph = false
      continue
    }
    const fenceMatch = fenceRe.exec(body)
    const isFence = fenceMatch !== null && !(fenceMatch[1]?.startsWith('`') && fenceMatch[2]?.includes('`'))
    const isUnderline = dashesRe.test(body) || equalsRe.test(body)
    let paragraph = !headingRe.test(body) && !ruleRe.test(body) && !isFence
    if (closed) cut(false)
    else if (hasContent) {
      if (headingRe.test(body) || (ruleRe.test(body) && !dashesRe.test(body))) cut(false)
      else if (isUnderline && previousIsParagraph) {
        if (contentLines >= 2) cut(true)
        paragraph = false
      } else if (dashesRe.test(body)) cut(false)
      else if (size() + line.length > targetChars) cut(false)
    }
    if (isFence) fence = fenceMatch?.[1]
    current.push(line)
    hasContent = true
    contentLines++
    previousIsParagraph = paragraph
  }
  if (current.length > 0) blocks.push(current)
  return blocks.map((lines) => lines.join(''))
}

// ---------------------------------------------------------------------------------------------------------

describe('TextBlocks.split: invariants', () => {
  it('reassembles any string exactly, with contiguous offsets and numbers 1..n', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, lineText), target, (text, targetChars) => {
        const blocks = TextBlocks.split(text, { targetChars })
        expect(blocks.map((b) => b.text).join('')).toBe(text)
        let offset = 0
        blocks.forEach((block, index) => {
          expect(block.number).toBe(index + 1)
          expect(block.start).toBe(offset)
          expect(block.end).toBeGreaterThan(block.start)
          expect(block.text).toBe(text.slice(block.start, block.end))
          offset = block.end
        })
        expect(offset).toBe(text.length)
      }),
      { numRuns: 2000 },
    )
  })

  it('treats a line separator (U+2028) after a fence as part of its info string, like any character', () => {
    // found by the reference-model property: U+2028 does not end a line (only \r and \n do)
    // an open fence: the blank line is fence content, so it is cut by size like '~~~ js\n\n' is
    expect(texts('~~~\u2028\n\n', 1)).toEqual(texts('~~~ js\n\n', 1).map((t) => t.replace(' js', '\u2028')))
    expect(texts('~~~\u2028\n\n', 1)).toEqual(['~~~\u2028\n', '\n'])
    expect(texts('~~~\u2028\nx\n~~~\n', 100)).toEqual(['~~~\u2028\nx\n~~~\n'])
  })

  it('agrees with a reference model of the rules', () => {
    fc.assert(
      fc.property(fc.oneof(lineText, anyText), target, (text, targetChars) => {
        expect(texts(text, targetChars)).toEqual(referenceSplit(text, targetChars))
      }),
      { numRuns: 2000 },
    )
  })

  it('keeps a block within targetChars unless one line alone is longer (blank separators aside)', () => {
    const plain = fc
      .array(
        fc.tuple(
          fc.string({ unit: fc.constantFrom('a', 'b', ' ', '😀'), maxLength: 30 }),
          fc.constantFrom('\n', '\r\n', '\r'),
        ),
        {
          maxLength: 40,
        },
      )
      .map((lines) => lines.map(([line, end]) => line + end).join(''))
    fc.assert(
      fc.property(plain, target, (text, targetChars) => {
        for (const block of TextBlocks.split(text, { targetChars })) {
          const content =
            block.text.match(lineRe)?.filter((line) => !blankRe.test(line.replace(/[\r\n]+$/, ''))) ?? []
          const withoutSeparators = block.text.replace(/(?:[ \t]*(?:\r\n|\r|\n))+$/, '')
          if (content.length > 1) expect(withoutSeparators.length).toBeLessThanOrEqual(targetChars)
        }
      }),
      { numRuns: 1000 },
    )
  })

  it('is deterministic and independent of the string object passed', () => {
    fc.assert(
      fc.property(anyText, target, (text, targetChars) => {
        const copy = `${text}x`.slice(0, -1)
        expect(TextBlocks.split(copy, { targetChars })).toEqual(TextBlocks.split(text, { targetChars }))
      }),
    )
  })
})

describe('TextBlocks.split: rules', () => {
  it('returns [] for the empty string', () => {
    expect(TextBlocks.split('', { targetChars: 1 })).toEqual([])
  })

  it('starts a block at each heading and keeps the blank separator at the end of the block it closes', () => {
    const text = '# Intro\nHello.\n\n## Usage\nRun it.\n'
    expect(TextBlocks.split(text, { targetChars: 100 })).toEqual([
      { number: 1, text: '# Intro\nHello.\n\n', start: 0, end: 16 },
      { number: 2, text: '## Usage\nRun it.\n', start: 16, end: 33 },
    ])
  })

  it('starts a block at a heading even without a blank line before it', () => {
    expect(texts('intro\n# A\nx\n### B\n')).toEqual(['intro\n', '# A\nx\n', '### B\n'])
  })

  it('does not treat #hashtags, seven hashes or indented code as headings', () => {
    expect(texts('a\n#tag\n####### no\n    # code\n')).toEqual(['a\n#tag\n####### no\n    # code\n'])
  })

  it('starts a block at a thematic break', () => {
    expect(texts('a\n***\nb\n- - -\nc\n___\n')).toEqual(['a\n', '***\nb\n', '- - -\nc\n', '___\n'])
    expect(texts('a\n\n---\nb\n')).toEqual(['a\n\n', '---\nb\n'])
  })

  it('reads ===/--- under a paragraph line as a setext heading that starts a block', () => {
    expect(texts('intro\nTitle\n=====\nbody\nSub\n---\nmore\n')).toEqual([
      'intro\n',
      'Title\n=====\nbody\n',
      'Sub\n---\nmore\n',
    ])
    expect(texts('===\nx\n')).toEqual(['===\nx\n'])
  })

  it('ends a block at blank lines (spaces and tabs count as blank)', () => {
    expect(texts('a\nb\n \t\n\nc\n')).toEqual(['a\nb\n \t\n\n', 'c\n'])
  })

  it('keeps leading blank lines in the first block and a whitespace-only text as one block', () => {
    expect(texts('\n\n# A\nx\n')).toEqual(['\n\n# A\nx\n'])
    expect(texts(' \n\t\r\n')).toEqual([' \n\t\r\n'])
  })

  it('breaks long runs at line boundaries once targetChars would be exceeded', () => {
    expect(texts('aaaa\nbbbb\ncccc\n', 10)).toEqual(['aaaa\nbbbb\n', 'cccc\n'])
    expect(texts('aaaa\nbbbb\ncccc\n', 9)).toEqual(['aaaa\n', 'bbbb\n', 'cccc\n'])
  })

  it('keeps a single over-long line as one block', () => {
    const long = 'x'.repeat(50)
    expect(texts(`a\n${long}\nb\n`, 10)).toEqual(['a\n', `${long}\n`, 'b\n'])
  })

  it('treats CRLF and lone CR as line ends and keeps them byte for byte', () => {
    expect(texts('a\r\nb\r\n\r\nc\rd\r\re')).toEqual(['a\r\nb\r\n\r\n', 'c\rd\r\r', 'e'])
    expect(texts('# A\r# B\r\n')).toEqual(['# A\r', '# B\r\n'])
  })

  it('counts UTF-16 code units for offsets and targetChars', () => {
    const blocks = TextBlocks.split('😀😀\n😀\n', { targetChars: 5 })
    expect(blocks.map((b) => [b.start, b.end])).toEqual([
      [0, 5],
      [5, 8],
    ])
  })

  it('does not split fenced code at comment lines, rules or blank lines inside it', () => {
    const text = 'Example:\n```sh\n# a comment\n\n---\nls\n```\n# Next\n'
    expect(texts(text)).toEqual(['Example:\n```sh\n# a comment\n\n---\nls\n```\n', '# Next\n'])
    expect(texts('~~~\n# x\n~~~~\n# y\n')).toEqual(['~~~\n# x\n~~~~\n', '# y\n'])
    expect(texts('```\n# x\n~~~\n# y\n')).toEqual(['```\n# x\n~~~\n# y\n'])
  })

  it('still breaks a long code fence at line boundaries', () => {
    expect(texts('```\nab\ncd\nef\n```\n', 8)).toEqual(['```\nab\n', 'cd\nef\n', '```\n'])
  })

  it('treats a backtick run followed by more backticks as text, not a fence', () => {
    expect(texts('```a`\n# H\n')).toEqual(['```a`\n', '# H\n'])
  })

  it('handles a text without a final line terminator', () => {
    expect(TextBlocks.split('abc', { targetChars: 1 })).toEqual([
      { number: 1, text: 'abc', start: 0, end: 3 },
    ])
  })
})

describe('TextBlocks.split: bad input', () => {
  const bad = (value: unknown) => () => TextBlocks.split('abc', { targetChars: value as number })

  it.each([
    0,
    -1,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.MAX_SAFE_INTEGER + 1,
    '10',
    null,
    undefined,
    10n,
  ])('rejects targetChars %s with InvalidInputError', (value) => {
    expect(bad(value)).toThrow(InvalidInputError)
    expect(bad(value)).toThrow(/targetChars must be a safe integer of at least 1.*pass a whole number/)
    let error: unknown
    try {
      bad(value)()
    } catch (thrown) {
      error = thrown
    }
    expect((error as InvalidInputError).details).toMatchObject({ field: 'options.targetChars', min: 1 })
  })

  it('rejects a text that is not a string', () => {
    for (const value of [undefined, null, 42, new Uint8Array([65]), ['a'], { toString: () => 'a' }]) {
      expect(() => TextBlocks.split(value as string, { targetChars: 10 })).toThrow(InvalidInputError)
    }
    expect(() => TextBlocks.split(Buffer.from('a') as unknown as string, { targetChars: 10 })).toThrow(
      /Decode bytes/,
    )
  })

  it('rejects missing or non-object options', () => {
    expect(() => TextBlocks.split('a', undefined as never)).toThrow(InvalidInputError)
    expect(() => TextBlocks.split('a', 10 as never)).toThrow(InvalidInputError)
  })

  it('validates options even for empty text', () => {
    expect(() => TextBlocks.split('', { targetChars: 0 })).toThrow(InvalidInputError)
  })

  it('exposes a frozen namespace', () => {
    expect(Object.isFrozen(TextBlocks)).toBe(true)
  })
})
