/**
 * Extracts every TSDoc `@example` block of the packages' sources (```ts fences inside a `/** ... *\/`
 * comment) into docs/.generated/examples/, so that `pnpm typecheck` type-checks them as it does the guides'
 * blocks. Each block is its own module: it must import what it uses from the export's public subpath and
 * declare what it leaves to the reader (`declare const agent: Agent`). Examples with no import from a public
 * subpath, or with a relative import, document private modules and are left out.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(import.meta.dirname, '..')
const out = join(root, 'docs/.generated/examples')

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'dist') continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* sourceFiles(path)
    else if (
      /\.ts$/.test(entry.name) &&
      !/\.(test|test-d)\.ts$/.test(entry.name) &&
      !entry.name.endsWith('.d.ts')
    )
      yield path
  }
}

/** @returns {{ source: string, file: string, line: number, code: string }[]} */
export function extractExamples() {
  const examples = []
  for (const pkg of readdirSync(join(root, 'packages'))) {
    const src = join(root, 'packages', pkg, 'src')
    for (const file of sourceFiles(src)) {
      if (file.includes('/testing/fixtures')) continue
      const lines = readFileSync(file, 'utf8').split('\n')
      for (let i = 0; i < lines.length; i++) {
        if (!/^\s*\*\s*@example\b/.test(lines[i])) continue
        let open = i + 1
        while (open < lines.length && /^\s*\*\s*$/.test(lines[open])) open++
        if (!/^\s*\*\s*```(ts|typescript)\s*$/.test(lines[open] ?? '')) continue
        let end = open + 1
        while (end < lines.length && !/^\s*\*\s*```\s*$/.test(lines[end]) && !/\*\//.test(lines[end])) end++
        const code = lines
          .slice(open + 1, end)
          .map((line) => line.replace(/^\s*\* ?/, ''))
          .join('\n')
        // An example documents a public export when it imports from a public subpath (the house rule); one
        // with relative imports or none at all documents a private module and is not a consumer's program.
        if (!/from '@agent-core\//.test(code) || /from '\.\.?\//.test(code)) {
          i = end
          continue
        }
        const name = `${relative(root, file)
          .replace(/\.ts$/, '')
          .replaceAll(/[^\w]+/g, '-')}-L${open + 2}.ts`
        examples.push({ source: relative(root, file), file: join(out, name), line: open + 2, code })
        i = end
      }
    }
  }
  return examples
}

export function writeExamples() {
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  const examples = extractExamples()
  for (const e of examples)
    writeFileSync(e.file, `// extracted from ${e.source}:${e.line}; do not edit\nexport {}\n${e.code}\n`)
  return examples
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const examples = writeExamples()
  console.log(`extracted ${examples.length} TSDoc examples to docs/.generated/examples`)
}
