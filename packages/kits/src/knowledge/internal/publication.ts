/**
 * The publication: an in-memory hybrid index of the published passages kept in step with the App's
 * store. Every change runs one at a time (a queue), and each batch goes: embed what has no stored vector,
 * write the batch to the store in one transaction, then swap the documents' passages in the index in one
 * synchronous step. A failed embed or write leaves both as they were; a cancellation stops between
 * batches.
 */
import {
  AgentCoreError,
  assertNonEmptyString,
  assertNotThenable,
  ConflictError,
  createOperationContext,
  describeValue,
  InvalidInputError,
  InvalidOutputError,
  InvalidStateError,
  type OperationContext,
  type OperationContextInit,
  raceSignal,
  throwIfAborted,
} from '@agent-core/core'
import {
  type Embedder,
  HybridSearch,
  type HybridSearchHit,
  type HybridSearchRequest,
} from '@agent-core/kits/search'
import type {
  KnowledgeAuthorization,
  KnowledgeLoadRequest,
  KnowledgeProgressListener,
  KnowledgePublication,
  KnowledgePublishRequest,
  KnowledgeRetractRequest,
} from '../knowledge-definition.js'
import { KnowledgeStoreError } from '../knowledge-errors.js'
import type {
  KnowledgeDocumentChange,
  KnowledgeDocumentRecord,
  KnowledgeEmbeddingSpace,
  KnowledgePassageRecord,
  KnowledgeStoreBatch,
} from '../knowledge-store.js'
import type {
  KnowledgeDocument,
  KnowledgeLoadResult,
  KnowledgeMaterial,
  KnowledgePassage,
  KnowledgeProgress,
  KnowledgePublished,
  KnowledgeReceipt,
  KnowledgeRetracted,
  KnowledgeSkipped,
} from '../knowledge-types.js'
import { asDefinitionError, type CheckedDefinition } from './definition.js'
import { StagedEmbedder } from './index-embedder.js'
import { checkMaterials, contentHash } from './material.js'
import { embedTextOf, passageDocument, type SplitPassage, settingsKey, splitMaterial } from './passages.js'
import { checkContents, checkStoredVector } from './store-contents.js'
import { embedTexts } from './vectors.js'

/** What the publication remembers of a document (published, or retracted with its last revision). */
interface DocumentState {
  readonly record: KnowledgeDocumentRecord
  readonly passageIds: readonly string[]
  readonly hashes: readonly string[]
}

/** One document of a publish or retract call that changes the store. */
interface Change {
  readonly change: KnowledgeDocumentChange
  /** The new passages (empty for a retraction). */
  readonly split: readonly SplitPassage[]
  /** What the document was before. */
  readonly before: DocumentState | undefined
}

type AnyContext<App> = OperationContext<App> | OperationContextInit<App> | undefined

const LOAD_CHUNK = 2048

/** Counts of a running call, reported through onProgress. */
class Progress {
  documentsDone = 0
  passagesDone = 0
  embedded = 0
  constructor(
    readonly publicationId: string,
    readonly action: KnowledgeProgress['action'],
    readonly listener: KnowledgeProgressListener | undefined,
    readonly documents: number,
    readonly passages: number,
    public toEmbed: number,
  ) {}

  report(phase: KnowledgeProgress['phase']): void {
    if (this.listener === undefined) return
    this.toEmbed = Math.max(this.toEmbed, this.embedded)
    const progress: KnowledgeProgress = Object.freeze({
      publicationId: this.publicationId,
      action: this.action,
      phase,
      documents: this.documents,
      documentsDone: this.documentsDone,
      passages: this.passages,
      passagesDone: this.passagesDone,
      toEmbed: this.toEmbed,
      embedded: this.embedded,
    })
    assertNotThenable(this.listener(progress), 'onProgress')
  }
}

