/**
 * Indexing speed of the research desk's offline embedder (USE lite on TensorFlow.js's WASM SIMD
 * backend, bundled by `@energetic-ai/core`), old against new in alternating rounds on the same Fiori
 * passages, so that a busy machine slows both alike:
 * - old: what the desk did before, the calling thread (`threads: 0`) in calls of 32 texts in corpus order;
 * - sorted, one thread: the calling thread in the desk's calls of `maxBatch` texts, which the embedder
 *   sorts by length and cuts into model calls of similar lengths (the model pads each of its calls to the
 *   longest text: this is the per-core gain);
 * - new: the desk's default, the same sorting in one worker thread per core.
 *
 * Each is reported in passages per wall second and per CPU second (all threads of the process, so the
 * per-core throughput, which a busy machine does not distort), and the ratios new/old of each.
 *
 * Run with `pnpm bench desk-embedder` (ROUNDS=2, PASSAGES=256 by default).
 */
import { availableParallelism, loadavg } from 'node:os'
import { createOfflineEmbedder } from '../../examples/research-desk/src/offline-embedder.js'
import { loadFiori } from '../retrieval/corpora.js'

const rounds = Number(process.env.ROUNDS ?? 2)
const count = Number(process.env.PASSAGES ?? 256)
const corpus = loadFiori()
const step = Math.max(1, Math.floor(corpus.passages.length / count))
const texts = corpus.passages
  .filter((_, i) => i % step === 0)
  .slice(0, count)
  .map((p) => [p.title, p.headings.join(' > '), p.text].filter((part) => part.trim() !== '').join('\n\n'))

const single = createOfflineEmbedder({ threads: 0 })
const pooled = createOfflineEmbedder()
// Both load their models before timing starts.
await single.embed(['warm up'], {})
await pooled.embed(
  Array.from({ length: 32 * pooled.threads }, (_, i) => `warm up ${i}`),
  {},
)

interface Rate {
  wall: number
  cpu: number
}

async function rate(embedder: typeof single, perCall: number): Promise<Rate> {
  const started = performance.now()
  const cpu = process.cpuUsage()
  for (let from = 0; from < texts.length; from += perCall)
    await embedder.embed(texts.slice(from, from + perCall), {})
  const used = process.cpuUsage(cpu)
  return {
    wall: texts.length / ((performance.now() - started) / 1000),
    cpu: texts.length / ((used.user + used.system) / 1e6),
  }
}

const show = (r: Rate) => `${r.wall.toFixed(1)}/s (${r.cpu.toFixed(1)} per CPU s)`
console.log(
  `${texts.length} Fiori passages, ${rounds} rounds; ${availableParallelism()} cores; worker threads: ${pooled.threads}; load average ${loadavg()[0]!.toFixed(1)}`,
)
const wallRatios: number[] = []
const cpuRatios: number[] = []
for (let round = 1; round <= rounds; round++) {
  const old = await rate(single, 32)
  const sorted = await rate(single, single.maxBatch)
  const now = await rate(pooled, pooled.maxBatch)
  wallRatios.push(now.wall / old.wall)
  cpuRatios.push(now.cpu / old.cpu)
  console.log(
    `round ${round}: old ${show(old)}, sorted one thread ${show(sorted)}, new ${show(now)}; new/old ${(now.wall / old.wall).toFixed(2)}x wall, ${(now.cpu / old.cpu).toFixed(2)}x per core  (load average ${loadavg()[0]!.toFixed(1)})`,
  )
}
await pooled.close()
const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}x`
console.log(
  `\nnew/old passages per second: ${range(wallRatios)} wall, ${range(cpuRatios)} per core   (target >= 3x wall)  ${Math.min(...wallRatios) >= 3 ? 'met' : 'NOT met in every round'}`,
)
