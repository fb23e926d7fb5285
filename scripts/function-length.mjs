#!/usr/bin/env node
/**
 * Issue 29's rule: engines as pipelines. No function in the mock server's engine (`packages/mock/src`) or
 * the sandbox (`packages/kits/src/sandbox`) is longer than 150 lines; a longer one is split into named
 * stages, each a function whose name says what it does and whose inputs are explicit. Every function-like
 * node with a body counts (declarations, methods, arrows, function expressions, constructors, accessors),
 * nested ones separately: an outer function's span includes the functions inside it.
 *
 *   node scripts/function-length.mjs       # checks the two folders, exits 1 listing each long function
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const CHECKED_FOLDERS = ['packages/mock/src', 'packages/kits/src/sandbox']
export const MAX_FUNCTION_LINES = 150

/** The name a function-like node is known by: its own, its variable's or property's, or `(anonymous)`. */
function functionName(node, source) {
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  if (node.name !== undefined) {
    const name = node.name.getText(source)
    if (ts.isGetAccessorDeclaration(node)) return `get ${name}`
    if (ts.isSetAccessorDeclaration(node)) return `set ${name}`
    return name
  }
  const parent = node.parent
  if (parent !== undefined) {
    if (
      ts.isVariableDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)
    )
      return parent.name.getText(source)
    if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(source).slice(0, 40)})`
  }
  return '(anonymous)'
}

/** Every function with a body in one source text, with its first line and its length in lines. */
export function functionSpans(text, file = 'module.ts') {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const spans = []
  const lineOf = (position) => source.getLineAndCharacterOfPosition(position).line + 1
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body !== undefined) {
      const start = lineOf(node.getStart(source))
      spans.push({
        file,
        line: start,
        name: functionName(node, source),
        lines: lineOf(node.getEnd()) - start + 1,
      })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return spans
}

/** The functions of one source text longer than `max` lines: `file:line name (N lines)`. */
export function findLongFunctions(text, file = 'module.ts', max = MAX_FUNCTION_LINES) {
  return functionSpans(text, file)
    .filter((span) => span.lines > max)
    .map((span) => `${span.file}:${span.line} ${span.name} (${span.lines} lines)`)
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') yield* sourceFiles(path)
    } else if (/\.(m|c)?ts$/.test(entry.name) && !/\.test(-d)?\.(m|c)?ts$/.test(entry.name)) yield path
  }
}

/** The checked files, relative to `root` (production code, tests excluded). */
export function checkedFiles(root = ROOT) {
  return CHECKED_FOLDERS.flatMap((folder) => [...sourceFiles(join(root, folder))]).map((path) =>
    relative(root, path),
  )
}

/** Every function longer than the limit in the checked folders. */
export function checkFunctionLengths(root = ROOT, max = MAX_FUNCTION_LINES) {
  return checkedFiles(root).flatMap((file) =>
    findLongFunctions(readFileSync(join(root, file), 'utf8'), file, max),
  )
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const found = checkFunctionLengths()
  if (found.length > 0) {
    console.error(
      `function-length: ${found.length} function(s) over ${MAX_FUNCTION_LINES} lines in ${CHECKED_FOLDERS.join(' and ')}; split each into named stages:\n  ${found.join('\n  ')}`,
    )
    process.exit(1)
  }
  const files = checkedFiles()
  const count = files.reduce(
    (sum, file) => sum + functionSpans(readFileSync(join(ROOT, file), 'utf8'), file).length,
    0,
  )
  console.log(
    `function-length: ${count} functions in ${files.length} files of ${CHECKED_FOLDERS.join(' and ')}, none over ${MAX_FUNCTION_LINES} lines.`,
  )
}
