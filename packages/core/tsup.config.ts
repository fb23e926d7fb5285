import { defineConfig } from 'tsup'
import { entriesFor } from '../../scripts/subpaths.mjs'

export default defineConfig({
  entry: entriesFor('core'),
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: { compilerOptions: { customConditions: [] } },
  sourcemap: true,
  clean: true,
  splitting: true,
  treeshake: true,
  outDir: 'dist',
})
