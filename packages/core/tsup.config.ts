import { defineConfig } from 'tsup'
import { packageBuildConfig } from '../../scripts/tsup-config.mjs'

export default defineConfig(packageBuildConfig('core', 'node'))
