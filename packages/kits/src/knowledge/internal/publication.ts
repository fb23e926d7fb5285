/**
 * The publication: an in-memory hybrid index of the published passages kept in step with the App's
 * store. Changes run one at a time (a queue), and each batch goes: embed what has no stored vector,
 * write the batch to the store in one transaction, then swap the documents' passages in the index in one
 * synchronous step. A failed embed or write leaves both as they were; a cancellation stops between
 * batches.
 *
 * A load that another call starts (the first `list`, `publish` or `retract`) reads the store but leaves
 * building the search index to the first call that needs it (`search`, `passage`, or a change to apply):
 * analysing every stored passage is most of a load's time on a large corpus, and an unchanged publish or
 * a list needs none of it. `load()` builds it at once.
 */
import {
  AgentCoreError,
  assertNonEmptyString,
  ConflictError,
  createOperationContext,
  describeValue,
  InvalidStateError,
  type OperationContext,
  type OperationContextInit,
  raceSignal,
  refuseField,
  throwIfAborted,
} from '@agent-core/core'
import type { Embedder, HybridSearch, HybridSearchHit, HybridSearchRequest } from '@agent-core/kits/search'
import type {
  KnowledgeAuthorization,
  KnowledgeLoadRequest,
  KnowledgeProgressListener,
  KnowledgePublication,
  KnowledgePublishRequest,
  KnowledgeRetractRequest,
} from '../knowledge-definition.js'
import { KnowledgeStoreError } from '../knowledge-errors.js'
import type { KnowledgeEmbeddingSpace, KnowledgeStoreBatch } from '../knowledge-store.js'
import type {
  KnowledgeDocument,
  KnowledgeLoadResult,
  KnowledgePassage,
  KnowledgeReceipt,
} from '../knowledge-types.js'
import { asDefinitionError, type CheckedDefinition } from './definition.js'
import { StagedEmbedder } from './index-embedder.js'
import { buildIndex, documentStateOf } from './load-index.js'
import { checkMaterials } from './material.js'
import { embedTextOf, loadPassageSplitter } from './passages.js'
import {
  batchesOf,
  type Change,
  type DocumentState,
  type Plan,
  passagesOf,
  planPublish,
  planRetract,
  receiptOf,
} from './plan.js'
import { Progress } from './progress.js'
import { checkIds, checkListener, checkRequest } from './requests.js'
import { loadedSearchKit, loadSearchKit } from './search-kit.js'
import { checkSearchSettings, hybridOptions } from './search-settings.js'
import { type CheckedContents, checkContents, checkStoredVector } from './store-contents.js'
import { embedTexts } from './vectors.js'

type AnyContext<App> = OperationContext<App> | OperationContextInit<App> | undefined

/** The vectors of one batch: all of them by hash, and the new ones to write. */
interface BatchVectors {
  readonly byHash: Map<string, Float32Array>
  readonly fresh: { readonly hash: string; readonly vector: Float32Array }[]
  /** Passages whose vector was read back from the store. */
  readonly reused: number
}

/** What a deferred load read from the store, for the index built on first need. */
interface PendingBuild {
  readonly contents: CheckedContents
  readonly vectors: Map<string, Float32Array>
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

export class Publication<App> implements KnowledgePublication<App> {
  readonly id: string
  readonly embedder: Embedder | undefined
  readonly #definition: CheckedDefinition
  readonly #staged: StagedEmbedder | undefined
  readonly #space: KnowledgeEmbeddingSpace | undefined
  /** The search index: built by the first load that builds one (`load()`, or `#built` after a deferred load). */
  #index: HybridSearch<KnowledgePassage> | undefined
  /** What a deferred load read from the store, until the index is built from it (`#built`). */
  #pending: PendingBuild | undefined
  #building: Promise<void> | undefined
  #documents = new Map<string, DocumentState>()
  /** How many live passages have each embedded-text hash: the hashes whose vectors the store holds. */
  #hashRefs = new Map<string, number>()
  #loaded = false
  #loading: Promise<unknown> | undefined
  #tail: Promise<unknown> = Promise.resolve()

