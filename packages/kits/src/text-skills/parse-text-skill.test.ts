import { InvalidDefinitionError, InvalidInputError } from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { parseTextSkill } from './index.js'

describe('parseTextSkill', () => {
  it('takes the first paragraph that is not a heading as the description, and keeps the whole text as the body', () => {
    const text = '# Triage\n\nSort new issues\nby area.\n\n## Steps\n1. Read.\n'
    expect(parseTextSkill(text, 'triage.md')).toEqual({ description: 'Sort new issues by area.', body: text })
  })

  it('reads a front matter description and leaves the block out of the body', () => {
    const text =
      '---\nname: ignored\ndescription: "Answer billing questions."\ntools: [refund]\n---\n# Billing\nSteps.\n'
    expect(parseTextSkill(text, 'billing.md')).toEqual({
      description: 'Answer billing questions.',
      body: '# Billing\nSteps.\n',
    })
  })

  it('folds a block-scalar description and accepts CRLF and a closing "..."', () => {
    const text = '---\r\ndescription: >\r\n  Plan a release\r\n  in three steps.\r\n...\r\nBody\r\n'
    expect(parseTextSkill(text, 'release.md')).toEqual({
      description: 'Plan a release in three steps.',
      body: 'Body\r\n',
    })
  })

  it('falls back to the first paragraph of the body when the front matter has no description', () => {
    expect(parseTextSkill('---\nname: x\n---\n\nDo the thing.\n', 'x.md')).toEqual({
      description: 'Do the thing.',
      body: '\nDo the thing.\n',
    })
  })

  it('drops a leading byte order mark', () => {
    expect(parseTextSkill('\uFEFFHello.\n', 'bom.md')).toEqual({ description: 'Hello.', body: 'Hello.\n' })
  })

  it('rejects a file without a description, naming the file and the fix', () => {
    expect(() => parseTextSkill('# Only a heading\n\n', 'empty.md')).toThrow(InvalidDefinitionError)
    expect(() => parseTextSkill('', 'empty.md')).toThrow(
      /"empty.md" has no description.*pass a parse function/,
    )
  })

  it('rejects an unterminated front matter block', () => {
    expect(() => parseTextSkill('---\ndescription: x\nBody\n', 'open.md')).toThrow(/never closes it/)
  })

  it('rejects a non-string text or path', () => {
    expect(() => parseTextSkill(Buffer.from('x') as never, 'x.md')).toThrow(InvalidInputError)
    expect(() => parseTextSkill('', Symbol('x.md') as never)).toThrow(InvalidInputError)
  })
})
