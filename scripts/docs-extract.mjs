/**
 * Extracts every ```ts block from README.md and docs/**\/*.md into docs/.generated/ so that `pnpm typecheck` type-checks
 * them and `docs/docs.test.ts` runs them. Blocks fenced as ```ts no-run are type-checked only.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(import.meta.dirname, '..')
const docs = join(root, 'docs')
const out = join(docs, '.generated')

function* markdownFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* markdownFiles(path)
    else if (entry.name.endsWith('.md')) yield path
  }
}

/** @returns {{ source: string, file: string, line: number, run: boolean, code: string }[]} */
export function extractBlocks() {
  const blocks = []
  for (const file of [join(root, 'README.md'), ...markdownFiles(docs)]) {
    const lines = readFileSync(file, 'utf8').split('\n')
    for (let i = 0; i < lines.length; i++) {
      const open = /^```(ts|typescript)(\s+no-run)?\s*$/.exec(lines[i])
      if (!open) continue
      const start = i + 1
      let end = start
      while (end < lines.length && !/^```\s*$/.test(lines[end])) end++
      const name = `${relative(docs, file)
        .replace(/\.md$/, '')
        .replaceAll(/[^\w]+/g, '-')}-L${start}.ts`
      blocks.push({
        source: relative(root, file),
        file: join(out, name),
        line: start,
        run: !open[2],
        code: lines.slice(start, end).join('\n'),
      })
      i = end
    }
  }
  return blocks
}

export function writeBlocks() {
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  const blocks = extractBlocks()
  for (const b of blocks)
    writeFileSync(b.file, `// extracted from ${b.source}:${b.line}; do not edit\nexport {}\n${b.code}\n`)
  return blocks
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const blocks = writeBlocks()
  console.log(`extracted ${blocks.length} doc code blocks to docs/.generated`)
}
