/**
 * No knowledge subpath loads the search kit at import: each imports `@agent-core/kits/search` for its
 * values only through internal/search-kit.ts (`loadSearchKit`, a dynamic `import()` on first use; see
 * docs/design/cold-import.md, "Knowledge without the search kit at import"). These checks read the
 * source's import statements and follow the static graph of each public entry across relative imports
 * and the kits' public subpaths (type-only imports left out): a value import of the search kit anywhere
 * in it, even a re-export, fails them.
 */
import { describe, expect, it } from 'vitest'
import { staticGraph } from '../testing/lazy-split.js'

const ENTRIES = [
  'knowledge/index.ts',
  'knowledge/postgres/index.ts',
  'knowledge/sqlite/index.ts',
  'knowledge/testing/index.ts',
]

describe('the knowledge subpaths, at import', () => {
  for (const entry of ENTRIES) {
    it(`${entry} reaches no module of the search kit by a static import`, () => {
      const graph = staticGraph(entry)
      expect(graph.modules).toContain(entry)
      expect(graph.modules.filter((module) => module.startsWith('search/'))).toEqual([])
      expect(graph.packages).not.toContain('minisearch')
    })
  }

  it('the postgres entry loads search-kit.ts, the door to the search kit, and the knowledge entry', () => {
    const graph = staticGraph('knowledge/postgres/index.ts')
    expect(graph.modules).toContain('knowledge/postgres/postgres-knowledge-index.ts')
    expect(graph.modules).toContain('knowledge/internal/search-kit.ts')
    expect(graph.modules).toContain('knowledge/index.ts')
  })
})