function checkListener(value: unknown, field: string): KnowledgeProgressListener | undefined {
  if (value !== undefined && typeof value !== 'function') {
    throw new InvalidInputError(`${field} must be a function or left out, but got ${describeValue(value)}.`, {
      details: { field, received: describeValue(value) },
    })
  }
  return value as KnowledgeProgressListener | undefined
}

function checkRequest(value: unknown, method: string, example: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidInputError(`${method} takes a request ${example}, but got ${describeValue(value)}.`, {
      details: { field: 'request', received: describeValue(value) },
    })
  }
  return value as Record<string, unknown>
}

function checkIds(value: unknown): string[] {
  if (!Array.isArray(value)) {
    throw new InvalidInputError(
      `retract: request.ids must be an array of document ids, but got ${describeValue(value)}.`,
      {
        details: { field: 'request.ids', received: describeValue(value) },
      },
    )
  }
  const seen = new Map<string, number>()
  const ids: string[] = []
  for (let i = 0; i < value.length; i++) {
    const id: unknown = i in value ? value[i] : undefined
    assertNonEmptyString(id, `request.ids[${i}]`, {
      where: 'retract',
      hint: 'Pass the ids the documents were published under.',
    })
    const earlier = seen.get(id)
    if (earlier !== undefined) {
      throw new InvalidInputError(
        `retract: request.ids[${i}] repeats "${id}" of request.ids[${earlier}]. Name each document once.`,
        {
          details: { field: `request.ids[${i}]`, received: describeValue(id) },
        },
      )
    }
    seen.set(id, i)
    ids.push(id)
  }
  return ids
}

/** Groups changes into batches of about `limit` passages (a document is never split; at least one per batch). */
function batchesOf(changes: readonly Change[], limit: number, size: (change: Change) => number): Change[][] {
  const out: Change[][] = []
  let current: Change[] = []
  let count = 0
  for (const change of changes) {
    current.push(change)
    count += Math.max(1, size(change))
    if (count >= limit) {
      out.push(current)
      current = []
      count = 0
    }
  }
  if (current.length > 0) out.push(current)
  return out
}

export class Publication<App> implements KnowledgePublication<App> {
  readonly id: string
  readonly embedder: Embedder | undefined
  readonly #definition: CheckedDefinition
  readonly #settingsKey: string
  readonly #staged: StagedEmbedder | undefined
  readonly #space: KnowledgeEmbeddingSpace | undefined
  #index: HybridSearch<KnowledgePassage>
  #documents = new Map<string, DocumentState>()
  /** How many live passages have each embedded-text hash (the hashes whose vectors the store holds). */
  #hashRefs = new Map<string, number>()
  #loaded = false
  #loading: Promise<unknown> | undefined
  #tail: Promise<unknown> = Promise.resolve()

  constructor(definition: CheckedDefinition) {
    this.#definition = definition
    this.id = definition.id
    this.embedder = definition.embedder
    this.#settingsKey = settingsKey(definition.passages)
    this.#staged = definition.embedder === undefined ? undefined : new StagedEmbedder(definition.embedder)
    this.#space =
      definition.embedder === undefined
        ? undefined
        : Object.freeze({
            identity: definition.embedder.identity,
            dimensions: definition.embedder.dimensions,
          })
    try {
      this.#index = this.#newIndex()
    } catch (error) {
      throw asDefinitionError(error, definition.id)
    }
  }

  #newIndex(): HybridSearch<KnowledgePassage> {
    const { search } = this.#definition
    return new HybridSearch<KnowledgePassage>({
      indexRevision: `agent-core/knowledge:${this.id}`,
      fields: ['title', 'headingPath', 'text'],
      boost: search.boost ?? { title: 3, headingPath: 2 },
      ...(search.analyzer !== undefined ? { analyzer: search.analyzer } : {}),
      ...(search.fusion !== undefined ? { fusion: search.fusion } : {}),
      ...(this.#staged !== undefined ? { embedder: this.#staged } : {}),
      embedText: embedTextOf,
      snippetField: 'text',
    })
  }

  // ---- public API -------------------------------------------------------------------------------

