/**
 * The one tsup configuration of every package: one ESM entry with types per public subpath (from
 * subpaths.mjs), and the package's own subpaths kept external so that a variant that imports its parent
 * through the public subpath (`@agent-core/kits/durable` from `durable/sqlite`) never bundles a second copy.
 */
import { join } from 'node:path'
import { inlineNameHelper } from './inline-name-helper.mjs'
import { entriesFor } from './subpaths.mjs'

/**
 * @param {'core' | 'kits' | 'mock'} pkg
 * @param {'node' | 'neutral'} platform
 */
export function packageBuildConfig(pkg, platform) {
  return {
    entry: entriesFor(pkg),
    format: ['esm'],
    target: 'node20',
    platform,
    dts: true,
    sourcemap: true,
    clean: true,
    splitting: true,
    treeshake: true,
    // esbuild renames a class whose name another module of the bundle also uses (`_ModelProviderError`),
    // and errors take their `name` from their class: keepNames makes the bundle restore the real names.
    keepNames: true,
    outDir: 'dist',
    external: [new RegExp(`^@agent-core/${pkg}(/|$)`)],
    // keepNames' `__name` helper would be a chunk of its own that every entry imports: one more module per
    // subpath in Node (scripts/inline-name-helper.mjs writes it into each file instead)
    onSuccess: async () => {
      inlineNameHelper(join(process.cwd(), 'dist'))
    },
  }
}
