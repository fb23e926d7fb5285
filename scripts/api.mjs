/**
 * Runs api-extractor once per public subpath (it reads one entry point per config).
 * `--local` rewrites the committed reports under etc/api; without it the run fails on any API change that
 * the committed report does not show, which is what CI runs. Needs `pnpm build` first (it reads dist/*.d.ts).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor'
import { apiTargets } from './subpaths.mjs'

const localBuild = process.argv.includes('--local')
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'))
const root = join(import.meta.dirname, '..')
let failed = 0
for (const target of apiTargets()) {
  if (only.length && !only.some((o) => target.name.startsWith(o))) continue
  if (!existsSync(join(root, target.entry))) {
    console.error(`${target.subpath}: ${target.entry} is missing; run \`pnpm build\` first`)
    failed++
    continue
  }
  const config = ExtractorConfig.loadFileAndPrepare(join(root, target.config))
  const result = Extractor.invoke(config, {
    localBuild,
    showVerboseMessages: false,
    messageCallback: (m) => {
      if (m.logLevel === 'warning' && m.category === 'Compiler') m.logLevel = 'none'
    },
  })
  if (!result.succeeded) {
    failed++
    console.error(
      `${target.subpath}: ${result.apiReportChanged ? 'API changed; run `pnpm api` and commit etc/api' : `${result.errorCount} errors`}`,
    )
  } else if (result.apiReportChanged) console.log(`${target.subpath}: report updated`)
}
if (failed) {
  console.error(`api check failed for ${failed} subpath(s)`)
  process.exit(1)
}
console.log('api reports match')