  constructor(definition: CheckedDefinition) {
    this.#definition = definition
    this.id = definition.id
    this.embedder = definition.embedder
    const { embedder } = definition
    this.#staged = embedder === undefined ? undefined : new StagedEmbedder(embedder)
    this.#space =
      embedder === undefined
        ? undefined
        : Object.freeze({ identity: embedder.identity, dimensions: embedder.dimensions })
    // What `new HybridSearch` would refuse is refused now; the index itself is built on first need.
    try {
      checkSearchSettings(definition.search)
    } catch (error) {
      throw asDefinitionError(error, definition.id)
    }
  }

  /** A new, empty index; the search kit is imported by the first call (search-kit.ts). */
  async #newIndex(): Promise<HybridSearch<KnowledgePassage>> {
    const { HybridSearch } = loadedSearchKit() ?? (await loadSearchKit())
    try {
      return new HybridSearch(hybridOptions(this.id, this.#definition.search, this.#staged))
    } catch (error) {
      // checkSearchSettings let through a setting that the index refuses: the same definition error.
      throw asDefinitionError(error, this.id)
    }
  }

  // ---- the public API ---------------------------------------------------------------------------

  async load(request: KnowledgeLoadRequest = {}, context?: AnyContext<App>): Promise<KnowledgeLoadResult> {
    const fields = checkRequest(request, 'load', '{ onProgress? }')
    const onProgress = checkListener(fields.onProgress, 'request.onProgress')
    const operation = createOperationContext(context ?? {}) as OperationContext<App>
    return this.#serialize(() => this.#load(operation, onProgress, true), operation.signal)
  }

  async publish(request: KnowledgePublishRequest, context?: AnyContext<App>): Promise<KnowledgeReceipt> {
    const fields = checkRequest(request, 'publish', '{ materials: [{ id, text }] }')
    const materials = checkMaterials(fields.materials, this.#definition.assertMaterial)
    const onProgress = checkListener(fields.onProgress, 'request.onProgress')
    const operation = createOperationContext(context ?? {}) as OperationContext<App>
    const authorization: KnowledgeAuthorization = {
      action: 'publish',
      publicationId: this.id,
      materials: Object.freeze(materials.map((m) => m.material)),
    }
    return this.#serialize(() => this.#run(operation, authorization, onProgress), operation.signal)
  }

  async retract(request: KnowledgeRetractRequest, context?: AnyContext<App>): Promise<KnowledgeReceipt> {
    const fields = checkRequest(request, 'retract', "{ ids: ['guide.md'] }")
    const ids = Object.freeze(checkIds(fields.ids))
    const onProgress = checkListener(fields.onProgress, 'request.onProgress')
    const operation = createOperationContext(context ?? {}) as OperationContext<App>
    const authorization: KnowledgeAuthorization = { action: 'retract', publicationId: this.id, ids }
    return this.#serialize(() => this.#run(operation, authorization, onProgress), operation.signal)
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
    return out.sort(byId)
  }

  async search(
    request: HybridSearchRequest<KnowledgePassage>,
  ): Promise<readonly HybridSearchHit<KnowledgePassage>[]> {
    const signal =
      typeof request === 'object' && request !== null ? (request as { signal?: unknown }).signal : undefined
    const checked = signal instanceof AbortSignal ? signal : undefined
    await this.#ready(checked)
    return (await this.#built(checked)).search(request)
  }

  async passage(id: string): Promise<KnowledgePassage | undefined> {
    assertNonEmptyString(id, 'id', { where: 'passage', hint: "Pass a passage id such as 'guide.md@1#2'." })
    await this.#ready(undefined)
    return (await this.#built(undefined)).get(id)
  }

  // ---- the queue and loading --------------------------------------------------------------------

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
        if (!this.#loaded)
          await this.#load(createOperationContext({}) as OperationContext<App>, undefined, false)
      }, undefined)
    await (signal === undefined
      ? loading
      : raceSignal(loading, signal, `waiting for publication "${this.id}" to load`))
  }

  /** Loads from the store; `build: false` leaves the index to `#built` (see the module comment). */
  #load(
    context: OperationContext<App>,
    onProgress: KnowledgeProgressListener | undefined,
    build: boolean,
  ): Promise<KnowledgeLoadResult> {
    const loading = this.#loadNow(context, onProgress, build)
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
    build: boolean,
  ): Promise<KnowledgeLoadResult> {
    const span = context.diagnostics.span('knowledge-load', { publicationId: this.id })
    const inner = { ...context, diagnostics: span.diagnostics }
    try {
      throwIfAborted(context.signal, `before loading publication "${this.id}"`)
      const space = this.#space
      const loaded = await this.#storeCall('load', () =>
        this.#definition.store.load({ publicationId: this.id, space }, { signal: context.signal }),
      )
      const contents = checkContents(loaded, space)
      let documents = 0
      // Passages whose vector the store lacks for this embedder (a new model): embedded once, now.
      const missing = new Map<string, string>()
      for (const record of contents.records.values()) {
        if (record.retractedAtMs !== undefined) continue
        documents++
        if (space === undefined) continue
        for (const passage of contents.passages.get(record.id) ?? []) {
          if (!contents.vectors.has(passage.hash) && !missing.has(passage.hash)) {
            const { headingPath, text } = passage
            missing.set(passage.hash, embedTextOf({ title: record.title, headingPath, text }))
          }
        }
      }
      // A deferred build indexes no passage now, so its progress counts none.
      const progress = new Progress(
        this.id,
        'load',
        onProgress,
        documents,
        build ? contents.passageCount : 0,
        missing.size,
      )
      progress.report('planned')
      const vectors = new Map(contents.vectors)
      if (missing.size > 0) await this.#embedMissing(missing, vectors, inner, progress)
      if (build) {
        this.#index = await buildIndex(
          contents,
          vectors,
          await this.#newIndex(),
          this.#staged,
          context.signal,
          progress,
          `while loading publication "${this.id}"`,
        )
        this.#pending = undefined
      } else {
        this.#pending = { contents, vectors }
        progress.documentsDone = documents
      }
      const state = documentStateOf(contents)
      this.#documents = state.documents
      this.#hashRefs = state.hashRefs
      this.#loaded = true
      progress.report('done')
      const result: KnowledgeLoadResult = Object.freeze({
        publicationId: this.id,
        documents,
        passages: contents.passageCount,
        embedded: progress.embedded,
      })
      span.end('ok', { documents, passages: result.passages, embedded: result.embedded })
      return result
    } catch (error) {
      span.fail(error)
      throw error
    }
  }

