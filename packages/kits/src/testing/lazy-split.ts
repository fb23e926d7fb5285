/**
 * The import-graph check of the repository's lazy-load tests: a kit that loads part of its code on first
 * use (the loop's run engine, the tools registry's pass, the structured calls of kits/models; see
 * docs/design/cold-import.md) must not reach that code from its public entry by a static import, and the
 * lazy code must reach the rest of the kit only through its host module of live bindings: a plain import
 * would make the build split the shared code into one more chunk that every import of the kit loads.
 * Reads the source's import statements; type-only imports are left out. {@link staticGraph} follows a
 * subpath's static graph across the kits' public subpaths too (the knowledge kit's search-split test: no
 * knowledge subpath loads the search kit at import).
 */
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

// Static imports and re-exports, and side-effect imports (no clause); a dynamic `import(...)` (the lazy
// door) never matches. The clause holds no quote, so that it never runs on past another specifier.
const STATEMENT = /^(?:import|export)\s+(?:([^;'"(]*?)\s+from\s+)?'([^']+)'/gm

/** Every specifier a file imports for its values (type-only imports left out), as written. */
function valueSpecifiers(file: string): string[] {
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
    found.push(specifier)
  }
  return found
}

const isRelative = (specifier: string) => /^\.{1,2}\//.test(specifier)
const resolveRelative = (file: string, specifier: string) =>
  resolve(dirname(file), specifier.replace(/\.js$/, '.ts'))

/** The relative modules a file imports for their values (type-only imports left out). */
function valueImports(file: string): string[] {
  return valueSpecifiers(file)
    .filter(isRelative)
    .map((specifier) => resolveRelative(file, specifier))
}

/** Every file reachable from `from`, where `next(file)` lists the files it imports. */
function reachable(from: string, next: (file: string) => string[] = valueImports): Set<string> {
  const seen = new Set<string>()
  const stack = [from]
  while (stack.length > 0) {
    const file = stack.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    stack.push(...next(file))
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

/** The kits package's source folder (`packages/kits/src`). */
const KITS_SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const KITS_SUBPATH = /^@agent-core\/kits\/(.+)$/

/** What a public entry of the kits package loads at import, read from the source. */
export interface StaticGraph {
  /** Every module it loads statically, the entries of the kits' subpaths it imports included, as paths relative to `packages/kits/src`. */
  readonly modules: readonly string[]
  /** Every other package it imports for values (`@agent-core/core`, `node:fs`, `pg`, ...), sorted. */
  readonly packages: readonly string[]
}

/**
 * The static graph of `entry` (a path relative to `packages/kits/src`, such as `knowledge/postgres/index.ts`):
 * relative imports and the kits' own public subpaths (`@agent-core/kits/search` is `search/index.ts`)
 * are followed; a dynamic `import()` is not.
 */
export function staticGraph(entry: string): StaticGraph {
  const packages = new Set<string>()
  const seen = reachable(join(KITS_SRC, entry), (file) =>
    valueSpecifiers(file).flatMap((specifier) => {
      const subpath = KITS_SUBPATH.exec(specifier)?.[1]
      if (isRelative(specifier)) return [resolveRelative(file, specifier)]
      if (subpath !== undefined) return [join(KITS_SRC, subpath, 'index.ts')]
      packages.add(specifier)
      return []
    }),
  )
  return { modules: [...seen].map((file) => relative(KITS_SRC, file)).sort(), packages: [...packages].sort() }
}
