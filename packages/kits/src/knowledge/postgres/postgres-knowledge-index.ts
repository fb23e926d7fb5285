import {
  assertNonEmptyString,
  assertObject,
  assertSafeInteger,
  describeValue,
  InvalidStateError,
  refuseField,
} from '@agent-core/core'
import type { KnowledgeFilter, KnowledgePassage } from '@agent-core/kits/knowledge'
import type {
  Embedder,
  HybridContribution,
  HybridFusionOptions,
  HybridSearchHit,
  TextAnalyzer,
} from '@agent-core/kits/search'
import { embedTextOf } from '../internal/passages.js'
import { loadedSearchKit, loadSearchKit, type SearchKitModule } from '../internal/search-kit.js'
import { embedTexts } from '../internal/vectors.js'
import { type CheckedKnowledgeFilter, checkKnowledgeFilter } from '../knowledge-filter.js'
import { type PostgresKnowledgeStore, realArrayLiteral, runTransaction } from './postgres-knowledge-store.js'
import { tablesOf } from './schema.js'

const WHERE = 'PostgresKnowledgeIndex'

/**
 * Options of {@link PostgresKnowledgeIndex}: the same ranking settings as a publication's in-memory
 * index (`KnowledgeSearchOptions`), over the tables of a {@link PostgresKnowledgeStore}.
 * @example
 * ```ts no-run
 * import pg from 'pg'
 * import { PostgresKnowledgeIndex, PostgresKnowledgeStore, type PostgresKnowledgeIndexOptions } from '@agent-core/kits/knowledge/postgres'
 * const store = new PostgresKnowledgeStore(new pg.Pool())
 * const options: PostgresKnowledgeIndexOptions = { store, publicationId: 'docs', boost: { title: 3, headingPath: 2 } }
 * const index = new PostgresKnowledgeIndex(options)
 * ```
 */
export interface PostgresKnowledgeIndexOptions {
  /** The store whose tables hold the publication. */
  readonly store: PostgresKnowledgeStore
  /** The publication to search. */
  readonly publicationId: string
  /** The publication's embedder (the same identity and dimensions); without one, text search only. */
  readonly embedder?: Embedder | undefined
  /** Text-score multipliers per field (`ts_rank` weights). Default `{ title: 3, headingPath: 2 }`. */
  readonly boost?:
    | { readonly title?: number; readonly headingPath?: number; readonly text?: number }
    | undefined
  /** How the rankings fuse: the same options and defaults as `HybridSearch`. */
  readonly fusion?: HybridFusionOptions | undefined
  /**
   * The analyzer of terms, matches and snippets of the hits (the ranking is PostgreSQL's). Default
   * `englishAnalyzer` (the index's `analyzer` stays `undefined` then).
   */
  readonly analyzer?: TextAnalyzer | undefined
}

/**
 * A request to {@link PostgresKnowledgeIndex.search}: `HybridSearchRequest`'s fields, with a declared
 * {@link KnowledgeFilter} in place of a callback.
 * @example
 * ```ts
 * import type { PostgresKnowledgeSearchRequest } from '@agent-core/kits/knowledge/postgres'
 * const request: PostgresKnowledgeSearchRequest = { query: 'restore a snapshot', limit: 5, filter: { documentIdPrefix: 'guides/' } }
 * ```
 */
export interface PostgresKnowledgeSearchRequest {
  /** Free text. Quoted phrases and identifiers lean the fusion on the text side (`looksExact`). */
  readonly query: string
  /** The most hits to return: a safe integer of at least 0. */
  readonly limit: number
  /** Which passages to keep, evaluated in SQL. */
  readonly filter?: KnowledgeFilter | undefined
  /** `"hybrid"` (default), `"text"` or `"vector"`. */
  readonly mode?: 'hybrid' | 'text' | 'vector' | undefined
  /** Cancels the query's embedding. */
  readonly signal?: AbortSignal | undefined
  /** The snippet length in characters (default 240; 0 for none). */
  readonly snippetChars?: number | undefined
  /**
   * `true` searches vectors exactly (a scan, ignoring HNSW indexes): the reference for recall. Default
   * `false` (an HNSW index serves the query when one exists for the embedding space).
   */
  readonly exact?: boolean | undefined
}

