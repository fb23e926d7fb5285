/**
 * The import-graph check of the repository's lazy-load tests: a kit that loads part of its code on first
 * use (the loop's run engine, the tools registry's pass, the structured calls of kits/models; see
 * docs/design/cold-import.md) must not reach that code from its public entry by a static import, and the
 * lazy code must reach the rest of the kit only through its host module of live bindings: a plain import
 * would make the build split the shared code into one more chunk that every import of the kit loads.
 * Reads the source's import statements; type-only imports are left out.
 */
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

// Static imports and re-exports, and side-effect imports (no clause); a dynamic `import(...)` (the lazy
// door) never matches. The clause holds no quote, so that it never runs on past another specifier.
const STATEMENT = /^(?:import|export)\s+(?:([^;'"(]*?)\s+from\s+)?'(\.{1,2}\/[^']+)'/gm

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

/** What the entry and the lazy door of a kit reach, as paths relative to the kit's folder. */
export interface LazySplit {
  /** Every module the public entry (`index.ts`) loads statically. */
  readonly entry: readonly string[]
  /** The modules only the lazy door reaches (the door included). */
  readonly lazy: readonly string[]
  /** Each static import from a lazy module into the entry's modules, as `from -> to`. */
  readonly crossings: readonly string[]
}

/** Reads the import graph of the kit in `kitDir` from its `index.ts` and from `door` (a path in the kit). */
export function lazySplit(kitDir: string, door: string): LazySplit {
  const name = (file: string) => relative(kitDir, file)
  const entry = reachable(join(kitDir, 'index.ts'))
  const lazy = [...reachable(join(kitDir, door))].filter((f) => !entry.has(f))
  const crossings = lazy.flatMap((file) =>
    valueImports(file)
      .filter((target) => entry.has(target))
      .map((target) => `${name(file)} -> ${name(target)}`),
  )
  return { entry: [...entry].map(name), lazy: lazy.map(name).sort(), crossings }
}
