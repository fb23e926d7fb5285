/**
 * The house rule api-extractor does not check (CONTRIBUTING.md, "Docs"): every export of a subpath has a
 * TSDoc comment with a summary and an `@example` that imports from that subpath. It reads the bundled
 * declaration file of each subpath (`dist/<subpath>/index.d.ts`).
 *
 * A re-export of another public subpath of ours (`export { MockReply } from '@agent-core/mock'` in
 * `@agent-core/mock/node`) is held to the rule where it is declared: it passes when that subpath exports the
 * name and documents it there, with an example importing from there (what an editor shows on hover is that
 * declaration's comment). Chains are followed (`mock/vitest` re-exports from `mock/node`, which may re-export
 * from `mock`). A re-export from anything else (a third-party package, a path that is no public subpath) fails:
 * no comment of ours documents it.
 */
import ts from 'typescript'

/**
 * What a declaration file exports: its own declarations (with their TSDoc, overloads and merged declarations
 * together) and the names it re-exports from other modules.
 *
 * @param {string} text the declaration file's text
 * @param {string} file its name, for the parser
 */
export function readExports(text, file = 'index.d.ts') {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  /** @type {Map<string, { from: string, name: string }>} local name -> the module binding it was imported from */
  const imported = new Map()
  for (const node of source.statements) {
    if (!ts.isImportDeclaration(node) || !node.importClause || !ts.isStringLiteral(node.moduleSpecifier))
      continue
    const from = node.moduleSpecifier.text
    const clause = node.importClause
    if (clause.name) imported.set(clause.name.text, { from, name: 'default' })
    if (clause.namedBindings && ts.isNamedImports(clause.namedBindings))
      for (const element of clause.namedBindings.elements)
        imported.set(element.name.text, { from, name: (element.propertyName ?? element.name).text })
  }

  /** @type {Map<string, string>} exported name -> local declaration name */
  const own = new Map()
  /** @type {Map<string, { from: string, name: string }>} exported name -> where it is re-exported from */
  const reexported = new Map()
  /** @type {string[]} modules re-exported whole (`export * from 'x'`) */
  const stars = []
  /** @type {string[]} */
  const problems = []
  const isExported = (node) => ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export
  const localName = (node) =>
    ts.isVariableStatement(node)
      ? node.declarationList.declarations[0]?.name.getText(source)
      : node.name && ts.isIdentifier(node.name)
        ? node.name.text
        : undefined

  for (const node of source.statements) {
    if (ts.isExportDeclaration(node)) {
      const from =
        node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)
          ? node.moduleSpecifier.text
          : undefined
      if (!node.exportClause) {
        if (from !== undefined) stars.push(from)
      } else if (ts.isNamespaceExport(node.exportClause)) {
        problems.push(
          `${node.exportClause.name.text} re-exports the whole of '${from}' as a namespace; export its members by name`,
        )
      } else {
        for (const element of node.exportClause.elements) {
          const local = (element.propertyName ?? element.name).text
          const exported = element.name.text
          if (from !== undefined) reexported.set(exported, { from, name: local })
          else if (imported.has(local)) reexported.set(exported, imported.get(local))
          else own.set(exported, local)
        }
      }
    } else if (!ts.isImportDeclaration(node) && isExported(node)) {
      const local = localName(node)
      if (local !== undefined) own.set(local, local)
    }
  }

  /** @type {Map<string, string>} local declaration name -> its TSDoc comments, joined */
  const docs = new Map()
  const wanted = new Set(own.values())
  for (const node of source.statements) {
    const local = localName(node)
    if (local === undefined || !wanted.has(local)) continue
    const comments = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc)
    docs.set(local, `${docs.get(local) ?? ''}${comments.map((c) => c.getText(source)).join('\n')}`)
  }
  return {
    own: new Map([...own].map(([exported, local]) => [exported, docs.get(local) ?? ''])),
    reexported,
    stars,
    problems,
  }
}

