import { copyFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { defineConfig } from 'tsup'
import { packageBuildConfig } from '../../scripts/tsup-config.mjs'

const base = packageBuildConfig('core', 'node')

/** ajv's bundle in its two forms and the Node loader: `#ajv` in package.json resolves to them at run time. */
const VENDOR = ['ajv.js', 'ajv.cjs', 'ajv-node.js']

export default defineConfig({
  ...base,
  // `#ajv` stays an import of dist/tools/index.js, so that Node never reads the bundle until it is needed
  external: [...base.external, '#ajv'],
  onSuccess: async () => {
    await base.onSuccess()
    const to = join(process.cwd(), 'dist/tools/vendor')
    mkdirSync(to, { recursive: true })
    for (const file of VENDOR) copyFileSync(join(process.cwd(), 'src/tools/vendor', file), join(to, file))
  },
})
