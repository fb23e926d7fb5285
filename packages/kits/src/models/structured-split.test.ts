/**
 * The code of generateStructured and chooseRoute is loaded by their first call, not at import
 * (internal/structured-deps.ts, docs/design/cold-import.md). These checks read the source's import
 * statements: nothing the public entry loads statically reaches that code, and that code reaches the rest
 * of the kit only through internal/structured-host.ts (a plain import would make the build split the
 * shared code into one more chunk that every import of the kit loads). The loop kit's engine-split.test.ts
 * checks its engine the same way.
 */
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const here = dirname(fileURLToPath(import.meta.url))
// the clause holds no quote, so that it never runs on past another statement's specifier
const STATEMENT = /^(?:import|export)\s+([^;'"]*?)\s+from\s+'(\.{1,2}\/[^']+)'/gm

/** The relative modules a file imports for their values (type-only imports left out). */
function valueImports(file: string): string[] {
  const source = readFileSync(file, 'utf8')
  const found: string[] = []
  for (const [, clause = '', specifier = ''] of source.matchAll(STATEMENT)) {
    if (/^type\b/.test(clause)) continue
    const names = /^\{([^}]*)\}$/s.exec(clause.trim())?.[1]
    const typeOnly = names
      ?.split(',')
      .map((n) => n.trim())
      .filter(Boolean)
      .every((n) => n.startsWith('type '))
    if (typeOnly) continue
    found.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')))
  }
  return found
}

function reachable(from: string): Set<string> {
  const seen = new Set<string>()
  const stack = [from]
  while (stack.length > 0) {
    const file = stack.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    stack.push(...valueImports(file))
  }
  return seen
}

const name = (file: string) => relative(here, file)
const entry = reachable(join(here, 'index.ts'))
const lazy = new Set([...reachable(join(here, 'internal/structured-deps.ts'))].filter((f) => !entry.has(f)))

describe('the lazily loaded structured calls', () => {
  it('are not reached from the public entry by a static import', () => {
    expect([...entry].map(name)).not.toContain('internal/structured-deps.ts')
    expect([...entry].map(name)).not.toContain('internal/structured-run.ts')
    expect([...lazy].map(name).sort()).toEqual([
      'internal/route-run.ts',
      'internal/structured-deps.ts',
      'internal/structured-host.ts',
      'internal/structured-run.ts',
    ])
  })

  it('import from the rest of the kit only through structured-host.ts', () => {
    const crossings = [...lazy].flatMap((file) =>
      valueImports(file)
        .filter((target) => entry.has(target))
        .map((target) => `${name(file)} -> ${name(target)}`),
    )
    expect(crossings).toEqual([])
  })
})
