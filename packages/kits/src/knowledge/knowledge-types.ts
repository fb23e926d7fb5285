import type { JsonData } from '@agent-core/kits/search'

/**
 * Plain JSON metadata of a material: kept with every revision and copied onto each of its passages, so a
 * search filter can read it.
 *
 * @example
 * ```ts
 * import type { KnowledgeMetadata } from '@agent-core/kits/knowledge'
 * const metadata: KnowledgeMetadata = { path: 'guides/setup.md', tags: ['setup'], audience: 'admins' }
 * ```
 */
export type KnowledgeMetadata = { readonly [key: string]: JsonData }

/**
 * What an App publishes: one document, identified by the App (a file path, a ticket number), with its
 * text (Markdown or plain text, already decoded) and optional title and metadata.
 *
 * @example
 * ```ts
 * import type { KnowledgeMaterial } from '@agent-core/kits/knowledge'
 * const material: KnowledgeMaterial = {
 *   id: 'guides/setup.md',
 *   title: 'Setup',
 *   text: '# Setup\n\nInstall the package, then run the first command.\n',
 *   metadata: { path: 'guides/setup.md' },
 * }
 * ```
 */
export interface KnowledgeMaterial {
  /** The App's id of the document: a non-empty string. Publishing the same id again makes a new revision. */
  readonly id: string
  /** The text, split into passages at headings and blank lines (see `TextBlocks.passages`). */
  readonly text: string
  /** A title, indexed and embedded with every passage. */
  readonly title?: string | undefined
  /** Plain JSON data kept with the document and copied onto its passages. */
  readonly metadata?: KnowledgeMetadata | undefined
}

/**
 * A retrieval passage of a published revision, as the index holds it and search returns it. Its `id`
 * names the revision (`"guide.md@2#3"` is passage 3 of revision 2 of `guide.md`), so a citation always
 * refers to exactly the text that was cited.
 *
 * @example
 * ```ts
 * import type { KnowledgePassage } from '@agent-core/kits/knowledge'
 * function cite(passage: KnowledgePassage): string {
 *   return `${passage.documentId}:${passage.startLine}-${passage.endLine} (${passage.headingPath.join(' > ')})`
 * }
 * ```
 */
export interface KnowledgePassage {
  /** `${documentId}@${revision}#${number}`. */
  readonly id: string
  /** The material's id. */
  readonly documentId: string
  /** The revision of the document this passage belongs to (1, 2, ...). */
  readonly revision: number
  /** The passage's position in the document, from 1 (whitespace-only passages are not indexed). */
  readonly number: number
  /** The material's title, when it has one. */
  readonly title?: string
  /** The headings above the passage, outermost first. */
  readonly headingPath: readonly string[]
  /** The passage's exact characters: `material.text.slice(start, end)`. */
  readonly text: string
  /** UTF-16 offset of the passage in the material's text. */
  readonly start: number
  /** UTF-16 offset just past the passage. */
  readonly end: number
  /** The line (from 1) of the passage's first non-blank character. */
  readonly startLine: number
  /** The line of the passage's last non-blank character (trailing blank lines are not counted). */
  readonly endLine: number
  /** The material's metadata, when it has any. */
  readonly metadata?: KnowledgeMetadata
}

/**
 * A document as it is published now: what `list()` returns.
 *
 * @example
 * ```ts
 * import type { KnowledgeDocument } from '@agent-core/kits/knowledge'
 * const gone = (listed: readonly KnowledgeDocument[], files: Set<string>) =>
 *   listed.filter((document) => !files.has(document.id)).map((document) => document.id)
 * ```
 */
export interface KnowledgeDocument {
  readonly id: string
  /** The published revision: 1 for the first, one more for each change (never reused, even after a retraction). */
  readonly revision: number
  /** SHA-256 of the material and the passage settings; an unchanged material has the same hash. */
  readonly contentHash: string
  readonly title?: string
  readonly metadata?: KnowledgeMetadata
  /** How many passages the revision has in the index. */
  readonly passageCount: number
  /** When the revision was written (the context's clock). */
  readonly publishedAtMs: number
}

/**
 * A document a call wrote: its new revision and passages.
 *
 * @example
 * ```ts
 * import type { KnowledgePublished } from '@agent-core/kits/knowledge'
 * const line = (entry: KnowledgePublished) =>
 *   `${entry.id}: revision ${entry.revision} (${entry.passageIds.length} passages)`
 * ```
 */
export interface KnowledgePublished {
  readonly id: string
  readonly revision: number
  /** The revision it replaced, or `undefined` for a first publication (or one after a retraction). */
  readonly previousRevision: number | undefined
  readonly contentHash: string
  /** The ids of its passages, in order. */
  readonly passageIds: readonly string[]
}

