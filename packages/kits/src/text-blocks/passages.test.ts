import { InvalidInputError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { garbage, typed } from '../testing/garbage.js'
import { TextBlocks, type TextPassage } from './index.js'

const guide = [
  '# Search kit',
  '',
  'Hybrid search over a local corpus.',
  '',
  '## Snapshots',
  '',
  'Both indexes snapshot to JSON.',
  '',
  'A snapshot carries a fingerprint.',
  '',
  '### Binary form',
  '',
  'Large indexes stream.',
  '',
  '## Errors',
  '',
  '```sh',
  '# not a heading',
  '```',
  '',
].join('\n')

describe('TextBlocks.passages', () => {
  it('merges blocks up to the target, starts at headings and carries the heading path', () => {
    const passages = TextBlocks.passages(guide, { targetChars: 200 })
    expect(passages.map((p) => [p.number, p.headingPath, p.text])).toEqual([
      [1, ['Search kit'], '# Search kit\n\nHybrid search over a local corpus.\n\n'],
      [
        2,
        ['Search kit', 'Snapshots'],
        '## Snapshots\n\nBoth indexes snapshot to JSON.\n\nA snapshot carries a fingerprint.\n\n',
      ],
      [3, ['Search kit', 'Snapshots', 'Binary form'], '### Binary form\n\nLarge indexes stream.\n\n'],
      [4, ['Search kit', 'Errors'], '## Errors\n\n```sh\n# not a heading\n```\n'],
    ])
    expect(passages.map((p) => p.text).join('')).toBe(guide)
    for (const p of passages) expect(guide.slice(p.start, p.end)).toBe(p.text)
  })

  it('never leaves a heading alone, and breaks a long section into passages under the same path', () => {
    const text = `# Title\n\n## Part\n\n${'One sentence here. '.repeat(20)}\n\n${'Another line.\n'.repeat(10)}`
    const passages = TextBlocks.passages(text, { targetChars: 120 })
    expect(passages[0]!.text.startsWith('# Title\n\n## Part\n\nOne sentence')).toBe(true)
    expect(new Set(passages.map((p) => p.headingPath.join(' > ')))).toEqual(new Set(['Title > Part']))
    // The long line is cut after sentence ends, never in the middle of a word.
    for (const p of passages.slice(0, -1)) expect(/[.\n ]$/.test(p.text)).toBe(true)
    expect(passages.map((p) => p.text).join('')).toBe(text)
  })

  it('reads setext headings and closing hashes', () => {
    const text = 'Guide\n=====\n\nIntro.\n\nSetup ##\n-----\n\nSteps.\n\n## Usage ##\n\nRun.\n'
    expect(TextBlocks.passages(text, { targetChars: 1000 }).map((p) => p.headingPath)).toEqual([
      ['Guide'],
      ['Guide', 'Setup ##'],
      ['Guide', 'Usage'],
    ])
  })

  it('repeats the end of the previous passage of the same section, from a line start', () => {
    const text = `# A\n\n${Array.from({ length: 12 }, (_, i) => `Line number ${i} of the section.`).join('\n')}\n\n# B\n\nOther.\n`
    const passages = TextBlocks.passages(text, { targetChars: 150, overlapChars: 40 })
    for (let i = 1; i < passages.length; i++) {
      const p = passages[i]!
      const previous = passages[i - 1]!
      expect(text.slice(p.start, p.end)).toBe(p.text)
      if (p.text.startsWith('#')) expect(p.start).toBe(previous.end)
      else {
        expect(p.start).toBeLessThan(previous.end)
        expect(previous.end - p.start).toBeLessThanOrEqual(40)
        expect(text.charAt(p.start - 1)).toBe('\n')
      }
    }
  })

  it('rejects bad options with the field named', () => {
    const error = (run: () => unknown) => {
      try {
        run()
      } catch (e) {
        return e as InvalidInputError
      }
      throw new Error('expected a throw')
    }
    expect(error(() => TextBlocks.passages('x', { targetChars: 0 })).details.field).toBe(
      'options.targetChars',
    )
    expect(error(() => TextBlocks.passages('x', { targetChars: 10, overlapChars: 10 })).details.field).toBe(
      'options.overlapChars',
    )
    expect(error(() => TextBlocks.passages('x', { targetChars: 10, overlapChars: -1 })).details.field).toBe(
      'options.overlapChars',
    )
    expect(
      InvalidInputError.isInstance(error(() => TextBlocks.passages(42 as never, { targetChars: 10 }))),
    ).toBe(true)
    expect(TextBlocks.passages('', { targetChars: 10 })).toEqual([])
  })

  it('only ever throws typed errors on garbage (property)', () => {
    fc.assert(
      fc.property(garbage, garbage, fc.string(), (a, b, text) => {
        typed(() => TextBlocks.passages(a as string, b as never))
        typed(() => TextBlocks.passages(text, { targetChars: 50, overlapChars: a } as never))
        typed(() => TextBlocks.passages(text, { targetChars: a } as never))
      }),
      { numRuns: 300 },
    )
  })
})

/** Markdown-ish text from lines that exercise every rule, astral characters and CRLF included. */
const line = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '# One',
    '## Two',
    '### Three',
    '#### Four',
    '---',
    '===',
    '```',
    '- item',
    'text.',
    'x',
  ),
  fc.string({ unit: fc.constantFrom('a', ' ', '.', 'é', '😀', '\t', 'w'), maxLength: 90 }),
)
const markdown = fc
  .tuple(fc.array(line, { maxLength: 40 }), fc.constantFrom('\n', '\r\n', '\r'))
  .map(([lines, eol]) => lines.join(eol))

