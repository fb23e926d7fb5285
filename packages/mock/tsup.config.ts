import { defineConfig } from 'tsup'
import { entriesFor } from '../../scripts/subpaths.mjs'

export default defineConfig({
  entry: entriesFor('mock'),
  format: ['esm'],
  target: 'node20',
  platform: 'neutral',
  dts: { compilerOptions: { customConditions: [] } },
  sourcemap: true,
  clean: true,
  splitting: true,
  treeshake: true,
  outDir: 'dist',
  // A variant imports its parent through the public subpath (self-reference), never bundling a second copy.
  external: [/^@agent-core\/mock(\/|$)/],
})