/**
 * A document a call retracted.
 *
 * @example
 * ```ts
 * import type { KnowledgeRetracted } from '@agent-core/kits/knowledge'
 * const line = (entry: KnowledgeRetracted) => `${entry.id}: revision ${entry.revision} retracted`
 * ```
 */
export interface KnowledgeRetracted {
  readonly id: string
  /** The revision that was published until now. */
  readonly revision: number
  /** How many passages left the index. */
  readonly passageCount: number
}

/**
 * Why a call wrote nothing for a document.
 *
 * - `unchanged`: the material is the published revision (same text, title, metadata and passage
 *   settings); nothing was written or embedded.
 * - `not-published`: a retraction named a document that is not published.
 *
 * @example
 * ```ts
 * import type { KnowledgeSkipReason } from '@agent-core/kits/knowledge'
 * const reason: KnowledgeSkipReason = 'unchanged'
 * ```
 */
export type KnowledgeSkipReason = 'unchanged' | 'not-published'

/**
 * A document a call skipped, and why.
 *
 * @example
 * ```ts
 * import type { KnowledgeSkipped } from '@agent-core/kits/knowledge'
 * const unchanged = (skipped: readonly KnowledgeSkipped[]) => skipped.filter((s) => s.reason === 'unchanged').length
 * ```
 */
export interface KnowledgeSkipped {
  readonly id: string
  readonly reason: KnowledgeSkipReason
  /** The published revision (for `unchanged`), or the last one (for a retracted document). */
  readonly revision: number | undefined
}

/**
 * What `publish` and `retract` return.
 *
 * @example
 * ```ts
 * import type { KnowledgeReceipt } from '@agent-core/kits/knowledge'
 * function summary(receipt: KnowledgeReceipt): string {
 *   return `${receipt.published.length} published, ${receipt.retracted.length} retracted, ` +
 *     `${receipt.skipped.length} skipped, ${receipt.embedded} embedded`
 * }
 * ```
 */
export interface KnowledgeReceipt {
  readonly publicationId: string
  readonly action: 'publish' | 'retract'
  /** Documents written with a new revision, in the order given. */
  readonly published: readonly KnowledgePublished[]
  /** Documents retracted, in the order given. */
  readonly retracted: readonly KnowledgeRetracted[]
  /** Documents for which nothing was written, in the order given. */
  readonly skipped: readonly KnowledgeSkipped[]
  /** Passages written by this call. */
  readonly passageCount: number
  /** Texts the embedder embedded for this call. */
  readonly embedded: number
  /** Passages written with a vector already stored (an unchanged passage of a changed document). */
  readonly reused: number
  /** Store transactions this call committed. */
  readonly batches: number
}

/**
 * Progress of a `publish`, `retract` or `load`, reported through `onProgress` after each step, so an App
 * can draw a progress bar (documents done, passages per second, time left).
 *
 * - `planned`: the totals are known, nothing is done yet.
 * - `embedded`: one embedder call returned (`embedded` grew).
 * - `written`: one batch was committed to the store and is visible to search.
 * - `indexed`: (load) a chunk of passages was added to the index being built.
 * - `done`: the call finished.
 *
 * @example
 * ```ts
 * import type { KnowledgeProgress } from '@agent-core/kits/knowledge'
 * function draw(progress: KnowledgeProgress): void {
 *   const share = progress.toEmbed === 0 ? 1 : progress.embedded / progress.toEmbed
 *   process.stdout.write(`\r${progress.documentsDone}/${progress.documents} files, ${Math.round(share * 100)}% embedded`)
 * }
 * ```
 */
export interface KnowledgeProgress {
  readonly publicationId: string
  readonly action: 'publish' | 'retract' | 'load'
  readonly phase: 'planned' | 'embedded' | 'written' | 'indexed' | 'done'
  /** Documents in the call (materials, ids, or the stored documents for a load). */
  readonly documents: number
  /** Documents written or skipped so far (for a load: loaded). */
  readonly documentsDone: number
  /** Passages the call writes (for a load: indexes). */
  readonly passages: number
  /** Passages written (for a load: indexed) so far. */
  readonly passagesDone: number
  /** Distinct texts that need the embedder (an estimate until the call ends). */
  readonly toEmbed: number
  /** Texts embedded so far. */
  readonly embedded: number
}

/**
 * What `load` returns.
 *
 * @example
 * ```ts
 * import type { KnowledgeLoadResult } from '@agent-core/kits/knowledge'
 * const line = (result: KnowledgeLoadResult) => `${result.passages} passages, ${result.embedded} re-embedded`
 * ```
 */
export interface KnowledgeLoadResult {
  readonly publicationId: string
  /** Published documents. */
  readonly documents: number
  /** Passages in the index. */
  readonly passages: number
  /**
   * Texts embedded during the load: passages whose vector the store did not hold for this embedder (a
   * new model, or a store written without one). 0 on an ordinary restart.
   */
  readonly embedded: number
}
