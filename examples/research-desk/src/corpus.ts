import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import type { KnowledgeMaterial } from '@agent-core/kits/knowledge'
import { DeskError } from './desk-error.js'

/** The files of a corpus, read. */
export interface Corpus {
  /** The folder, absolute. */
  readonly root: string
  /** One material per .md/.txt file, its id the path relative to the root with `/` separators, sorted. */
  readonly materials: readonly KnowledgeMaterial[]
  /** Files that are not .md/.txt (or not UTF-8 text), counted and skipped. */
  readonly skipped: number
}

const TEXT_FILE = /\.(md|markdown|txt)$/i
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', '.agent-core'])

/**
 * Reads every .md and .txt file under `root`, recursively. Hidden folders, `node_modules` and `.git`
 * are not entered; any other file is skipped and counted. A file that is not valid UTF-8 is skipped too.
 */
export function readCorpus(root: string): Corpus {
  let stats: ReturnType<typeof statSync>
  try {
    stats = statSync(root)
  } catch (cause) {
    throw new DeskError(
      'corpus',
      `The corpus folder ${root} does not exist. Pass --corpus with a folder of .md or .txt files.`,
      { cause, field: '--corpus', received: root },
    )
  }
  if (!stats.isDirectory()) {
    throw new DeskError(
      'corpus',
      `The corpus ${root} is a file, not a folder. Pass --corpus with the folder that holds your .md or .txt files.`,
      { field: '--corpus', received: root },
    )
  }
  const materials: KnowledgeMaterial[] = []
  let skipped = 0
  const decoder = new TextDecoder('utf-8', { fatal: true })
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.') && !SKIPPED_FOLDERS.has(entry.name)) visit(path)
        continue
      }
      if (!entry.isFile() || !TEXT_FILE.test(entry.name)) {
        if (entry.isFile()) skipped++
        continue
      }
      let text: string
      try {
        text = decoder.decode(readFileSync(path))
      } catch {
        skipped++
        continue
      }
      const id = relative(root, path).split(sep).join('/')
      materials.push({ id, text, metadata: { path: id } })
    }
  }
  visit(root)
  materials.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  if (materials.every((material) => material.text.trim() === '')) {
    throw new DeskError(
      'corpus',
      materials.length === 0
        ? `The corpus folder ${root} holds no .md or .txt file (${skipped} other files skipped). Pass --corpus with a folder of Markdown or text files.`
        : `Every .md or .txt file in ${root} is empty. Add some text, or pass --corpus with another folder.`,
      { field: '--corpus', received: root },
    )
  }
  return { root, materials, skipped }
}
