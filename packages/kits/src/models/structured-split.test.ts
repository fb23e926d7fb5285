/**
 * The code of generateStructured and chooseRoute is loaded by their first call, not at import
 * (internal/structured-deps.ts, docs/design/cold-import.md). These checks read the source's import
 * statements: nothing the public entry loads statically reaches that code, and that code reaches the rest
 * of the kit only through internal/structured-host.ts (a plain import would make the build split the
 * shared code into one more chunk that every import of the kit loads). The loop kit's engine-split.test.ts
 * checks its engine the same way.
 */
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { lazySplit } from '../testing/lazy-split.js'

const split = lazySplit(dirname(fileURLToPath(import.meta.url)), 'internal/structured-deps.ts')

describe('the lazily loaded structured calls', () => {
  it('are not reached from the public entry by a static import', () => {
    expect(split.entry).not.toContain('internal/structured-deps.ts')
    expect(split.entry).not.toContain('internal/structured-run.ts')
    expect(split.lazy).toEqual([
      'internal/route-run.ts',
      'internal/structured-deps.ts',
      'internal/structured-host.ts',
      'internal/structured-run.ts',
    ])
  })

  it('import from the rest of the kit only through structured-host.ts', () => {
    expect(split.crossings).toEqual([])
  })
})
