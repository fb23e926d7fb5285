import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { build } from 'esbuild'
import { defineConfig } from 'tsup'
import { packageBuildConfig } from '../../scripts/tsup-config.mjs'

const base = packageBuildConfig('core', 'node')

export default defineConfig({
  ...base,
  onSuccess: async () => {
    await base.onSuccess()
    const dir = process.cwd()
    // `#ajv` is src/tools/vendor/ajv-node.js for this (node) build, inlined into dist/tools/index.js: it
    // requires ajv.cjs from beside that file on the first compiled schema
    copyFileSync(join(dir, 'src/tools/vendor/ajv.cjs'), join(dir, 'dist/tools/ajv.cjs'))
    // `@agent-core/core/tools` for browsers, workers and bundlers (the `import` condition of its export; Node
    // takes `node`): the same source, with `#ajv` resolved to the bundle held as a string (vendor/ajv.js)
    await build({
      entryPoints: { 'tools/index.browser': join(dir, 'src/tools/index.ts') },
      outdir: join(dir, 'dist'),
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      sourcemap: true,
      keepNames: true,
      external: ['@agent-core/core'],
      logLevel: 'warning',
    })
  },
})
