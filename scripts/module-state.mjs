#!/usr/bin/env node
/**
 * Issue 23's rule: no per-run state shared through a module in the `loop`, `tools` or `sandbox` kits. A
 * module-level Map or Set that the code writes to (`set`, `add`, `delete`, `clear`) holds state across
 * calls keyed by strings or values (a call id, an invocation id); a module-level WeakMap or WeakSet keyed
 * by an AbortSignal or AbortController holds state keyed by a run's signal. Both are refused. Caches keyed
 * by a definition object (a WeakMap of a tool, a lifecycle, a registry) and constant lookup tables (a
 * Set or Map never written after it is made) are allowed.
 *
 *   node scripts/module-state.mjs            # checks the three kits, exits 1 on a finding
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const CHECKED_KITS = ['loop', 'tools', 'sandbox']

const WRITES = new Set(['set', 'add', 'delete', 'clear'])
const RUN_KEYS = /\b(AbortSignal|AbortController)\b/

/** Module-level collections that hold per-run state in one source text: `file:line name (why)`. */
export function findModuleState(text, file = 'module.ts') {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const collections = new Map()
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue
    for (const declaration of statement.declarationList.declarations) {
      const init = declaration.initializer
      if (!ts.isIdentifier(declaration.name) || init === undefined || !ts.isNewExpression(init)) continue
      if (!ts.isIdentifier(init.expression)) continue
      const kind = init.expression.text
      if (!['Map', 'Set', 'WeakMap', 'WeakSet'].includes(kind)) continue
      const typed = init.typeArguments?.[0]?.getText(source) ?? declaration.type?.getText(source) ?? ''
      const line = source.getLineAndCharacterOfPosition(declaration.getStart(source)).line + 1
      collections.set(declaration.name.text, { kind, key: typed, line })
    }
  }
  const written = new Set()
  const visit = (node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ts.isIdentifier(node.expression.expression) &&
      WRITES.has(node.expression.name.text)
    ) {
      written.add(node.expression.expression.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  const found = []
  for (const [name, { kind, key, line }] of collections) {
    if ((kind === 'WeakMap' || kind === 'WeakSet') && (RUN_KEYS.test(key) || key === '')) {
      found.push(
        `${file}:${line} ${name} (a module-level ${kind} keyed by ${key || 'an untyped key'}: per-run state keyed by a run's signal)`,
      )
    } else if ((kind === 'Map' || kind === 'Set') && written.has(name)) {
      found.push(
        `${file}:${line} ${name} (a module-level ${kind} written at run time: state shared across runs, keyed by ids)`,
      )
    }
  }
  return found
}

function sources(dir) {
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...sources(path))
    else if (/\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name)) out.push(path)
  }
  return out
}

/** Every finding in the checked kits' sources (tests excluded). */
export function checkKits(root = ROOT) {
  const found = []
  for (const kit of CHECKED_KITS) {
    for (const file of sources(join(root, 'packages/kits/src', kit))) {
      found.push(...findModuleState(readFileSync(file, 'utf8'), relative(root, file)))
    }
  }
  return found
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const found = checkKits()
  for (const line of found) console.error(line)
  if (found.length > 0) {
    console.error(
      `\n${found.length} module-level collection(s) hold per-run state; keep it on the run or pass it as an argument.`,
    )
    process.exit(1)
  }
  console.log(`module-state: ${CHECKED_KITS.join(', ')} hold no per-run state in module-level collections.`)
}
