/**
 * The loop's run engine is loaded on an agent's first run, not at import (internal/engine-deps.ts,
 * docs/design/cold-import.md). These checks read the source's import statements: nothing the public
 * entry loads statically reaches the engine, and the engine reaches the rest of the kit only through
 * internal/engine-host.ts (a plain import would make the build split the shared code into one more chunk
 * that every import of the kit loads).
 */
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { lazySplit } from '../testing/lazy-split.js'

const split = lazySplit(dirname(fileURLToPath(import.meta.url)), 'internal/engine-deps.ts')

describe('the lazy run engine', () => {
  it('is not reached from the public entry by a static import', () => {
    expect(split.entry).not.toContain('internal/engine-deps.ts')
    expect(split.entry).not.toContain('internal/run.ts')
    expect(split.lazy.length).toBeGreaterThan(5)
  })

  it('imports from the rest of the kit only through engine-host.ts', () => {
    expect(split.crossings).toEqual([])
  })
})
