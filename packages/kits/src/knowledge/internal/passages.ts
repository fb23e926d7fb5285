/**
 * Splitting a material into retrieval passages (TextBlocks.passages), with their line ranges, the text
 * that is embedded for each, and its hash (the key of its vector).
 */

import type { TextBlocks } from '@agent-core/kits/text-blocks'
import type { KnowledgePassageRecord } from '../knowledge-store.js'
import type { KnowledgeMaterial, KnowledgeMetadata, KnowledgePassage } from '../knowledge-types.js'
import { createHash } from './node-hash.js'

/** What cuts a material's text into passages: the text-blocks kit's `TextBlocks`. */
export type PassageSplitter = Pick<typeof TextBlocks, 'passages'>

let splitter: Promise<PassageSplitter> | undefined

/**
 * The text-blocks kit, imported on the first publish instead of with every knowledge subpath: a process
 * that only loads and searches a publication never splits text, and the import would cost each cold import
 * of `kits/knowledge` (and of its store subpaths, which share this module) one module more
 * (docs/design/cold-import.md). Imported once; a failed import is tried again by the next call.
 */
export function loadPassageSplitter(): Promise<PassageSplitter> {
  splitter ??= import('@agent-core/kits/text-blocks').then(
    (kit) => kit.TextBlocks,
    (error: unknown) => {
      splitter = undefined
      throw error
    },
  )
  return splitter
}

/** How materials are cut into passages. */
export interface PassageSettings {
  readonly targetChars: number
  readonly overlapChars: number
}

/** Part of every content hash: new settings re-split every document. */
export function settingsKey(settings: PassageSettings): string {
  return `passages:${settings.targetChars}:${settings.overlapChars}`
}

/** The id of a passage: the document, its revision and the passage's number. */
export function passageId(documentId: string, revision: number, number: number): string {
  return `${documentId}@${revision}#${number}`
}

/** What is embedded for a passage: its title, heading path and text, separated by blank lines. */
export function embedTextOf(passage: {
  readonly title?: string | undefined
  readonly headingPath: readonly string[]
  readonly text: string
}): string {
  const parts: string[] = []
  if (passage.title !== undefined && passage.title.trim() !== '') parts.push(passage.title)
  if (passage.headingPath.length > 0) parts.push(passage.headingPath.join(' > '))
  parts.push(passage.text)
  return parts.join('\n\n')
}

/** SHA-256 (base64url) of an embedded text: the key of its vector. */
export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url')
}

/** Offsets just past each line break (`\n`, `\r\n` or a lone `\r`). */
function lineBreaks(text: string): number[] {
  const out: number[] = []
  const pattern = /\r\n?|\n/g
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text))
    out.push(match.index + match[0].length)
  return out
}

/** The line (from 1) holding the character at `offset`. */
function lineAt(breaks: readonly number[], offset: number): number {
  let low = 0
  let high = breaks.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if ((breaks[middle] as number) <= offset) low = middle + 1
    else high = middle
  }
  return low + 1
}

/** A passage as the index holds it, built from its record and its document. */
export function passageDocument(
  record: KnowledgePassageRecord,
  title: string | undefined,
  metadata: KnowledgeMetadata | undefined,
): KnowledgePassage {
  return {
    id: record.id,
    documentId: record.documentId,
    revision: record.revision,
    number: record.number,
    ...(title !== undefined ? { title } : {}),
    headingPath: record.headingPath,
    text: record.text,
    start: record.start,
    end: record.end,
    startLine: record.startLine,
    endLine: record.endLine,
    ...(metadata !== undefined ? { metadata } : {}),
  }
}

/** A passage of a new revision, with the text to embed. */
export interface SplitPassage {
  readonly record: KnowledgePassageRecord
  readonly document: KnowledgePassage
  readonly embedText: string
}

/** Cuts a material into the passages of one revision (whitespace-only passages are left out). */
export function splitMaterial(
  material: KnowledgeMaterial,
  revision: number,
  settings: PassageSettings,
  splitter: PassageSplitter,
): SplitPassage[] {
  const { text } = material
  if (text.trim() === '') return []
  const pieces = splitter.passages(text, settings)
  const breaks = lineBreaks(text)
  const out: SplitPassage[] = []
  for (const piece of pieces) {
    if (piece.text.trim() === '') continue
    const headingPath = Object.freeze([...piece.headingPath])
    const embedText = embedTextOf({ title: material.title, headingPath, text: piece.text })
    const record: KnowledgePassageRecord = Object.freeze({
      id: passageId(material.id, revision, piece.number),
      documentId: material.id,
      revision,
      number: piece.number,
      headingPath,
      text: piece.text,
      start: piece.start,
      end: piece.end,
      startLine: lineAt(breaks, piece.start + (piece.text.length - piece.text.trimStart().length)),
      endLine: lineAt(breaks, piece.start + piece.text.trimEnd().length - 1),
      hash: textHash(embedText),
    })
    out.push({ record, document: passageDocument(record, material.title, material.metadata), embedText })
  }
  return out
}