/**
 * Why a TSDoc comment fails the rule for an export of `specifier`, or undefined when it passes.
 *
 * @param {string} doc the export's TSDoc comments, joined ('' when it has none)
 * @param {string} specifier the public subpath the example must import from
 */
export function docProblem(doc, specifier) {
  if (!doc) return 'has no TSDoc comment'
  const summary = doc
    .replace(/^\/\*\*/, '')
    .split(/\n\s*\*\s*@/)[0]
    .replace(/[*/\s]/g, '')
  if (!summary) return 'has no TSDoc summary'
  const examples = doc.split('@example').slice(1)
  if (examples.length === 0) return 'has no @example'
  if (!examples.some((example) => example.includes(`from '${specifier}'`)))
    return `has no @example importing from '${specifier}'`
  return undefined
}

/**
 * Checks the exports of public subpaths.
 *
 * @param {(specifier: string) => string | undefined} read the bundled declaration text of a public subpath
 *   of ours, or undefined when `specifier` is none (a third-party package, a private path)
 */
export function createExportDocsChecker(read) {
  /** @type {Map<string, ReturnType<typeof readExports> | undefined>} */
  const cache = new Map()
  const exportsOf = (specifier) => {
    if (!cache.has(specifier)) {
      const text = read(specifier)
      cache.set(specifier, text === undefined ? undefined : readExports(text, `${specifier}.d.ts`))
    }
    return cache.get(specifier)
  }

  /**
   * Where `name`, exported by public subpath `specifier`, is declared, and why its doc fails there.
   *
   * @returns {{ home: string, problem?: string } | { missing: string }}
   */
  function resolve(specifier, name, seen = new Set()) {
    const key = `${specifier}\u0000${name}`
    if (seen.has(key)) return { missing: `'${specifier}' re-exports ${name} in a cycle` }
    seen.add(key)
    const entry = exportsOf(specifier)
    if (entry === undefined) return { missing: `'${specifier}' is not one of our public subpaths` }
    if (entry.own.has(name)) return { home: specifier, problem: docProblem(entry.own.get(name), specifier) }
    const next = entry.reexported.get(name)
    if (next) {
      if (exportsOf(next.from) === undefined)
        return {
          missing: `it comes from '${next.from}', which is not one of our public subpaths, so no TSDoc of ours documents it`,
        }
      return resolve(next.from, next.name, seen)
    }
    for (const from of entry.stars) {
      const found = exportsOf(from) && resolve(from, name, seen)
      if (found && 'home' in found) return found
    }
    return { missing: `'${specifier}' does not export ${name}` }
  }

  /**
   * The problems of one public subpath's exports, one sentence each.
   *
   * @param {string} specifier
   * @returns {string[]}
   */
  return function check(specifier) {
    const entry = exportsOf(specifier)
    if (entry === undefined) return [`${specifier} has no declaration file to check`]
    const problems = [...entry.problems]
    for (const [name, doc] of entry.own) {
      const problem = docProblem(doc, specifier)
      if (problem) problems.push(`${name} ${problem}`)
    }
    for (const [name, { from, name: original }] of entry.reexported) {
      const what = original === name ? name : `${name} (${original})`
      if (exportsOf(from) === undefined) {
        problems.push(
          `${what} is re-exported from '${from}', which is not one of our public subpaths, so no TSDoc of ours documents it: declare and document it here, or leave it to its own package`,
        )
        continue
      }
      const found = resolve(from, original)
      if ('missing' in found) problems.push(`${what} is re-exported from '${from}', but ${found.missing}`)
      else if (found.problem)
        problems.push(
          `${what} is re-exported from '${from}'; where it is declared ('${found.home}') it ${found.problem}`,
        )
    }
    for (const from of entry.stars)
      if (exportsOf(from) === undefined)
        problems.push(
          `export * from '${from}' re-exports a module that is not one of our public subpaths, so no TSDoc of ours documents it`,
        )
    return problems
  }
}
