import { existsSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { publicSubpaths } from './cold-import.mjs'

/**
 * Every public error class reports its real name (`error.name`, `String(error)`, logs): the name it is
 * exported under. A bundler renames a class when two modules of one bundle use the same name
 * (`_ModelProviderError`); the build keeps names (tsup `keepNames`), which the dist half checks.
 */
const subpaths = publicSubpaths()

/** `[exportName, className]` for each exported class that extends Error. */
function errorClasses(module: Record<string, unknown>): [string, string][] {
  return Object.entries(module)
    .filter(
      ([, value]) =>
        typeof value === 'function' && (value as { prototype?: unknown }).prototype instanceof Error,
    )
    .map(([exported, value]) => [exported, (value as { name: string }).name])
}

/** An instance of an error class, for the classes whose constructor takes (message) or (message, options). */
function instance(value: unknown): Error | undefined {
  const ErrorClass = value as new (message: string, options?: unknown) => Error
  try {
    return new ErrorClass('probe', { details: { schemaName: 'x', attempts: 1, issues: [] }, attempts: [] })
  } catch {
    return undefined
  }
}

describe.each([
  [
    'source',
    (s: (typeof subpaths)[number]) =>
      pathToFileURL(s.entry.replace(/\/dist\//, '/src/').replace(/\.js$/, '.ts')).href,
  ],
  ['dist', (s: (typeof subpaths)[number]) => pathToFileURL(s.entry).href],
] as const)('public error classes (%s)', (form, locate) => {
  const built = subpaths.every((s) => existsSync(s.entry))
  it.skipIf(form === 'dist' && !built)(
    'each is named as it is exported, on the class and on its instances',
    async () => {
      const wrong: string[] = []
      let checked = 0
      let constructed = 0
      for (const s of subpaths) {
        const module = (await import(locate(s))) as Record<string, unknown>
        for (const [exported, name] of errorClasses(module)) {
          checked += 1
          if (name !== exported) wrong.push(`${s.specifier} ${exported}: class name ${name}`)
          const error = instance(module[exported])
          if (error === undefined) continue
          constructed += 1
          if (error.name !== exported) wrong.push(`${s.specifier} ${exported}: error.name ${error.name}`)
          if (!String(error).startsWith(`${exported}: `))
            wrong.push(`${s.specifier} ${exported}: String(error) ${String(error)}`)
        }
      }
      expect(wrong).toEqual([])
      // the core classes alone are more than ten; every subpath's are found, and most construct from (message)
      expect(checked).toBeGreaterThan(30)
      expect(constructed).toBeGreaterThan(checked / 2)
    },
    120_000,
  )
})
