import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/**
 * One validation vocabulary (CONTRIBUTING.md, "Errors"): error `details` name the offending field `field`,
 * never `name`. This walks the syntax tree of every TypeScript file under packages/*\/src (tests included,
 * since a test that expects `details.name` pins the old vocabulary) and lists each `details` object literal,
 * and each `details` variable initialized with one, that has a `name` key.
 */
const root = join(import.meta.dirname, '..')

function sourceFiles(): string[] {
  const files: string[] = []
  for (const pkg of readdirSync(join(root, 'packages'))) {
    const src = join(root, 'packages', pkg, 'src')
    let entries: string[]
    try {
      entries = readdirSync(src, { recursive: true, encoding: 'utf8' })
    } catch {
      continue
    }
    for (const entry of entries) if (/\.(c|m)?tsx?$/.test(entry)) files.push(join(src, entry))
  }
  return files.sort()
}

/** `file:line` of every `details: { name ... }` (or `const details = { name ... }`) in `text`. */
function detailsWithName(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const keyOf = (property: ts.ObjectLiteralElementLike): string | undefined =>
    property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))
      ? property.name.text
      : undefined
  const check = (literal: ts.Expression) => {
    if (!ts.isObjectLiteralExpression(literal)) return
    for (const property of literal.properties) {
      if (keyOf(property) === 'name') {
        const { line } = source.getLineAndCharacterOfPosition(property.getStart(source))
        found.push(`${relative(root, file)}:${line + 1}`)
      }
    }
  }
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAssignment(node) && keyOf(node) === 'details') check(node.initializer)
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === 'details' &&
      node.initializer
    )
      check(node.initializer)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe('error details vocabulary', () => {
  it('finds a name key in details, however it is written', () => {
    const sample = [
      "throw new InvalidInputError('x', { details: { name: 'limit' } })",
      "throw new InvalidInputError('x', {\n  details: {\n    received: 'y',\n    'name': 'limit',\n  },\n})",
      'const details = { name }',
      "expect(error).toMatchObject({ details: { field: 'limit', name: 'limit' } })",
      "const ok = { details: { field: 'limit', hook: 'when' }, name: 'a registration name' }",
    ].join('\n')
    expect(detailsWithName(join(root, 'sample.ts'), sample)).toEqual([
      'sample.ts:1',
      'sample.ts:5',
      'sample.ts:8',
      'sample.ts:9',
    ])
  })

  it('no error details in packages/*/src use `name` for the offending field (use `field`)', () => {
    const offenders = sourceFiles().flatMap((file) => detailsWithName(file, readFileSync(file, 'utf8')))
    expect(offenders, `details with a name key; rename it to field:\n${offenders.join('\n')}`).toEqual([])
  })
})
