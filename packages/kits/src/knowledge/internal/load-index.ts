/**
 * What a load makes of the store's contents: the publication's document states and hash counts
 * (`documentStateOf`, cheap), and the search index (`buildIndex`): the stored passages are added to a fresh
 * HybridSearch in chunks (the signal is checked and progress reported between chunks), reading their
 * stored vectors through the staged embedder, so nothing is embedded. The caller installs the index only
 * when it is complete, so searches keep using the previous one until then.
 */
import { throwIfAborted } from '@agent-core/core'
import type { HybridSearch } from '@agent-core/kits/search'
import type { KnowledgePassage } from '../knowledge-types.js'
import type { StagedEmbedder } from './index-embedder.js'
import { embedTextOf, passageDocument } from './passages.js'
import type { DocumentState } from './plan.js'
import type { Progress } from './progress.js'
import type { CheckedContents } from './store-contents.js'

const CHUNK = 2048

/** The publication's record of what the store holds: each document's passages, and how many use each hash. */
export interface DocumentStates {
  readonly documents: Map<string, DocumentState>
  readonly hashRefs: Map<string, number>
}

export function documentStateOf(contents: CheckedContents): DocumentStates {
  const documents = new Map<string, DocumentState>()
  const hashRefs = new Map<string, number>()
  for (const record of contents.records.values()) {
    if (record.retractedAtMs !== undefined) {
      documents.set(record.id, { record, passageIds: [], hashes: [] })
      continue
    }
    const passages = contents.passages.get(record.id) ?? []
    for (const passage of passages) hashRefs.set(passage.hash, (hashRefs.get(passage.hash) ?? 0) + 1)
    documents.set(record.id, {
      record,
      passageIds: passages.map((p) => p.id),
      hashes: passages.map((p) => p.hash),
    })
  }
  return { documents, hashRefs }
}

export async function buildIndex(
  contents: CheckedContents,
  vectors: ReadonlyMap<string, Float32Array>,
  index: HybridSearch<KnowledgePassage>,
  staged: StagedEmbedder | undefined,
  signal: AbortSignal,
  progress: Progress,
  point: string,
): Promise<HybridSearch<KnowledgePassage>> {
  let chunk: KnowledgePassage[] = []
  let chunkVectors = new Map<string, Float32Array>()
  let chunkDocuments = 0
  const flush = async () => {
    throwIfAborted(signal, point)
    const unstage = staged?.stage(chunkVectors)
    try {
      await index.upsertAll(chunk)
    } finally {
      unstage?.()
    }
    progress.passagesDone += chunk.length
    progress.documentsDone += chunkDocuments
    chunk = []
    chunkVectors = new Map()
    chunkDocuments = 0
    progress.report('indexed')
  }
  for (const record of contents.records.values()) {
    if (record.retractedAtMs !== undefined) continue
    for (const passage of contents.passages.get(record.id) ?? []) {
      const document = passageDocument(passage, record.title, record.metadata)
      chunk.push(document)
      const vector = vectors.get(passage.hash)
      if (staged !== undefined && vector !== undefined) chunkVectors.set(embedTextOf(document), vector)
    }
    chunkDocuments++
    if (chunk.length >= CHUNK) await flush()
  }
  if (chunk.length > 0 || chunkDocuments > 0) await flush()
  return index
}
