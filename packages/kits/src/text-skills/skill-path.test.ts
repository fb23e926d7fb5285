import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkSkillPath } from './skill-path.js'

describe('checkSkillPath', () => {
  it.each([
    ['triage.md', 'triage.md'],
    ['./skills/triage.md', 'skills/triage.md'],
    ['skills//a/./b.md', 'skills/a/b.md'],
    ['skills\\win\\b.md', 'skills/win/b.md'],
    ['.hidden/x', '.hidden/x'],
    ['a..b/c', 'a..b/c'],
    ['名前/スキル.md', '名前/スキル.md'],
  ])('accepts %j as %j', (entry, path) => {
    expect(checkSkillPath(entry)).toEqual({ ok: true, path })
  })

  it.each([
    ['../secret.md', "'..'"],
    ['skills/../../secret.md', "'..'"],
    ['skills\\..\\..\\secret.md', "'..'"],
    ['..', "'..'"],
    ['a/.. /b', "'.. '"],
    ['a/.../b', "'...'"],
    ['/etc/passwd', 'absolute'],
    ['\\\\server\\share\\x', 'absolute'],
    ['C:\\Windows\\x', "':'"],
    ['c:x', "':'"],
    ['file:///etc/passwd', "':'"],
    ['a\u0000.md', 'NUL'],
    ['', 'empty'],
    ['skills/', 'separator'],
    ['.', 'no file'],
    ['./', 'separator'],
  ])('refuses %j (%s)', (entry, reason) => {
    const result = checkSkillPath(entry)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.reason).toContain(reason)
  })

  it('refuses non-strings', () => {
    for (const value of [undefined, null, 1, ['a.md'], { path: 'a.md' }])
      expect(checkSkillPath(value).ok).toBe(false)
  })

  it('only ever accepts paths that stay inside the root once resolved', () => {
    const segment = fc.oneof(
      fc.constantFrom('..', '.', '', 'a', 'b.md', '.. ', '...', 'C:', '\u0000', ' '),
      fc.string({ unit: fc.constantFrom('a', '.', ' ', ':', '\\', '/'), maxLength: 4 }),
    )
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), fc.constantFrom('/', '\\'), (segments, separator) => {
        const entry = segments.join(separator)
        const result = checkSkillPath(entry)
        if (!result.ok) return
        // Resolve like a file system would, trimming trailing dots/spaces as Windows does.
        const depth = result.path.split('/').reduce((level, part) => {
          const trimmed = part.replace(/[. ]+$/, '')
          if (part === '..' || (trimmed === '' && part.length > 1)) return level - 1
          return level + 1
        }, 0)
        expect(depth).toBeGreaterThan(0)
        expect(result.path.startsWith('/')).toBe(false)
        for (const forbidden of ['\u0000', ':', '\\']) expect(result.path).not.toContain(forbidden)
        expect(result.path.split('/')).not.toContain('..')
        expect(result.path.split('/')).not.toContain('')
      }),
      { numRuns: 2000 },
    )
  })
})
