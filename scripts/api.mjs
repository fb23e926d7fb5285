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
 * and an `@example` that imports from the export's public subpath. A missing one is a warning like any other.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { join, relative } from 'node:path'
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor'
import ts from 'typescript'
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

/**
 * Exports of a bundled declaration file whose TSDoc lacks a summary or an `@example` importing from
 * `specifier` (overloads and declaration merging count together).
 */
function undocumentedExports(file, specifier) {
  const text = readFileSync(file, 'utf8')
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const exported = new Map()
  for (const node of source.statements)
    if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamedExports(node.exportClause))
      for (const element of node.exportClause.elements)
        exported.set((element.propertyName ?? element.name).text, element.name.text)
  const docs = new Map()
  for (const node of source.statements) {
    const local = ts.isVariableStatement(node)
      ? node.declarationList.declarations[0]?.name.getText(source)
      : node.name && ts.isIdentifier(node.name)
        ? node.name.text
        : undefined
    if (local === undefined || !exported.has(local)) continue
    const comments = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc)
    docs.set(local, `${docs.get(local) ?? ''}${comments.map((c) => c.getText(source)).join('\n')}`)
  }
  const problems = []
  for (const [local, name] of exported) {
    const doc = docs.get(local) ?? ''
    const summary = doc
      .replace(/^\/\*\*/, '')
      .split(/\n\s*\*\s*@/)[0]
      .replace(/[*/\s]/g, '')
    if (!doc) problems.push(`${name} has no TSDoc comment`)
    else if (!summary) problems.push(`${name} has no TSDoc summary`)
    else if (!doc.includes('@example')) problems.push(`${name} has no @example`)
    else if (
      !doc
        .split('@example')
        .slice(1)
        .some((example) => example.includes(`from '${specifier}'`))
    )
      problems.push(`${name}'s @example does not import from '${specifier}'`)
  }
  return problems
}

let failed = 0
const warnings = []
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
  for (const problem of undocumentedExports(join(root, target.entry), target.subpath))
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