/** The heading path a scan of ATX headings gives at `offset` (texts without fences or setext). */
function pathAt(text: string, offset: number): string[] {
  const stack: { level: number; text: string }[] = []
  let at = 0
  for (const raw of text.split('\n')) {
    if (at >= offset) break
    const match = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/.exec(raw)
    if (match) {
      const level = match[1]!.length
      const title = (match[2] ?? '').replace(/(^|[ \t]+)#+$/, '').trim()
      while (stack.length > 0 && stack.at(-1)!.level >= level) stack.pop()
      stack.push({ level, text: title })
    }
    at += raw.length + 1
  }
  return stack.map((h) => h.text)
}

/** Where a passage's own content starts: past the headings and blank lines that open it. */
function contentStart(p: TextPassage): number {
  let at = p.start
  for (const match of p.text.matchAll(/[^\r\n]*(\r\n|\r|\n|$)/g)) {
    const raw = match[0].replace(/[\r\n]+$/, '')
    if (match[0] === '' || (raw.trim() !== '' && !/^ {0,3}#{1,6}([ \t]|$)/.test(raw))) break
    at += match[0].length
  }
  return Math.min(at, p.end)
}

describe('TextBlocks.passages properties', () => {
  it('offsets slice the source to the passage text; without overlap the passages rebuild it', () => {
    fc.assert(
      fc.property(markdown, fc.integer({ min: 1, max: 200 }), (text, targetChars) => {
        const passages = TextBlocks.passages(text, { targetChars })
        expect(passages.map((p) => p.text).join('')).toBe(text)
        passages.forEach((p, i) => {
          expect(p.number).toBe(i + 1)
          expect(text.slice(p.start, p.end)).toBe(p.text)
          // A cut never splits a surrogate pair.
          const first = text.charCodeAt(p.start)
          expect(
            first >= 0xdc00 &&
              first <= 0xdfff &&
              p.start > 0 &&
              text.charCodeAt(p.start - 1) >= 0xd800 &&
              text.charCodeAt(p.start - 1) <= 0xdbff,
          ).toBe(false)
        })
      }),
      { numRuns: 400 },
    )
  })

  it('with overlap, each passage repeats at most overlapChars of its predecessor and the ends stay contiguous', () => {
    fc.assert(
      fc.property(
        markdown,
        fc.integer({ min: 2, max: 200 }),
        fc.integer({ min: 0, max: 199 }),
        (text, targetChars, o) => {
          const overlapChars = o % targetChars
          const plain = TextBlocks.passages(text, { targetChars })
          const passages = TextBlocks.passages(text, { targetChars, overlapChars })
          expect(passages.map((p) => [p.end, p.headingPath])).toEqual(
            plain.map((p) => [p.end, p.headingPath]),
          )
          passages.forEach((p, i) => {
            expect(text.slice(p.start, p.end)).toBe(p.text)
            const own = plain[i]!.start
            expect(p.start).toBeLessThanOrEqual(own)
            if (i > 0) {
              expect(own - p.start).toBeLessThanOrEqual(overlapChars)
              expect(p.start).toBeGreaterThan(plain[i - 1]!.start)
            } else expect(p.start).toBe(own)
          })
        },
      ),
      { numRuns: 300 },
    )
  })

  it('stays within targetChars, past the headings that open it and its closing blank lines', () => {
    // ATX headings only, so that the line scan of the test knows every heading.
    const atx = markdown.filter((text) => !/(^|[\r\n]) {0,3}(=+|-+)[ \t]*($|[\r\n])/.test(text))
    fc.assert(
      fc.property(atx, fc.integer({ min: 1, max: 200 }), (text, targetChars) => {
        for (const p of TextBlocks.passages(text, { targetChars })) {
          const body = text.slice(contentStart(p), p.end).trimEnd()
          // Only a single astral character (a surrogate pair) may pass a target of 1.
          if (body.length > targetChars) expect([...body].length).toBe(1)
          else expect(body.length).toBeLessThanOrEqual(targetChars)
        }
      }),
      { numRuns: 400 },
    )
  })

  it('carries the path of the ATX headings above its content (against a line scan)', () => {
    const lf = fc.array(fc.oneof(line.filter((l) => !l.includes('`') && !/^(=+|-+)$/.test(l.trim()))), {
      maxLength: 40,
    })
    fc.assert(
      fc.property(lf, fc.integer({ min: 1, max: 200 }), (lines, targetChars) => {
        const text = lines.join('\n')
        for (const p of TextBlocks.passages(text, { targetChars })) {
          expect(p.headingPath).toEqual(pathAt(text, contentStart(p)))
        }
      }),
      { numRuns: 400 },
    )
  })
})
