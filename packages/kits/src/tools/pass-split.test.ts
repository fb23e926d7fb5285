/**
 * The run path of a tool call (the pass) is loaded by a registry's first call, not at import
 * (internal/tool-pass.ts, docs/design/cold-import.md). These checks read the source's import
 * statements: nothing the public entry loads statically reaches that code, and the pass reaches the rest
 * of the kit only through internal/pass-host.ts (a plain import would make the build split the
 * shared code into one more chunk that every import of the kit loads). The loop kit's engine-split.test.ts
 * checks its engine the same way.
 */
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { lazySplit } from '../testing/lazy-split.js'

const split = lazySplit(dirname(fileURLToPath(import.meta.url)), 'internal/tool-pass.ts')

describe('the lazily loaded pass', () => {
  it('is not reached from the public entry by a static import', () => {
    expect(split.entry).not.toContain('internal/tool-pass.ts')
    expect(split.entry).not.toContain('internal/settlement.ts')
    expect(split.lazy).toEqual([
      'internal/default-message.ts',
      'internal/pass-host.ts',
      'internal/settlement.ts',
      'internal/tool-pass.ts',
    ])
  })

  it('imports from the rest of the kit only through pass-host.ts', () => {
    expect(split.crossings).toEqual([])
  })
})
