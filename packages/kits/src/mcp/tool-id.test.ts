import { InvalidInputError } from '@agent-core/core'
import { TOOL_ID_PATTERN } from '@agent-core/core/tools'
import { DEFAULT_TOOL_ID_SEPARATOR, mcpToolId } from '@agent-core/kits/mcp'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

const SAFE = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-']
const safe = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...SAFE), minLength: min, maxLength: max })
const server = safe(1, 32)
const separator = safe(1, 8)
const tool = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 120 })

/** The reference model: the joined name, every character outside the safe set replaced by `_`. */
function reference(serverName: string, toolName: string, sep: string): string {
  return `${serverName}${sep}${[...toolName].map((unit) => (SAFE.includes(unit) ? unit : '_'.repeat(unit.length))).join('')}`
}

describe('mcpToolId', () => {
  it('names tools <server>__<tool> by default', () => {
    expect(DEFAULT_TOOL_ID_SEPARATOR).toBe('__')
    expect(mcpToolId('github', 'search_issues')).toBe('github__search_issues')
    expect(mcpToolId('files', 'fs.read/v2')).toBe('files__fs_read_v2')
    expect(mcpToolId('files', 'read', '-')).toBe('files-read')
  })

  it('always gives an id core and model providers accept, the same one every time (property)', () => {
    fc.assert(
      fc.property(server, tool, separator, (s, t, sep) => {
        const id = mcpToolId(s, t, sep)
        expect(id).toMatch(TOOL_ID_PATTERN)
        expect(mcpToolId(s, t, sep)).toBe(id)
      }),
      { numRuns: 2_000 },
    )
  })

  it('is the joined, sanitized name when that fits; otherwise its first 55 characters and a hash (property)', () => {
    fc.assert(
      fc.property(server, tool, separator, (s, t, sep) => {
        const expected = reference(s, t, sep)
        const id = mcpToolId(s, t, sep)
        if (expected.length <= 64) expect(id).toBe(expected)
        else {
          expect(id).toHaveLength(64)
          expect(id.slice(0, 55)).toBe(expected.slice(0, 55))
          expect(id.slice(55)).toMatch(/^_[0-9a-f]{8}$/)
        }
      }),
      { numRuns: 2_000 },
    )
  })

  it('keeps long names with a common beginning apart (property)', () => {
    const long = 'x'.repeat(70)
    fc.assert(
      fc.property(fc.uniqueArray(safe(1, 12), { minLength: 2, maxLength: 20 }), (endings) => {
        const ids = endings.map((ending) => mcpToolId('srv', `${long}${ending}`))
        expect(new Set(ids).size).toBe(endings.length)
      }),
    )
  })

  it('refuses a server name, tool name or separator that cannot be part of an id', () => {
    for (const [s, t, sep] of [
      ['git hub', 'x', '__'],
      ['', 'x', '__'],
      ['x'.repeat(33), 'x', '__'],
      ['github', '', '__'],
      ['github', 'x', '.'],
      ['github', 'x', ''],
    ] as const) {
      expect(() => mcpToolId(s, t, sep)).toThrow(InvalidInputError)
    }
  })
})
