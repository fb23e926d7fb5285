/**
 * Runs api-extractor once per public subpath (it reads one entry point per config).
 * `--local` rewrites the committed reports under etc/api; without it the run fails on any API change that
 * the committed report does not show, which is what CI runs. Needs `pnpm build` first (it reads dist/*.d.ts).
 *
 * Both modes fail on any warning (api-extractor's own `ae-*` messages, TSDoc and compiler messages): the
 * reports stay clean because a warning never gets written into them, it fails the run instead.
 *
 * A subpath's declarations import the package's other subpaths by name (`durable/sqlite` imports
 * `@agent-core/kits/durable`, `core/tools` imports `@agent-core/core`). TypeScript resolves such a
 * self-reference to a local file, which api-extractor would treat as part of the package being analyzed and
 * report every type taken from it as a forgotten export. tsconfig.api.json therefore maps `@agent-core/*`
 * through links under temp/api/node_modules (made here), so those imports resolve the way they do for a
 * consumer: as external packages, printed as `import { X } from '@agent-core/kits/durable'` in the report.
 *
 * It also holds every export to the house rule api-extractor does not check: a TSDoc comment with a summary
 * and an `@example` that imports from the export's public subpath (scripts/export-docs.mjs; a re-export of
 * another public subpath of ours is held to it where it is declared). A missing one is a warning like any other.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { join, relative } from 'node:path'
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor'
import { createExportDocsChecker } from './export-docs.mjs'
import { apiTargets, packages } from './subpaths.mjs'

const localBuild = process.argv.includes('--local')
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'))
const root = join(import.meta.dirname, '..')

const links = join(root, 'temp/api/node_modules/@agent-core')
mkdirSync(links, { recursive: true })
for (const p of packages()) {
  const link = join(links, p.pkg)
  rmSync(link, { force: true })
  symlinkSync(relative(links, join(root, p.dir)), link, 'dir')
}

const targets = apiTargets()
const entryOf = new Map(targets.map((t) => [t.subpath, join(root, t.entry)]))
const checkExportDocs = createExportDocsChecker((specifier) => {
  const entry = entryOf.get(specifier)
  if (entry === undefined) return undefined
  if (!existsSync(entry))
    throw new Error(`${specifier}: ${relative(root, entry)} is missing; run \`pnpm build\` first`)
  return readFileSync(entry, 'utf8')
})

let failed = 0
const warnings = []
for (const target of targets) {
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
      // console messages are api-extractor's own progress notes ("report updated"); this script says that itself
      if (m.category === 'console' && m.logLevel !== 'error') m.handled = true
      if (m.handled || (m.logLevel !== 'warning' && m.logLevel !== 'error')) return
      const where = m.sourceFilePath ? `${relative(root, m.sourceFilePath)}:${m.sourceFileLine} ` : ''
      warnings.push(`${target.subpath}: ${where}(${m.messageId}) ${m.text}`)
      m.handled = true
    },
  })
  if (!result.succeeded && result.apiReportChanged) {
    failed++
    console.error(`${target.subpath}: API changed; run \`pnpm build && pnpm api\` and commit etc/api`)
  } else if (!result.succeeded && result.errorCount > 0) {
    failed++
    console.error(`${target.subpath}: ${result.errorCount} errors`)
  } else if (result.apiReportChanged) console.log(`${target.subpath}: report updated`)
  // api-extractor writes some findings (ae-forgotten-export among them) into the report itself instead of
  // reporting a message, so the report written in this run is read back: a `// Warning:` line fails too.
  const report = join(root, localBuild ? 'etc/api' : 'temp/api', `${target.name}.api.md`)
  if (existsSync(report))
    for (const line of readFileSync(report, 'utf8').split('\n'))
      if (line.startsWith('// Warning:'))
        warnings.push(`${target.subpath}: ${line.slice(3)} (in the API report)`)
  for (const problem of checkExportDocs(target.subpath))
    warnings.push(
      `${target.subpath}: ${problem} (every public export needs a summary and an @example importing from its subpath)`,
    )
}
if (warnings.length) {
  console.error(`${warnings.length} API warning(s); fix them in the source doc comments or exports:`)
  for (const w of warnings) console.error(`- ${w}`)
}
if (failed || warnings.length) {
  console.error(`api check failed${failed ? ` for ${failed} subpath(s)` : ''}`)
  process.exit(1)
}
console.log(`api reports ${localBuild ? 'written' : 'match'}, no warnings`)