  async load(request: KnowledgeLoadRequest = {}, context?: AnyContext<App>): Promise<KnowledgeLoadResult> {
    const fields = checkRequest(request, 'load', '{ onProgress? }')
    const onProgress = checkListener(fields.onProgress, 'request.onProgress')
    const operation = createOperationContext(context ?? {}) as OperationContext<App>
    return this.#serialize(() => this.#load(operation, onProgress), operation.signal)
  }

  async publish(request: KnowledgePublishRequest, context?: AnyContext<App>): Promise<KnowledgeReceipt> {
    const fields = checkRequest(request, 'publish', '{ materials: [{ id, text }] }')
    const materials = checkMaterials(fields.materials, this.#definition.assertMaterial).map((m) => m.material)
    const onProgress = checkListener(fields.onProgress, 'request.onProgress')
    const operation = createOperationContext(context ?? {}) as OperationContext<App>
    const authorization: KnowledgeAuthorization = {
      action: 'publish',
      publicationId: this.id,
      materials: Object.freeze(materials),
    }
    return this.#serialize(
      () => this.#run(operation, authorization, onProgress, materials.length),
      operation.signal,
    )
  }

  async retract(request: KnowledgeRetractRequest, context?: AnyContext<App>): Promise<KnowledgeReceipt> {
    const fields = checkRequest(request, 'retract', "{ ids: ['guide.md'] }")
    const ids = Object.freeze(checkIds(fields.ids))
    const onProgress = checkListener(fields.onProgress, 'request.onProgress')
    const operation = createOperationContext(context ?? {}) as OperationContext<App>
    const authorization: KnowledgeAuthorization = { action: 'retract', publicationId: this.id, ids }
    return this.#serialize(
      () => this.#run(operation, authorization, onProgress, ids.length),
      operation.signal,
    )
  }

  async list(context?: AnyContext<App>): Promise<readonly KnowledgeDocument[]> {
    const operation = createOperationContext(context ?? {})
    await this.#ready(operation.signal)
    const out: KnowledgeDocument[] = []
    for (const { record } of this.#documents.values()) {
      if (record.retractedAtMs !== undefined) continue
      out.push(
        Object.freeze({
          id: record.id,
          revision: record.revision,
          contentHash: record.contentHash,
          ...(record.title !== undefined ? { title: record.title } : {}),
          ...(record.metadata !== undefined ? { metadata: record.metadata } : {}),
          passageCount: record.passageCount,
          publishedAtMs: record.publishedAtMs,
        }),
      )
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  }

  async search(
    request: HybridSearchRequest<KnowledgePassage>,
  ): Promise<readonly HybridSearchHit<KnowledgePassage>[]> {
    const signal =
      typeof request === 'object' && request !== null ? (request as { signal?: unknown }).signal : undefined
    await this.#ready(signal instanceof AbortSignal ? signal : undefined)
    return this.#index.search(request)
  }

  async passage(id: string): Promise<KnowledgePassage | undefined> {
    assertNonEmptyString(id, 'id', { where: 'passage', hint: "Pass a passage id such as 'guide.md@1#2'." })
    await this.#ready(undefined)
    return this.#index.get(id)
  }

  // ---- queue and loading ------------------------------------------------------------------------

  /**
   * Runs `task` after every earlier change. Waiting is cancelled by `signal` (the task then never runs);
   * the next change still waits for the earlier ones.
   */
  #serialize<T>(task: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    const previous = this.#tail
    const result = (async () => {
      if (signal === undefined) await previous
      else {
        throwIfAborted(signal, `before publication "${this.id}" starts`)
        await raceSignal(previous, signal, `waiting for the previous change of publication "${this.id}"`)
      }
      return task()
    })()
    this.#tail = Promise.allSettled([previous, result])
    return result
  }

  /** Waits until an index is loaded: a load in progress, or one queued now (not cancelled by `signal`). */
  async #ready(signal: AbortSignal | undefined): Promise<void> {
    if (this.#loaded) return
    const loading =
      this.#loading ??
      this.#serialize(async () => {
        if (!this.#loaded) await this.#load(createOperationContext({}) as OperationContext<App>, undefined)
      }, undefined)
    await (signal === undefined
      ? loading
      : raceSignal(loading, signal, `waiting for publication "${this.id}" to load`))
  }

  async #ensureLoaded(
    context: OperationContext<App>,
    onProgress: KnowledgeProgressListener | undefined,
  ): Promise<void> {
    if (!this.#loaded) await this.#load(context, onProgress)
  }

  #load(
    context: OperationContext<App>,
    onProgress: KnowledgeProgressListener | undefined,
  ): Promise<KnowledgeLoadResult> {
    const loading = this.#loadNow(context, onProgress)
    this.#loading = loading
    const clear = () => {
      if (this.#loading === loading) this.#loading = undefined
    }
    loading.then(clear, clear)
    return loading
  }

  async #loadNow(
    context: OperationContext<App>,
    onProgress: KnowledgeProgressListener | undefined,
  ): Promise<KnowledgeLoadResult> {
    const span = context.diagnostics.span('knowledge-load', { publicationId: this.id })
    const inner = { ...context, diagnostics: span.diagnostics }
    try {
      throwIfAborted(context.signal, `before loading publication "${this.id}"`)
      const space = this.#space
      const contents = checkContents(
        await this.#storeCall('load', () =>
          this.#definition.store.load({ publicationId: this.id, space }, { signal: context.signal }),
        ),
        space,
      )
      const published = [...contents.records.values()].filter((record) => record.retractedAtMs === undefined)
      // Passages whose vector the store lacks for this embedder (a new model): embed them once, now.
      const missing = new Map<string, string>()
      if (space !== undefined) {
        for (const record of published) {
          for (const passage of contents.passages.get(record.id) ?? []) {
            if (!contents.vectors.has(passage.hash) && !missing.has(passage.hash))
              missing.set(
                passage.hash,
                embedTextOf({ title: record.title, headingPath: passage.headingPath, text: passage.text }),
              )
          }
        }
      }
      const progress = new Progress(
        this.id,
        'load',
        onProgress,
        published.length,
        contents.passageCount,
        missing.size,
      )
      progress.report('planned')
      const vectors = new Map(contents.vectors)
      if (missing.size > 0) await this.#embedMissing(missing, vectors, inner, progress)
      const index = this.#newIndex()
      const documents = new Map<string, DocumentState>()
      const hashRefs = new Map<string, number>()
      for (const record of contents.records.values()) {
        if (record.retractedAtMs !== undefined)
          documents.set(record.id, { record, passageIds: [], hashes: [] })
      }
      let chunk: KnowledgePassage[] = []
      let staged = new Map<string, Float32Array>()
      let chunkDocuments = 0
      const flush = async () => {
        if (chunk.length === 0 && chunkDocuments === 0) return
        throwIfAborted(context.signal, `while loading publication "${this.id}"`)
        const unstage = this.#staged?.stage(staged)
        try {
          await index.upsert(chunk)
        } finally {
          unstage?.()
        }
        progress.passagesDone += chunk.length
        progress.documentsDone += chunkDocuments
        chunk = []
        staged = new Map()
        chunkDocuments = 0
        progress.report('indexed')
      }
      for (const record of published) {
        const passages = contents.passages.get(record.id) ?? []
        for (const passage of passages) {
          const document = passageDocument(passage, record.title, record.metadata)
          chunk.push(document)
          if (space !== undefined)
            staged.set(embedTextOf(document), vectors.get(passage.hash) as Float32Array)
          hashRefs.set(passage.hash, (hashRefs.get(passage.hash) ?? 0) + 1)
        }
        documents.set(record.id, {
          record,
          passageIds: passages.map((p) => p.id),
          hashes: passages.map((p) => p.hash),
        })
        chunkDocuments++
        if (chunk.length >= LOAD_CHUNK) await flush()
      }
      await flush()
      this.#index = index
      this.#documents = documents
      this.#hashRefs = hashRefs
      this.#loaded = true
      progress.report('done')
      const result: KnowledgeLoadResult = Object.freeze({
        publicationId: this.id,
        documents: published.length,
        passages: contents.passageCount,
        embedded: progress.embedded,
      })
      span.end('ok', { documents: result.documents, passages: result.passages, embedded: result.embedded })
      return result
    } catch (error) {
      span.fail(error)
      throw error
    }
  }

  /** Embeds passages the store has no vector for (at load) and writes the vectors in batches. */
  async #embedMissing(
    missing: Map<string, string>,
    vectors: Map<string, Float32Array>,
    context: OperationContext<App>,
    progress: Progress,
  ): Promise<void> {
    const entries = [...missing]
    const embedder = this.embedder as Embedder
    const maxBatch = embedder.maxBatch ?? 64
    const perWrite = Math.max(maxBatch, this.#definition.passagesPerBatch)
    for (let from = 0; from < entries.length; from += perWrite) {
      const part = entries.slice(from, from + perWrite)
      const fresh: { hash: string; vector: Float32Array }[] = []
      for (let at = 0; at < part.length; at += maxBatch) {
        const slice = part.slice(at, at + maxBatch)
        const result = await this.#embed(
          slice.map(([, text]) => text),
          context,
        )
        for (let i = 0; i < slice.length; i++)
          fresh.push({ hash: (slice[i] as [string, string])[0], vector: result[i] as Float32Array })
        progress.embedded += slice.length
        progress.report('embedded')
      }
      throwIfAborted(context.signal, `before writing the vectors of publication "${this.id}"`)
      await this.#write(
        { publicationId: this.id, space: this.#space, documents: [], vectors: fresh },
        context,
      )
      for (const { hash, vector } of fresh) vectors.set(hash, vector)
    }
  }

  // ---- publish and retract ----------------------------------------------------------------------

  async #run(
    context: OperationContext<App>,
    authorization: KnowledgeAuthorization,
    onProgress: KnowledgeProgressListener | undefined,
    count: number,
  ): Promise<KnowledgeReceipt> {
    const { action } = authorization
    const span = context.diagnostics.span(`knowledge-${action}`, { publicationId: this.id, documents: count })
    const inner: OperationContext<App> = { ...context, diagnostics: span.diagnostics }
    try {
      throwIfAborted(
        context.signal,
        `before ${action === 'publish' ? 'publishing to' : 'retracting from'} publication "${this.id}"`,
      )
      await this.#authorize(authorization, inner)
      await this.#ensureLoaded(inner, onProgress)
      const receipt =
        authorization.action === 'publish'
          ? await this.#publish(authorization.materials, inner, onProgress)
          : await this.#retract(authorization.ids, inner, onProgress)
      span.end('ok', {
        published: receipt.published.length,
        retracted: receipt.retracted.length,
        skipped: receipt.skipped.length,
        passages: receipt.passageCount,
        embedded: receipt.embedded,
        batches: receipt.batches,
      })
      return receipt
    } catch (error) {
      span.fail(error)
      throw error
    }
  }

  async #authorize(request: KnowledgeAuthorization, context: OperationContext<App>): Promise<void> {
    const hook = this.#definition.authorize
    if (hook === undefined) return
    const returned = await raceSignal(
      Promise.resolve().then(() => hook(Object.freeze(request), context as OperationContext<unknown>)),
      context.signal,
      `authorizing ${request.action} on publication "${this.id}"`,
    )
    if (returned !== undefined) {
      throw new InvalidOutputError(
        `authorize of publication "${this.id}" returned ${describeValue(returned)}, but it must return nothing: throw to refuse.`,
        { details: { hook: 'authorize', returned: describeValue(returned) } },
      )
    }
  }

  async #publish(
    materials: readonly KnowledgeMaterial[],
    context: OperationContext<App>,
    onProgress: KnowledgeProgressListener | undefined,
  ): Promise<KnowledgeReceipt> {
    const skipped: KnowledgeSkipped[] = []
    const changes: Change[] = []
    const publishedAtMs = context.now()
    for (const material of materials) {
      const hash = contentHash(material, this.#settingsKey)
      const before = this.#documents.get(material.id)
      const live = before !== undefined && before.record.retractedAtMs === undefined
      if (live && before.record.contentHash === hash) {
        skipped.push(
          Object.freeze({ id: material.id, reason: 'unchanged', revision: before.record.revision }),
        )
        continue
      }
      const revision = (before?.record.revision ?? 0) + 1
      const split = splitMaterial(material, revision, this.#definition.passages)
      const record: KnowledgeDocumentRecord = Object.freeze({
        id: material.id,
        revision,
        contentHash: hash,
        ...(material.title !== undefined ? { title: material.title } : {}),
        ...(material.metadata !== undefined ? { metadata: material.metadata } : {}),
        passageCount: split.length,
        publishedAtMs,
      })
      changes.push({
        change: Object.freeze({
          expectedRevision: before?.record.revision ?? 0,
          record,
          passages: Object.freeze(split.map((s) => s.record)),
        }),
        split,
        before,
      })
    }
    const toEmbed = new Set<string>()
    if (this.#space !== undefined) {
      for (const { split } of changes)
        for (const { record } of split) if (!this.#hashRefs.has(record.hash)) toEmbed.add(record.hash)
    }
    const passages = changes.reduce((sum, { split }) => sum + split.length, 0)
    const progress = new Progress(this.id, 'publish', onProgress, materials.length, passages, toEmbed.size)
    progress.documentsDone = skipped.length
    progress.report('planned')
    const batches = batchesOf(changes, this.#definition.passagesPerBatch, (change) => change.split.length)
    let reused = 0
    for (let b = 0; b < batches.length; b++) {
      const batch = batches[b] as Change[]
      throwIfAborted(context.signal, `before batch ${b + 1} of ${batches.length} of publication "${this.id}"`)
      const { byHash, fresh, stored } = await this.#vectorsFor(batch, context, progress)
      throwIfAborted(
        context.signal,
        `before writing batch ${b + 1} of ${batches.length} of publication "${this.id}"`,
      )
      await this.#write(
        { publicationId: this.id, space: this.#space, documents: batch.map((c) => c.change), vectors: fresh },
        context,
      )
      await this.#apply(batch, byHash)
      reused += stored
      progress.documentsDone += batch.length
      progress.passagesDone += batch.reduce((sum, { split }) => sum + split.length, 0)
      progress.report('written')
    }
    progress.report('done')
    const published: KnowledgePublished[] = changes.map(({ change, before }) =>
      Object.freeze({
        id: change.record.id,
        revision: change.record.revision,
        previousRevision:
          before !== undefined && before.record.retractedAtMs === undefined
            ? before.record.revision
            : undefined,
        contentHash: change.record.contentHash,
        passageIds: Object.freeze(change.passages.map((p) => p.id)),
      }),
    )
    return Object.freeze({
      publicationId: this.id,
      action: 'publish',
      published: Object.freeze(published),
      retracted: Object.freeze([]),
      skipped: Object.freeze(skipped),
      passageCount: passages,
      embedded: progress.embedded,
      reused,
      batches: batches.length,
    })
  }

  async #retract(
    ids: readonly string[],
    context: OperationContext<App>,
    onProgress: KnowledgeProgressListener | undefined,
  ): Promise<KnowledgeReceipt> {
    const skipped: KnowledgeSkipped[] = []
    const changes: Change[] = []
    const retractedAtMs = context.now()
    for (const id of ids) {
      const before = this.#documents.get(id)
      if (before === undefined || before.record.retractedAtMs !== undefined) {
        skipped.push(Object.freeze({ id, reason: 'not-published', revision: before?.record.revision }))
        continue
      }
      changes.push({
        change: Object.freeze({
          expectedRevision: before.record.revision,
          record: Object.freeze({ ...before.record, passageCount: 0, retractedAtMs }),
          passages: Object.freeze([]),
        }),
        split: [],
        before,
      })
    }
    const passages = changes.reduce((sum, { before }) => sum + (before?.passageIds.length ?? 0), 0)
    const progress = new Progress(this.id, 'retract', onProgress, ids.length, passages, 0)
    progress.documentsDone = skipped.length
    progress.report('planned')
    const batches = batchesOf(
      changes,
      this.#definition.passagesPerBatch,
      (change) => change.before?.passageIds.length ?? 0,
    )
    for (let b = 0; b < batches.length; b++) {
      const batch = batches[b] as Change[]
      throwIfAborted(context.signal, `before batch ${b + 1} of ${batches.length} of publication "${this.id}"`)
      await this.#write(
        { publicationId: this.id, space: this.#space, documents: batch.map((c) => c.change), vectors: [] },
        context,
      )
      await this.#apply(batch, new Map())
      progress.documentsDone += batch.length
      progress.passagesDone += batch.reduce((sum, { before }) => sum + (before?.passageIds.length ?? 0), 0)
      progress.report('written')
    }
    progress.report('done')
    const retracted: KnowledgeRetracted[] = changes.map(({ before }) =>
      Object.freeze({
        id: (before as DocumentState).record.id,
        revision: (before as DocumentState).record.revision,
        passageCount: (before as DocumentState).passageIds.length,
      }),
    )
    return Object.freeze({
      publicationId: this.id,
      action: 'retract',
      published: Object.freeze([]),
      retracted: Object.freeze(retracted),
      skipped: Object.freeze(skipped),
      passageCount: 0,
      embedded: 0,
      reused: 0,
      batches: batches.length,
    })
  }

  /**
   * The vectors of a batch's passages by hash: stored ones read back from the store, the others embedded
   * (each distinct text once). `fresh` are the new ones to write.
   */
  async #vectorsFor(
    batch: readonly Change[],
    context: OperationContext<App>,
    progress: Progress,
  ): Promise<{
    byHash: Map<string, Float32Array>
    fresh: { hash: string; vector: Float32Array }[]
    stored: number
  }> {
    const byHash = new Map<string, Float32Array>()
    const fresh: { hash: string; vector: Float32Array }[] = []
    const space = this.#space
    if (space === undefined) return { byHash, fresh, stored: 0 }
    const wanted = new Map<string, string>()
    for (const { split } of batch)
      for (const { record, embedText } of split)
        if (!wanted.has(record.hash)) wanted.set(record.hash, embedText)
    const known = [...wanted.keys()].filter((hash) => this.#hashRefs.has(hash))
    if (known.length > 0) {
      const found = await this.#storeCall('vectors', () =>
        this.#definition.store.vectors(
          { publicationId: this.id, space, hashes: known },
          { signal: context.signal },
        ),
      )
      if (!(found instanceof Map)) {
        throw new InvalidOutputError(
          `The knowledge store's vectors returned ${describeValue(found)}, not a Map of vectors by hash.`,
          {
            details: { hook: 'store.vectors', returned: describeValue(found) },
          },
        )
      }
      for (const hash of known) {
        const vector: unknown = found.get(hash)
        if (vector !== undefined)
          byHash.set(hash, checkStoredVector(vector, space, `vectors "${hash}"`, 'store.vectors'))
      }
    }
    let stored = 0
    for (const { split } of batch) for (const { record } of split) if (byHash.has(record.hash)) stored++
    const missing = [...wanted].filter(([hash]) => !byHash.has(hash))
    const maxBatch = (this.embedder as Embedder).maxBatch ?? 64
    for (let from = 0; from < missing.length; from += maxBatch) {
      const slice = missing.slice(from, from + maxBatch)
      const result = await this.#embed(
        slice.map(([, text]) => text),
        context,
      )
      slice.forEach(([hash], i) => {
        const vector = result[i] as Float32Array
        byHash.set(hash, vector)
        fresh.push({ hash, vector })
      })
      progress.embedded += slice.length
      progress.report('embedded')
    }
    return { byHash, fresh, stored }
  }

  async #embed(texts: readonly string[], context: OperationContext<App>): Promise<Float32Array[]> {
    const embedder = this.embedder as Embedder
    const span = context.diagnostics.span('knowledge-embed', {
      publicationId: this.id,
      identity: embedder.identity,
      texts: texts.length,
    })
    try {
      const vectors = await embedTexts(embedder, texts, context.signal)
      span.end('ok')
      return vectors
    } catch (error) {
      span.fail(error)
      throw error
    }
  }

  async #write(batch: KnowledgeStoreBatch, context: OperationContext<App>): Promise<void> {
    const span = context.diagnostics.span('knowledge-store-write', {
      publicationId: this.id,
      documents: batch.documents.length,
      passages: batch.documents.reduce((sum, change) => sum + change.passages.length, 0),
      vectors: batch.vectors.length,
    })
    try {
      await this.#storeCall('write', () =>
        this.#definition.store.write(Object.freeze(batch), { signal: context.signal }),
      )
      span.end('ok')
    } catch (error) {
      // Another writer changed the store: reload before the next call, so it plans against the truth.
      if (ConflictError.isInstance(error)) this.#loaded = false
      span.fail(error)
      throw error
    }
  }

  async #storeCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (error) {
      if (AgentCoreError.isInstance(error)) throw error
      throw new KnowledgeStoreError(
        `The knowledge store failed to ${operation === 'write' ? 'write a batch of' : operation === 'load' ? 'load' : 'read the vectors of'} publication "${this.id}": ${error instanceof Error ? error.message : describeValue(error)}.${operation === 'write' ? ' Nothing of this batch was written and the index is unchanged; publish again once the store is back.' : ' Retry once the store is back.'}`,
        { cause: error, details: { publicationId: this.id, operation } },
      )
    }
  }

  /**
   * Applies a committed batch to the index and the mirror. The index swaps the batch's old passages for
   * the new ones in one synchronous step (HybridSearch.update), reading the staged vectors.
   */
  async #apply(batch: readonly Change[], byHash: Map<string, Float32Array>): Promise<void> {
    const remove: string[] = []
    const upsert: KnowledgePassage[] = []
    const staged = new Map<string, Float32Array>()
    for (const { split, before } of batch) {
      if (before !== undefined) for (const id of before.passageIds) remove.push(id)
      for (const { document, embedText, record } of split) {
        upsert.push(document)
        const vector = byHash.get(record.hash)
        if (vector !== undefined) staged.set(embedText, vector)
      }
    }
    const unstage = this.#staged?.stage(staged)
    try {
      await this.#index.update({ remove, upsert })
    } catch (error) {
      // The store committed but the index refused (an App analyzer threw): reload from the store next time.
      this.#loaded = false
      throw new InvalidStateError(
        `Publication "${this.id}": the store committed a batch, but the index refused it (${error instanceof Error ? error.message : describeValue(error)}). The publication reloads from the store on its next call; fix the analyzer if it threw.`,
        { cause: error, details: { field: 'search.analyzer' } },
      )
    } finally {
      unstage?.()
    }
    for (const { change, before } of batch) {
      if (before !== undefined) for (const hash of before.hashes) this.#release(hash)
      for (const passage of change.passages)
        this.#hashRefs.set(passage.hash, (this.#hashRefs.get(passage.hash) ?? 0) + 1)
      this.#documents.set(change.record.id, {
        record: change.record,
        passageIds: change.passages.map((p: KnowledgePassageRecord) => p.id),
        hashes: change.passages.map((p: KnowledgePassageRecord) => p.hash),
      })
    }
  }

  #release(hash: string): void {
    const count = this.#hashRefs.get(hash) ?? 0
    if (count <= 1) this.#hashRefs.delete(hash)
    else this.#hashRefs.set(hash, count - 1)
  }
}