  /**
   * The search index, built first from what a deferred load read when there is such a load (one build
   * at a time; every caller waits for it, each cancelled only by its own signal). A build that fails
   * (an App analyzer threw) is tried again by the next call.
   */
  async #built(signal: AbortSignal | undefined): Promise<HybridSearch<KnowledgePassage>> {
    for (let pending = this.#pending; pending !== undefined; pending = this.#pending) {
      const building = this.#building ?? this.#build(pending)
      await (signal === undefined
        ? building
        : raceSignal(building, signal, `waiting for the index of publication "${this.id}"`))
    }
    // Every caller loads first, and a load leaves an index or a pending build: an empty one is a fallback.
    this.#index ??= await this.#newIndex()
    return this.#index
  }

  #build(pending: PendingBuild): Promise<void> {
    const building = (async () => {
      const { contents, vectors } = pending
      const progress = new Progress(this.id, 'load', undefined, 0, contents.passageCount, 0)
      const point = `while building the index of publication "${this.id}"`
      // Shared by every caller that waits for it, so no caller's signal stops it (each stops its own wait).
      const unstoppable = new AbortController().signal
      const index = await buildIndex(
        contents,
        vectors,
        await this.#newIndex(),
        this.#staged,
        unstoppable,
        progress,
        point,
      )
      // A reload in the meantime read newer contents: they build next.
      if (this.#pending === pending) {
        this.#index = index
        this.#pending = undefined
      }
    })()
    this.#building = building
    const clear = () => {
      if (this.#building === building) this.#building = undefined
    }
    building.then(clear, clear)
    return building
  }

  /** Embeds the passages the store has no vector for (at load), writing their vectors in batches. */
  async #embedMissing(
    missing: Map<string, string>,
    vectors: Map<string, Float32Array>,
    context: OperationContext<App>,
    progress: Progress,
  ): Promise<void> {
    const entries = [...missing]
    const maxBatch = (this.embedder as Embedder).maxBatch ?? 64
    const perWrite = Math.max(maxBatch, this.#definition.passagesPerBatch)
    for (let from = 0; from < entries.length; from += perWrite) {
      const fresh = await this.#embedAll(entries.slice(from, from + perWrite), context, progress)
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
  ): Promise<KnowledgeReceipt> {
    const { action } = authorization
    const count = action === 'publish' ? authorization.materials.length : authorization.ids.length
    const span = context.diagnostics.span(`knowledge-${action}`, { publicationId: this.id, documents: count })
    const inner: OperationContext<App> = { ...context, diagnostics: span.diagnostics }
    try {
      throwIfAborted(context.signal, `before the ${action} call of publication "${this.id}"`)
      await this.#authorize(authorization, inner)
      if (!this.#loaded) await this.#load(inner, onProgress, false)
      const plan =
        authorization.action === 'publish'
          ? planPublish(
              authorization.materials,
              this.#documents,
              this.#definition.passages,
              context.now(),
              await loadPassageSplitter(),
            )
          : planRetract(authorization.ids, this.#documents, context.now())
      const receipt = await this.#apply(plan, action, count, inner, onProgress)
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
      `authorizing the ${request.action} call of publication "${this.id}"`,
    )
    if (returned !== undefined) {
      refuseField(
        'output',
        'authorize',
        `returned ${describeValue(returned)}, but it must return nothing: throw to refuse`,
        returned,
        {
          prefix: `Publication "${this.id}": `,
          details: { hook: 'authorize', returned: describeValue(returned) },
        },
      )
    }
  }

  /** Applies a plan batch by batch: vectors, one store write, one index swap; progress after each. */
  async #apply(
    plan: Plan,
    action: 'publish' | 'retract',
    count: number,
    context: OperationContext<App>,
    onProgress: KnowledgeProgressListener | undefined,
  ): Promise<KnowledgeReceipt> {
    const toEmbed = new Set<string>()
    if (this.#space !== undefined) {
      for (const { split } of plan.changes)
        for (const { record } of split) if (!this.#hashRefs.has(record.hash)) toEmbed.add(record.hash)
    }
    const passages = plan.changes.reduce((sum, change) => sum + passagesOf(change), 0)
    const progress = new Progress(this.id, action, onProgress, count, passages, toEmbed.size)
    progress.documentsDone = plan.skipped.length
    progress.report('planned')
    // The index a change swaps into, built before anything is written (a deferred load's, see #built).
    if (plan.changes.length > 0) await this.#built(context.signal)
    const batches = batchesOf(plan.changes, this.#definition.passagesPerBatch)
    let reused = 0
    for (let b = 0; b < batches.length; b++) {
      const batch = batches[b] as Change[]
      const which = `batch ${b + 1} of ${batches.length} of publication "${this.id}"`
      throwIfAborted(context.signal, `before ${which}`)
      const vectors = await this.#vectorsFor(batch, context, progress)
      throwIfAborted(context.signal, `before writing ${which}`)
      const documents = batch.map((c) => c.change)
      await this.#write(
        { publicationId: this.id, space: this.#space, documents, vectors: vectors.fresh },
        context,
      )
      await this.#swap(batch, vectors.byHash)
      reused += vectors.reused
      progress.documentsDone += batch.length
      progress.passagesDone += batch.reduce((sum, change) => sum + passagesOf(change), 0)
      progress.report('written')
    }
    progress.report('done')
    return receiptOf(this.id, action, plan, { embedded: progress.embedded, reused, batches: batches.length })
  }

  /**
   * The vectors of a batch's new passages: those the store holds are read back, the others embedded
   * (each distinct text once).
   */
  async #vectorsFor(
    batch: readonly Change[],
    context: OperationContext<App>,
    progress: Progress,
  ): Promise<BatchVectors> {
    const byHash = new Map<string, Float32Array>()
    const space = this.#space
    if (space === undefined) return { byHash, fresh: [], reused: 0 }
    const wanted = new Map<string, string>()
    for (const { split } of batch)
      for (const { record, embedText } of split)
        if (!wanted.has(record.hash)) wanted.set(record.hash, embedText)
    const known = [...wanted.keys()].filter((hash) => this.#hashRefs.has(hash))
    if (known.length > 0) {
      const found: unknown = await this.#storeCall('vectors', () =>
        this.#definition.store.vectors(
          { publicationId: this.id, space, hashes: known },
          { signal: context.signal },
        ),
      )
      if (!(found instanceof Map)) {
        refuseField(
          'output',
          'store.vectors',
          `returned ${describeValue(found)}, not a Map of vectors by hash`,
          found,
          {
            prefix: 'The knowledge store: ',
            details: { hook: 'store.vectors', returned: describeValue(found) },
          },
        )
      }
      for (const hash of known) {
        const vector: unknown = found.get(hash)
        // A vector the store no longer has (another writer swept it) is embedded again below.
        if (vector !== undefined)
          byHash.set(hash, checkStoredVector(vector, space, `vectors "${hash}"`, 'store.vectors'))
      }
    }
    let reused = 0
    for (const { split } of batch) for (const { record } of split) if (byHash.has(record.hash)) reused++
    const fresh = await this.#embedAll(
      [...wanted].filter(([hash]) => !byHash.has(hash)),
      context,
      progress,
    )
    for (const { hash, vector } of fresh) byHash.set(hash, vector)
    return { byHash, fresh, reused }
  }

  /** Embeds `[hash, text]` pairs in calls of at most `maxBatch` texts. */
  async #embedAll(
    entries: readonly (readonly [string, string])[],
    context: OperationContext<App>,
    progress: Progress,
  ): Promise<{ hash: string; vector: Float32Array }[]> {
    const embedder = this.embedder as Embedder
    const maxBatch = embedder.maxBatch ?? 64
    const out: { hash: string; vector: Float32Array }[] = []
    for (let from = 0; from < entries.length; from += maxBatch) {
      const slice = entries.slice(from, from + maxBatch)
      const texts = slice.map(([, text]) => text)
      const span = context.diagnostics.span('knowledge-embed', {
        publicationId: this.id,
        identity: embedder.identity,
        texts: texts.length,
      })
      let vectors: Float32Array[]
      try {
        vectors = await embedTexts(embedder, texts, context.signal)
        span.end('ok')
      } catch (error) {
        span.fail(error)
        throw error
      }
      for (let i = 0; i < slice.length; i++)
        out.push({ hash: (slice[i] as readonly [string, string])[0], vector: vectors[i] as Float32Array })
      progress.embedded += slice.length
      progress.report('embedded')
    }
    return out
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
      // Another writer changed the store: reload before the next call, so that it plans against the truth.
      if (ConflictError.isInstance(error)) this.#loaded = false
      span.fail(error)
      throw error
    }
  }

  async #storeCall<T>(operation: 'load' | 'vectors' | 'write', call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (error) {
      if (AgentCoreError.isInstance(error)) throw error
      const what = { load: 'load', vectors: 'read the vectors of', write: 'write a batch of' }[operation]
      const after =
        operation === 'write'
          ? 'Nothing of this batch was written and the index is unchanged; publish again once the store is back.'
          : 'Retry once the store is back.'
      throw new KnowledgeStoreError(
        `The knowledge store failed to ${what} publication "${this.id}": ${error instanceof Error ? error.message : describeValue(error)}. ${after}`,
        { cause: error, details: { publicationId: this.id, operation } },
      )
    }
  }

  /**
   * Swaps a committed batch into the index and the mirror: HybridSearch.update removes the documents'
   * old passages and adds the new ones in one synchronous step, reading the staged vectors.
   */
  async #swap(batch: readonly Change[], byHash: Map<string, Float32Array>): Promise<void> {
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
      // #apply waited for the index (#built) before the first batch.
      await this.#index!.update({ remove, upsert })
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
        passageIds: change.passages.map((p) => p.id),
        hashes: change.passages.map((p) => p.hash),
      })
    }
  }

  #release(hash: string): void {
    const count = this.#hashRefs.get(hash) ?? 0
    if (count <= 1) this.#hashRefs.delete(hash)
    else this.#hashRefs.set(hash, count - 1)
  }
}