/**
 * Options of {@link PostgresKnowledgeIndex.createVectorIndex}: HNSW build parameters (pgvector's).
 * @example
 * ```ts
 * import type { PostgresVectorIndexOptions } from '@agent-core/kits/knowledge/postgres'
 * const options: PostgresVectorIndexOptions = { m: 16, efConstruction: 64 }
 * ```
 */
export interface PostgresVectorIndexOptions {
  /** Links per node, 2 to 100 (default 16). */
  readonly m?: number | undefined
  /** Candidate list size while building, at least `2 * m` (default 64). */
  readonly efConstruction?: number | undefined
}

interface Resolved {
  readonly k: number
  readonly textWeight: number
  readonly vectorWeight: number
  readonly lookups: 'text-first' | 'fuse'
  readonly candidates: number
  readonly documentSupport: number
}

function finite(value: unknown, field: string, min: number, exclusive = false): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || (exclusive && value === min)) {
    refuseField(
      'input',
      field,
      `must be a finite number ${exclusive ? 'above' : 'of at least'} ${min}, but got ${describeValue(value)}`,
      value,
      { prefix: `${WHERE}: ` },
    )
  }
  return value
}

function resolveFusion(fusion: HybridFusionOptions | undefined): Resolved {
  if (fusion === undefined)
    return {
      k: 60,
      textWeight: 1,
      vectorWeight: 1,
      lookups: 'text-first',
      candidates: 50,
      documentSupport: 0,
    }
  assertObject(fusion, 'options.fusion', { where: WHERE, arrays: false })
  const lookups = fusion.lookups ?? 'text-first'
  if (lookups !== 'text-first' && lookups !== 'fuse') {
    refuseField(
      'input',
      'options.fusion.lookups',
      `must be "text-first" or "fuse", but got ${describeValue(lookups)}`,
      lookups,
      { prefix: `${WHERE}: ` },
    )
  }
  const candidates = fusion.candidates ?? 50
  assertSafeInteger(candidates, 'options.fusion.candidates', { where: WHERE, min: 1 })
  return {
    k: finite(fusion.k ?? 60, 'options.fusion.k', 0),
    textWeight: finite(fusion.textWeight ?? 1, 'options.fusion.textWeight', 0, true),
    vectorWeight: finite(fusion.vectorWeight ?? 1, 'options.fusion.vectorWeight', 0, true),
    lookups,
    candidates,
    documentSupport: finite(fusion.documentSupport ?? 0, 'options.fusion.documentSupport', 0),
  }
}

