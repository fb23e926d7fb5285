#!/usr/bin/env node
/**
 * Issue 29's rule: one field reader. Definitions and option bags are read with core's `FieldReader`
 * (`packages/core/src/field-reader.ts`); no other package source declares a class of its own that reads
 * an object's fields (a class with three or more typed reads, `string`, `integer`, `boolean`, `oneOf`,
 * `func`, `requiredString`, ..., or with two and `done()`), and none imports or re-exports core's reader under another
 * name (`FieldReader as Fields`), which is how two kits came to mean opposite defaults by one name.
 * It also counts the hand-written `throw new Invalid*Error(` sites of production code, for the issue's
 * "under 200" aim (reported, not enforced).
 *
 *   node scripts/one-reader.mjs            # checks packages/*\/src, exits 1 on a finding
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const THE_READER = 'packages/core/src/field-reader.ts'
const TYPED_READS = new Set([
  'string',
  'requiredString',
  'integer',
  'requiredInteger',
  'number',
  'boolean',
  'requiredBoolean',
  'oneOf',
  'requiredOneOf',
  'func',
  'strings',
  'json',
])

/** Field readers other than core's in one source text: `file:line what`. */
export function findOtherReaders(text, file = 'module.ts') {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found = []
  const line = (node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1
  const visit = (node) => {
    if (ts.isClassDeclaration(node) || ts.isClassExpression(node)) {
      const methods = new Set(
        node.members
          .filter((member) => ts.isMethodDeclaration(member) && member.name !== undefined)
          .map((member) => member.name.getText(source)),
      )
      const reads = [...methods].filter((name) => TYPED_READS.has(name))
      if (reads.length >= 3 || (methods.has('done') && reads.length >= 2))
        found.push(
          `${file}:${line(node)} class ${node.name?.text ?? '(anonymous)'} reads fields (${reads.join(', ')})`,
        )
    }
    if ((ts.isImportSpecifier(node) || ts.isExportSpecifier(node)) && node.propertyName !== undefined) {
      const original = node.propertyName.getText(source)
      if ((original === 'FieldReader' || original === 'refuseField') && node.name.text !== original)
        found.push(`${file}:${line(node)} ${original} renamed to ${node.name.text}`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') yield* sourceFiles(path)
    } else if (/\.(m|c)?tsx?$/.test(entry.name) && !/\.test(-d)?\.tsx?$/.test(entry.name)) yield path
  }
}

function packageSources(root) {
  const packages = join(root, 'packages')
  return readdirSync(packages, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => [...sourceFiles(join(packages, entry.name, 'src'))])
}

/** Every finding in the repository's package sources (production code, tests excluded). */
export function checkPackages(root = ROOT) {
  return packageSources(root)
    .map((path) => relative(root, path))
    .filter((file) => file !== THE_READER)
    .flatMap((file) => findOtherReaders(readFileSync(join(root, file), 'utf8'), file))
}

/** The hand-written `throw new Invalid*Error(` sites in production code, per package folder. */
export function countInvalidThrows(root = ROOT) {
  const counts = {}
  for (const path of packageSources(root)) {
    const hits = readFileSync(path, 'utf8').match(/throw new Invalid[A-Za-z]*Error\(/g)
    if (hits === null) continue
    const parts = relative(root, path).split('/')
    const key = parts[1] === 'kits' ? `kits/${parts[3]}` : parts[1]
    counts[key] = (counts[key] ?? 0) + hits.length
  }
  return counts
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const found = checkPackages()
  const counts = countInvalidThrows()
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0)
  console.log(
    `one-reader: ${total} hand-written throw new Invalid*Error sites in production code (aim: under 200).`,
  )
  if (found.length > 0) {
    console.error(
      `one-reader: read fields with core's FieldReader, by its own name:\n  ${found.join('\n  ')}`,
    )
    process.exit(1)
  }
  console.log("one-reader: every package reads fields with core's FieldReader.")
}
