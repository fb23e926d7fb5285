import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  AbortedError,
  InvalidInputError,
  MemoryDiagnosticSink,
  RejectedThenableError,
} from '@agent-core/core'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chunkFiles, loadFolder } from './index.js'

let root: string
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'folder-'))
})
afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

function tree(files: Record<string, string | Uint8Array>) {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), content)
  }
}

describe('loadFolder', () => {
  it('reads text files recursively in path order, a byte order mark removed', async () => {
    tree({ 'b.md': '# B\n', 'a.txt': '\uFEFFalpha', 'sub/c.md': 'see', 'sub/deeper/d.md': 'deep' })
    const load = await loadFolder({ root })
    expect(load.files).toEqual([
      { path: 'a.txt', text: 'alpha', bytes: 8 },
      { path: 'b.md', text: '# B\n', bytes: 4 },
      { path: 'sub/c.md', text: 'see', bytes: 3 },
      { path: 'sub/deeper/d.md', text: 'deep', bytes: 4 },
    ])
    expect(load.failures).toEqual([])
    const flat = await loadFolder({ root, recursive: false })
    expect(flat.files.map((f) => f.path)).toEqual(['a.txt', 'b.md'])
  })

  it('filters by extension and by a predicate on files and folders', async () => {
    tree({ 'a.MD': 'a', 'b.txt': 'b', 'skip/c.md': 'c', 'keep/d.md': 'd', 'keep/e.png': 'e' })
    const seen: string[] = []
    const load = await loadFolder({
      root,
      extensions: ['.md'],
      filter: (entry) => {
        seen.push(`${entry.kind}:${entry.path}`)
        return entry.path !== 'skip'
      },
    })
    expect(load.files.map((f) => f.path)).toEqual(['a.MD', 'keep/d.md'])
    // Files ruled out by extension never reach the filter; folders do.
    expect(seen).toEqual(['file:a.MD', 'directory:keep', 'file:keep/d.md', 'directory:skip'])
  })

  it('reports every file it took but could not load, and why', async () => {
    tree({
      'ok.md': 'fine',
      'binary.md': new Uint8Array([0x89, 0x50, 0x00, 0x47]),
      'latin1.md': new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
      'big.md': 'x'.repeat(50),
      'loop/inner.md': 'inner',
    })
    symlinkSync(join(root, 'missing.md'), join(root, 'broken.md'))
    symlinkSync(join(root, 'loop'), join(root, 'loop/again'))
    execFileSync('mkfifo', [join(root, 'pipe.md')])
    const load = await loadFolder({ root, maxBytes: 40 })
    expect(load.files.map((f) => f.path)).toEqual(['loop/inner.md', 'ok.md'])
    expect(load.failures.map((f) => [f.path, f.reason, f.code])).toEqual([
      ['big.md', 'too-large', undefined],
      ['binary.md', 'not-text', undefined],
      ['broken.md', 'unreadable', 'ENOENT'],
      ['latin1.md', 'not-text', undefined],
      ['loop/again', 'cycle', undefined],
      ['pipe.md', 'not-a-file', undefined],
    ])
    expect(load.failures[0]?.message).toBe('big.md has 50 bytes, more than maxBytes (40).')
    expect(load.failures[2]?.message).toMatch(/link to nothing/)
  })

  it('opens and ends a span', async () => {
    tree({ 'a.md': 'a' })
    const memory = new MemoryDiagnosticSink()
    await loadFolder({ root }, { diagnostics: memory.sink })
    expect(memory.events.map((e) => e.kind)).toEqual(['folder-load-start', 'folder-load-end'])
  })

  it('refuses bad input with typed errors', async () => {
    tree({ 'a.md': 'a' })
    await expect(loadFolder(null as never)).rejects.toThrow(InvalidInputError)
    await expect(loadFolder({} as never)).rejects.toThrow(/options\.root/)
    await expect(loadFolder({ root: join(root, 'nope') })).rejects.toThrow(
      /options\.root must be a folder that can be read/,
    )
    await expect(loadFolder({ root: join(root, 'a.md') })).rejects.toThrow(/it is a file/)
    for (const maxBytes of [0, -1, 1.5, Number.NaN, '3'])
      await expect(loadFolder({ root, maxBytes: maxBytes as number })).rejects.toThrow(InvalidInputError)
    for (const extensions of [[], ['md'], 'md', [3]])
      await expect(loadFolder({ root, extensions: extensions as never })).rejects.toThrow(InvalidInputError)
    await expect(loadFolder({ root, recurse: true } as never)).rejects.toThrow(/recurse/)
    await expect(loadFolder({ root, filter: (async () => true) as never })).rejects.toThrow(
      RejectedThenableError,
    )
    await expect(loadFolder({ root, filter: (() => 'yes') as never })).rejects.toThrow(
      /options\.filter must return/,
    )
    await expect(loadFolder({ root }, { signal: AbortSignal.abort() })).rejects.toThrow(AbortedError)
  })
})

describe('chunkFiles', () => {
  it('marks a chunk whose end was forced inside a word', () => {
    const chunks = chunkFiles(
      [
        { path: 'a.txt', text: 'x'.repeat(25) },
        { path: 'b.md', text: '# Title\nshort words here\n' },
      ],
      { targetChars: 10 },
    )
    expect(chunks.map((c) => [c.path, c.number, c.forced])).toEqual([
      ['a.txt', 1, true],
      ['a.txt', 2, true],
      ['a.txt', 3, false],
      ['b.md', 1, false],
      ['b.md', 2, false],
      ['b.md', 3, false],
    ])
    expect(chunks[3]?.headingPath).toEqual(['Title'])
  })

  it('property: forced is exactly "the end splits two non-space characters", and chunks tile each file', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '.', '#', 'é'), maxLength: 80 })
    fc.assert(
      fc.property(fc.array(text, { maxLength: 3 }), fc.integer({ min: 1, max: 20 }), (texts, targetChars) => {
        const files = texts.map((t, i) => ({ path: `f${i}`, text: t }))
        const chunks = chunkFiles(files, { targetChars })
        for (const file of files) {
          const own = chunks.filter((c) => c.path === file.path)
          expect(own.map((c) => c.text).join('')).toBe(file.text)
          for (const c of own) {
            const inside =
              c.end < file.text.length && /\S/.test(file.text[c.end - 1]!) && /\S/.test(file.text[c.end]!)
            expect(c.forced).toBe(inside)
            expect(file.text.slice(c.start, c.end)).toBe(c.text)
          }
        }
      }),
    )
  })

  it('refuses bad input', () => {
    expect(() => chunkFiles('x' as never, { targetChars: 5 })).toThrow(InvalidInputError)
    expect(() => chunkFiles([{ path: 'a' }] as never, { targetChars: 5 })).toThrow(/files\[0\]/)
    expect(() => chunkFiles([{ path: 'a', text: 'b' }], { targetChars: 0 })).toThrow(InvalidInputError)
  })
})