/** A SQL string literal (standard_conforming_strings). */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`
}

/** The parameters of one statement, numbered as they are added. */
class Params {
  readonly values: unknown[] = []
  add(value: unknown): string {
    this.values.push(value)
    return `$${this.values.length}`
  }
}

/** The SQL condition of a filter over passages `p` (documents `d` joined when metadata is filtered). */
function filterSql(filter: CheckedKnowledgeFilter | undefined, params: Params): string {
  if (filter === undefined) return ''
  let sql = ''
  if (filter.documentIds !== undefined)
    sql += ` AND p.document_id = ANY(${params.add(filter.documentIds)}::text[])`
  if (filter.documentIdPrefix !== undefined)
    sql += ` AND starts_with(p.document_id, ${params.add(filter.documentIdPrefix)})`
  for (const { key, values } of filter.metadata) {
    const json = params.add(values.map((value) => JSON.stringify(value)))
    const path = `d.metadata_jsonb -> ${params.add(key)}`
    sql += ` AND (${path} = ANY(${json}::jsonb[]) OR (jsonb_typeof(${path}) = 'array' AND EXISTS (SELECT 1 FROM jsonb_array_elements(${path}) AS x(v) WHERE x.v = ANY(${json}::jsonb[]))))`
  }
  return sql
}

interface HitRow {
  passage_id: string
  document_id: string
  revision: number
  number: number
  title: string | null
  heading_path: string
  body: string
  start_offset: number
  end_offset: number
  start_line: number
  end_line: number
  metadata: string | null
  text_rank: string | number | null
  text_score: number | null
  vector_rank: string | number | null
  vector_score: number | null
  score: number
}

/** The start of `text` cut at a word boundary: the snippet of a hit without a text match. */
function leadingSnippet(text: string, size: number) {
  let end = Math.min(text.length, size)
  if (end < text.length) {
    let cut = end
    while (cut > 0 && !/\s/.test(text[cut]!)) cut--
    if (cut > 0) end = cut
  }
  const last = text.charCodeAt(end - 1)
  if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--
  return { field: 'text', text: text.slice(0, end), start: 0, end, highlights: [] }
}

/**
 * Hybrid search of a publication's passages inside PostgreSQL, over the tables of a
 * {@link PostgresKnowledgeStore}: every process sees what any writer committed, and no process holds
 * the corpus in memory.
 *
 * - **Text**: the passages' `tsvector` (title weight A, heading path B, text D, in the schema's text
 *   search configuration) against the query's lexemes joined with OR, ranked by `ts_rank` with the
 *   boosts as weights (GIN index).
 * - **Vectors**: cosine distance to the embedded query: through an HNSW index of the embedding space
 *   when {@link PostgresKnowledgeIndex.createVectorIndex} made one (pgvector schema; approximate), else
 *   an exact scan.
 * - **Fusion**, in the same SQL statement: weighted reciprocal rank fusion with `HybridSearch`'s rules
 *   (lookups that `looksExact` recognises let the text ranking decide; passages of one document support
 *   each other by `documentSupport`). Order: fused score, then the better best rank, then the passage id
 *   (code-unit order), as `reciprocalRankFusion`.
 * - **Hits** have `HybridSearchHit`'s shape: contributions (text first), and terms, match and snippet
 *   computed in JS with the analyzer over the returned passages.
 *
 * @example
 * ```ts no-run
 * import pg from 'pg'
 * import { PostgresKnowledgeIndex, PostgresKnowledgeStore } from '@agent-core/kits/knowledge/postgres'
 * const store = new PostgresKnowledgeStore(new pg.Pool({ connectionString: process.env.DATABASE_URL }))
 * const index = new PostgresKnowledgeIndex({ store, publicationId: 'docs' })
 * const hits = await index.search({ query: 'restore a snapshot', limit: 5, filter: { metadata: { lang: 'en' } } })
 * console.log(hits[0]?.document.documentId, hits[0]?.snippet?.text)
 * ```
 */
export class PostgresKnowledgeIndex {
  readonly store: PostgresKnowledgeStore
  readonly publicationId: string
  readonly embedder: Embedder | undefined
  /**
   * The analyzer of the hits' terms, matches and snippets that the options gave; `undefined` means the
   * default `englishAnalyzer` (as `KnowledgeSearchOptions.analyzer`). The search kit, which holds
   * `englishAnalyzer`, is imported by the first search, not with this subpath (docs/design/cold-import.md).
   * @example
   * ```ts no-run
   * import { PostgresKnowledgeIndex, PostgresKnowledgeStore } from '@agent-core/kits/knowledge/postgres'
   * import { englishAnalyzer } from '@agent-core/kits/search'
   * declare const store: PostgresKnowledgeStore
   * const index = new PostgresKnowledgeIndex({ store, publicationId: 'docs' })
   * const analyzer = index.analyzer ?? englishAnalyzer
   * console.log(analyzer.name) // "agent-core/english"
   * ```
   */
  readonly analyzer: TextAnalyzer | undefined
  readonly #boost: { title: number; headingPath: number; text: number }
  readonly #fusion: Resolved

  constructor(options: PostgresKnowledgeIndexOptions) {
    assertObject(options, 'options', {
      where: WHERE,
      arrays: false,
      hint: "Pass { store, publicationId: 'docs' }.",
    })
    const { store, publicationId, embedder, boost, fusion, analyzer } = options
    if (typeof store !== 'object' || store === null || typeof store.checkSchema !== 'function') {
      refuseField(
        'input',
        'options.store',
        `must be a PostgresKnowledgeStore, but got ${describeValue(store)}`,
        store,
        { prefix: `${WHERE}: ` },
      )
    }
    assertNonEmptyString(publicationId, 'options.publicationId', { where: WHERE })
    if (embedder !== undefined) {
      assertObject(embedder, 'options.embedder', { where: WHERE, arrays: false })
      assertNonEmptyString(embedder.identity, 'options.embedder.identity', { where: WHERE })
      assertSafeInteger(embedder.dimensions, 'options.embedder.dimensions', { where: WHERE, min: 1 })
    }
    const b = boost ?? { title: 3, headingPath: 2 }
    assertObject(b, 'options.boost', { where: WHERE, arrays: false })
    this.#boost = {
      title: finite(b.title ?? 1, 'options.boost.title', 0),
      headingPath: finite(b.headingPath ?? 1, 'options.boost.headingPath', 0),
      text: finite(b.text ?? 1, 'options.boost.text', 0),
    }
    this.#fusion = resolveFusion(fusion)
    this.store = store
    this.publicationId = publicationId
    this.embedder = embedder
    this.analyzer = analyzer
  }

  /**
   * Creates the HNSW index of the embedder's space (pgvector schema only), if missing: a partial
   * expression index over this publication's vectors of that identity and dimension count. Building
   * takes minutes for millions of vectors and holds a lock that blocks writes (not reads) meanwhile;
   * create it after a bulk load, or in a maintenance window.
   * @throws InvalidStateError without an embedder, or on an `"array"` schema
   * @example
   * ```ts no-run
   * import { PostgresKnowledgeIndex } from '@agent-core/kits/knowledge/postgres'
   * declare const index: PostgresKnowledgeIndex
   * await index.createVectorIndex({ m: 16, efConstruction: 64 })
   * ```
   */
  async createVectorIndex(options: PostgresVectorIndexOptions = {}): Promise<void> {
    assertObject(options, 'options', { where: `${WHERE}.createVectorIndex`, arrays: false })
    const m = options.m ?? 16
    assertSafeInteger(m, 'options.m', { where: `${WHERE}.createVectorIndex`, min: 2, max: 100 })
    const ef = options.efConstruction ?? 64
    assertSafeInteger(ef, 'options.efConstruction', {
      where: `${WHERE}.createVectorIndex`,
      min: 2 * m,
      max: 1000,
    })
    const embedder = this.embedder
    const schema = await this.store.checkSchema()
    if (embedder === undefined || schema.vectors !== 'pgvector') {
      throw new InvalidStateError(
        `${WHERE}.createVectorIndex needs ${embedder === undefined ? 'an embedder (options.embedder)' : 'a pgvector schema (createSchema({ vectors: "pgvector" }))'}; an "array" schema searches vectors by exact scan only.`,
        { details: { field: embedder === undefined ? 'options.embedder' : 'schema.vectors' } },
      )
    }
    const name = this.#vectorIndexName(embedder)
    const t = tablesOf(this.store.tablePrefix)
    const d = embedder.dimensions
    await runTransaction(
      this.store.pool,
      'BEGIN',
      async (client) => {
        await client.query(
          `CREATE INDEX IF NOT EXISTS "${name}" ON ${t.embeddings} USING hnsw ((vector::vector(${d})) vector_cosine_ops)
         WITH (m = ${m}, ef_construction = ${ef})
         WHERE publication_id = ${literal(this.publicationId)} AND identity = ${literal(embedder.identity)} AND dimensions = ${d}`,
        )
      },
      (error) => error,
    )
  }

  #vectorIndexName(embedder: Embedder): string {
    let hash = 0x811c9dc5
    const key = `${this.publicationId}\u0000${embedder.identity}\u0000${embedder.dimensions}`
    for (let i = 0; i < key.length; i++) {
      hash ^= key.charCodeAt(i)
      hash = Math.imul(hash, 0x01000193) >>> 0
    }
    return `${this.store.tablePrefix}_hnsw_${hash.toString(16).padStart(8, '0')}`
  }

  /**
   * Searches the publication's passages in one read-only transaction (see the class for the ranking).
   * @throws InvalidInputError for a malformed request
   * @example
   * ```ts no-run
   * import { PostgresKnowledgeIndex } from '@agent-core/kits/knowledge/postgres'
   * declare const index: PostgresKnowledgeIndex
   * const [best] = await index.search({ query: '"restore()"', limit: 3, mode: 'text' })
   * console.log(best?.contributions[0]?.sourceId) // "text"
   * ```
   */
  async search(
    request: PostgresKnowledgeSearchRequest,
  ): Promise<readonly HybridSearchHit<KnowledgePassage>[]> {
    assertObject(request, 'request', {
      where: `${WHERE} search`,
      arrays: false,
      hint: "Pass { query: 'words', limit: 10 }.",
    })
    const { query, limit, signal } = request
    if (typeof query !== 'string') {
      refuseField('input', 'request.query', `must be a string, but got ${describeValue(query)}`, query, {
        prefix: `${WHERE} search: `,
      })
    }
    assertSafeInteger(limit, 'request.limit', { where: `${WHERE} search`, min: 0 })
    const mode = request.mode ?? 'hybrid'
    if (mode !== 'hybrid' && mode !== 'text' && mode !== 'vector') {
      refuseField(
        'input',
        'request.mode',
        `must be "hybrid", "text" or "vector", but got ${describeValue(mode)}`,
        mode,
        { prefix: `${WHERE} search: ` },
      )
    }
    const snippetChars = request.snippetChars ?? 240
    assertSafeInteger(snippetChars, 'request.snippetChars', { where: `${WHERE} search`, min: 0 })
    if (signal !== undefined && !(signal instanceof AbortSignal)) {
      refuseField(
        'input',
        'request.signal',
        `must be an AbortSignal, but got ${describeValue(signal)}`,
        signal,
        { prefix: `${WHERE} search: ` },
      )
    }
    if (request.exact !== undefined && typeof request.exact !== 'boolean') {
      refuseField(
        'input',
        'request.exact',
        `must be a boolean, but got ${describeValue(request.exact)}`,
        request.exact,
        { prefix: `${WHERE} search: ` },
      )
    }
    const filter =
      request.filter === undefined ? undefined : checkKnowledgeFilter(request.filter, 'request.filter')
    if (limit === 0) return []
    const schema = await this.store.checkSchema()
    // The search kit (looksExact, and HybridSearch for the hits' details), imported by the first search.
    const kit = loadedSearchKit() ?? (await loadSearchKit())
    const embedder = this.embedder
    const useVectors = mode !== 'text' && embedder !== undefined && query.trim() !== ''
    const useText = mode !== 'vector'
    let queryVector: Float32Array | undefined
    if (useVectors) {
      const vectorQuery = query.replace(/["\u201c\u201d`]/g, ' ').trim() || query
      ;[queryVector] = await embedTexts(embedder, [vectorQuery], signal ?? new AbortController().signal)
    }
    const { k, candidates } = this.#fusion
    const window = Math.max(candidates, limit)
    const lookup = this.#fusion.lookups === 'text-first' && kit.looksExact(query)
    const textWeight = this.#fusion.textWeight * (lookup ? k + window + 1 : 1)
    const vectorWeight = this.#fusion.vectorWeight
    const support = lookup ? 0 : this.#fusion.documentSupport
    const fusedLimit = support > 0 ? 2 * window : limit

    const t = tablesOf(this.store.tablePrefix)
    const params = new Params()
    const pub = params.add(this.publicationId)
    const joinDocuments =
      filter !== undefined && filter.metadata.length > 0
        ? ` JOIN ${t.documents} d ON d.publication_id = p.publication_id AND d.document_id = p.document_id`
        : ''
    const where = filterSql(filter, params)
    const config = `'${schema.textSearchConfig}'::regconfig`
    const max = Math.max(this.#boost.title, this.#boost.headingPath, this.#boost.text) || 1
    const weights = `'{${this.#boost.text / max},0,${this.#boost.headingPath / max},${this.#boost.title / max}}'::float4[]`
    const ctes: string[] = []
    if (useText) {
      const q = params.add(query)
      ctes.push(
        `q AS (SELECT replace(plainto_tsquery(${config}, ${q})::text, ' & ', ' | ')::tsquery AS query)`,
      )
      ctes.push(`text_ranked AS (
        SELECT p.passage_id, ts_rank(${weights}, p.search, q.query)::float8 AS score,
          row_number() OVER (ORDER BY ts_rank(${weights}, p.search, q.query) DESC, p.passage_id COLLATE "C") AS rank
        FROM ${t.passages} p${joinDocuments}, q
        WHERE p.publication_id = ${pub} AND p.search @@ q.query${where}
        ORDER BY rank LIMIT ${window})`)
    } else
      ctes.push(
        `text_ranked AS (SELECT NULL::text AS passage_id, NULL::float8 AS score, NULL::bigint AS rank WHERE false)`,
      )
    if (queryVector !== undefined && embedder !== undefined) {
      const d = embedder.dimensions
      const identity = literal(embedder.identity)
      const vector = params.add(realArrayLiteral(queryVector))
      const keep =
        where === ''
          ? ''
          : ` AND EXISTS (SELECT 1 FROM ${t.passages} p${joinDocuments} WHERE p.publication_id = e.publication_id AND p.hash = e.hash${where})`
      const distance =
        schema.vectors === 'pgvector'
          ? request.exact === true
            ? `(((e.vector::vector(${d})) <=> (${vector}::real[])::vector(${d})) + 0)`
            : `((e.vector::vector(${d})) <=> (${vector}::real[])::vector(${d}))`
          : `(1 - (SELECT sum(a * b) FROM unnest(e.vector, ${vector}::real[]) AS x(a, b)) / nullif(sqrt((SELECT sum(a * a) FROM unnest(e.vector) AS x(a)) * (SELECT sum(b * b) FROM unnest(${vector}::real[]) AS x(b))), 0))`
      ctes.push(`vector_candidates AS (
        SELECT e.hash, ${distance}::float8 AS distance FROM ${t.embeddings} e
        WHERE e.publication_id = ${literal(this.publicationId)} AND e.identity = ${identity} AND e.dimensions = ${d}${keep}
        ORDER BY distance LIMIT ${window})`)
      ctes.push(`vector_ranked AS (
        SELECT p.passage_id, 1 - c.distance AS score, row_number() OVER (ORDER BY c.distance, p.passage_id COLLATE "C") AS rank
        FROM vector_candidates c JOIN ${t.passages} p ON p.publication_id = ${pub} AND p.hash = c.hash${joinDocuments}
        WHERE true${where}
        ORDER BY rank LIMIT ${window})`)
    } else
      ctes.push(
        `vector_ranked AS (SELECT NULL::text AS passage_id, NULL::float8 AS score, NULL::bigint AS rank WHERE false)`,
      )
    const tw = params.add(textWeight)
    const vw = params.add(vectorWeight)
    const kp = params.add(k)
    ctes.push(`fused AS (
      SELECT coalesce(t.passage_id, v.passage_id) AS passage_id, t.rank AS text_rank, t.score AS text_score,
        v.rank AS vector_rank, v.score AS vector_score,
        coalesce(${tw}::float8 / (${kp}::float8 + t.rank), 0) + coalesce(${vw}::float8 / (${kp}::float8 + v.rank), 0) AS fused
      FROM text_ranked t FULL OUTER JOIN vector_ranked v ON v.passage_id = t.passage_id)`)
    ctes.push(`top AS (
      SELECT f.*, p.document_id FROM fused f JOIN ${t.passages} p ON p.publication_id = ${pub} AND p.passage_id = f.passage_id
      ORDER BY f.fused DESC, least(f.text_rank, f.vector_rank), f.passage_id COLLATE "C" LIMIT ${fusedLimit})`)
    const sp = params.add(support)
    ctes.push(`supported AS (
      SELECT top.*, top.fused + ${sp}::float8 * coalesce((SELECT sum(o.fused) FROM (SELECT o.fused FROM top o
        WHERE o.document_id = top.document_id AND o.passage_id <> top.passage_id ORDER BY o.fused DESC LIMIT 3) o), 0) AS score
      FROM top)`)
    const sql = `WITH ${ctes.join(',\n')}
      SELECT s.passage_id, s.document_id, p.revision, p.number, p.title, p.heading_path, p.body, p.start_offset, p.end_offset,
        p.start_line, p.end_line, d.metadata, s.text_rank, s.text_score, s.vector_rank, s.vector_score, s.score
      FROM supported s
      JOIN ${t.passages} p ON p.publication_id = ${pub} AND p.passage_id = s.passage_id
      JOIN ${t.documents} d ON d.publication_id = ${pub} AND d.document_id = s.document_id
      ORDER BY s.score DESC, ${support > 0 ? '' : 'least(s.text_rank, s.vector_rank), '}s.passage_id COLLATE "C" LIMIT ${limit}`
    const rows = await runTransaction(
      this.store.pool,
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
      async (client) => {
        if (queryVector !== undefined && schema.vectors === 'pgvector') {
          await client.query(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(40, window))}`)
          if (where !== '') await client.query(`SET LOCAL hnsw.iterative_scan = strict_order`)
        }
        return (await client.query(sql, params.values)).rows as HitRow[]
      },
      (error) => error,
    )
    return await this.#hits(kit, rows, query, { textWeight, vectorWeight, k }, snippetChars)
  }

  async #hits(
    kit: SearchKitModule,
    rows: readonly HitRow[],
    query: string,
    weights: { textWeight: number; vectorWeight: number; k: number },
    snippetChars: number,
  ): Promise<HybridSearchHit<KnowledgePassage>[]> {
    const documents = rows.map((row): KnowledgePassage => {
      const metadata = row.metadata === null ? undefined : JSON.parse(row.metadata)
      return {
        id: row.passage_id,
        documentId: row.document_id,
        revision: row.revision,
        number: row.number,
        ...(row.title !== null ? { title: row.title } : {}),
        headingPath: JSON.parse(row.heading_path) as string[],
        text: row.body,
        start: row.start_offset,
        end: row.end_offset,
        startLine: row.start_line,
        endLine: row.end_line,
        ...(metadata !== undefined ? { metadata } : {}),
      }
    })
    // Terms, matches and snippets as the in-memory index computes them, over the returned passages only.
    const details = new Map<string, HybridSearchHit<KnowledgePassage>>()
    if (documents.some((_, i) => rows[i]!.text_rank !== null)) {
      const local = new kit.HybridSearch<KnowledgePassage>({
        indexRevision: 'agent-core/knowledge-postgres-hits',
        fields: ['title', 'headingPath', 'text'],
        boost: { title: this.#boost.title, headingPath: this.#boost.headingPath, text: this.#boost.text },
        analyzer: this.analyzer ?? kit.englishAnalyzer,
        embedText: embedTextOf,
        snippetField: 'text',
      })
      await local.addAll(documents.filter((_, i) => rows[i]!.text_rank !== null))
      for (const hit of await local.search({ query, limit: documents.length, snippetChars, mode: 'text' }))
        details.set(hit.id, hit)
    }
    return rows.map((row, i) => {
      const document = documents[i]!
      const contributions: HybridContribution[] = []
      if (row.text_rank !== null) {
        const rank = Number(row.text_rank)
        contributions.push({
          sourceId: 'text',
          rank,
          weight: weights.textWeight,
          contribution: weights.textWeight / (weights.k + rank),
          score: Number(row.text_score),
        })
      }
      if (row.vector_rank !== null) {
        const rank = Number(row.vector_rank)
        contributions.push({
          sourceId: 'vector',
          rank,
          weight: weights.vectorWeight,
          contribution: weights.vectorWeight / (weights.k + rank),
          score: Number(row.vector_score),
        })
      }
      const detail = details.get(row.passage_id)
      const snippet =
        snippetChars === 0 || document.text === ''
          ? undefined
          : (detail?.snippet ?? leadingSnippet(document.text, snippetChars))
      return {
        id: row.passage_id,
        score: Number(row.score),
        document,
        contributions,
        terms: detail?.terms ?? [],
        match: detail?.match ?? {},
        ...(snippet !== undefined ? { snippet } : {}),
      }
    })
  }
}
