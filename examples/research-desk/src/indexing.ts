/**
 * Indexing: the corpus goes through a knowledge publication (`@agent-core/kits/knowledge`): passages cut
 * by the text-blocks kit, the search kit's hybrid index with the offline embedder, stored in SQLite
 * (`@agent-core/kits/knowledge/sqlite`) or a shared PostgreSQL database (`./knowledge-store.ts`). An unchanged file is skipped, an unchanged passage of a changed
 * file keeps its vector, a deleted file is retracted: a second run embeds nothing that did not change.
 */
import { createHash } from 'node:crypto'
import { ConflictError } from '@agent-core/core'
import {
  Knowledge,
  type KnowledgePassage,
  type KnowledgeProgress,
  type KnowledgePublication,
  type KnowledgeReceipt,
  type KnowledgeSearchOptions,
} from '@agent-core/kits/knowledge'
import { type Embedder, englishAnalyzer } from '@agent-core/kits/search'
import type { Corpus } from './corpus.js'
import { openDeskKnowledgeStore } from './knowledge-store.js'

/** What indexing did. */
export interface IndexSummary {
  readonly files: number
  readonly skippedFiles: number
  /** Files written with a new revision (new or changed). */
  readonly published: number
  readonly unchanged: number
  /** Files gone from the folder, retracted. */
  readonly retracted: number
  /** Passages searchable now. */
  readonly passages: number
  /** Passage texts the embedder embedded (0 when nothing changed). */
  readonly embedded: number
  /** Names the published revisions: the same folder contents give the same fingerprint. */
  readonly fingerprint: string
}

/** A passage a search found, with the query terms it matched on the text side. */
export type SearchedPassage = KnowledgePassage & {
  /** The query's terms (after analysis) the passage matched in its text or headings. */
  readonly matched?: readonly string[]
}

/** How many of the corpus' files hold each of some terms. */
export interface TermFiles {
  /** The files of the corpus. */
  readonly corpusFiles: number
  /** Per term asked, in order: how many files hold it (0 when none does). */
  readonly files: readonly number[]
}

/** A corpus' publication in the desk's knowledge store. */
export interface CorpusIndex {
  readonly publication: KnowledgePublication
  /** Brings the publication up to date with the folder. */
  update(
    corpus: Corpus,
    onProgress: (progress: KnowledgeProgress) => void,
    signal: AbortSignal,
  ): Promise<IndexSummary>
  /** The best passages for `query`; only those of `file` (a document id) when it is given. */
  search(query: string, limit: number, file?: string): Promise<readonly SearchedPassage[]>
  passage(id: string): Promise<KnowledgePassage | undefined>
  /**
   * How many files of the corpus (as of the last `update`) hold each of `terms` (analyzed terms, as
   * `englishAnalyzer.analyze` gives them): what tells a rare word of a question from a common one.
   */
  termFiles(terms: readonly string[]): TermFiles
  close(): Promise<void>
}

/** Per analyzed term, how many of `corpus`' files hold it. */
function fileFrequencies(corpus: Corpus): Map<string, number> {
  const counts = new Map<string, number>()
  for (const material of corpus.materials) {
    for (const term of new Set(englishAnalyzer.analyze(material.text)))
      counts.set(term, (counts.get(term) ?? 0) + 1)
  }
  return counts
}

/**
 * One publication per corpus folder, all in one SQLite file, or in one PostgreSQL database (`database`,
 * a `postgres://` URL) that desks in other processes share.
 */
export async function openCorpusIndex(options: {
  file: string
  database?: string | undefined
  corpusRoot: string
  embedder: Embedder
  /** How the index ranks (default: the desk's own fusion, see below). */
  search?: KnowledgeSearchOptions
}): Promise<CorpusIndex> {
  const opened = await openDeskKnowledgeStore(options)
  const store = opened.store
  const id = `corpus-${createHash('sha256').update(options.corpusRoot).digest('hex').slice(0, 16)}`
  const publication = Knowledge.defineKnowledgePublication({
    id,
    store,
    embedder: options.embedder,
    passages: { targetChars: 900 },
    // The text ranking counts twice the vector ranking: the offline sentence encoder ranks passages well
    // below BM25 (bench/retrieval), so an equal say lets it push good text hits down. Passages of one
    // file do not lift each other (documentSupport stays at its default, 0): in bench/desk that let one
    // file matching a few common words fill all five hits (67% of the answers cited the right file
    // first with 0.5, 75% with 0).
    search: options.search ?? { fusion: { textWeight: 2 } },
  })
  let frequencies = new Map<string, number>()
  let corpusFiles = 0
  return {
    publication,
    async update(corpus, onProgress, signal) {
      frequencies = fileFrequencies(corpus)
      corpusFiles = corpus.materials.length
      const present = new Set(corpus.materials.map((material) => material.id))
      const gone = (await publication.list({ signal })).filter((document) => !present.has(document.id))
      let embedded = 0
      let retracted = 0
      if (gone.length > 0) {
        const receipt = await publication.retract(
          { ids: gone.map((document) => document.id), onProgress },
          { signal },
        )
        retracted = receipt.retracted.length
      }
      // Another desk sharing the database may publish the same files at once: its ConflictError means the
      // publication reloads, and the next attempt skips what the other desk already published.
      let receipt: KnowledgeReceipt | undefined
      for (let attempt = 1; receipt === undefined; attempt++) {
        try {
          receipt = await publication.publish({ materials: corpus.materials, onProgress }, { signal })
        } catch (error) {
          if (!ConflictError.isInstance(error) || attempt >= 5) throw error
        }
      }
      embedded += receipt.embedded
      const documents = await publication.list({ signal })
      const fingerprint = createHash('sha256')
        .update(JSON.stringify(documents.map((document) => [document.id, document.contentHash])))
        .digest('hex')
      return {
        files: corpus.materials.length,
        skippedFiles: corpus.skipped,
        published: receipt.published.length,
        unchanged: receipt.skipped.filter((skip) => skip.reason === 'unchanged').length,
        retracted,
        passages: documents.reduce((sum, document) => sum + document.passageCount, 0),
        embedded,
        fingerprint,
      }
    },
    async search(query, limit, file) {
      const hits = await publication.search({
        query,
        limit,
        ...(file === undefined ? {} : { filter: (passage) => passage.documentId === file }),
      })
      return hits.map((hit) => ({ ...hit.document, matched: hit.terms }))
    },
    passage: (passageId) => publication.passage(passageId),
    termFiles: (terms) => ({ corpusFiles, files: terms.map((term) => frequencies.get(term) ?? 0) }),
    close: () => opened.close(),
  }
}
