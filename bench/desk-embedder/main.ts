/**
 * Indexing speed of the research desk's offline embedder (USE lite on TensorFlow.js's WASM SIMD
 * backend): passages per second on the calling thread (`threads: 0`, what the desk did before: one batch
 * of 32 after another on the main thread) against one worker thread per core (the desk's default), in
 * alternating rounds on the same Fiori passages, so that a busy machine slows both alike.
 *
 * The floor: the model is compute-bound (about 1.3 GFLOP per passage, every text padded or cut to 128
 * tokens), so the threads can at best multiply the single-thread rate by the cores the machine gives
 * them. The bench prints that ceiling (cores x the single-thread rate) beside the target of 3x; a native
 * TensorFlow backend (`@tensorflow/tfjs-node`) would be the way past it, but its install downloads
 * libtensorflow from storage.googleapis.com, which an offline npm install cannot reach.
 *
 * Run with `pnpm bench desk-embedder` (ROUNDS=3, PASSAGES=48 by default).
 */
import { availableParallelism, loadavg } from 'node:os'
import { createOfflineEmbedder } from '../../examples/research-desk/src/offline-embedder.js'
import { loadFiori } from '../retrieval/corpora.js'

const rounds = Number(process.env.ROUNDS ?? 3)
const count = Number(process.env.PASSAGES ?? 48)
const corpus = loadFiori()
const step = Math.floor(corpus.passages.length / count)
const texts = corpus.passages
  .filter((_, i) => i % step === 0)
  .slice(0, count)
  .map((p) => [p.title, p.headings.join(' > '), p.text].filter((part) => part.trim() !== '').join('\n\n'))

const single = createOfflineEmbedder({ threads: 0 })
const pooled = createOfflineEmbedder()
// Both load their models before timing starts.
await single.embed(['warm up'], {})
await pooled.embed(
  Array.from({ length: pooled.maxBatch }, (_, i) => `warm up ${i}`),
  {},
)

async function rate(embedder: typeof single): Promise<number> {
  const started = performance.now()
  for (let from = 0; from < texts.length; from += embedder.maxBatch)
    await embedder.embed(texts.slice(from, from + embedder.maxBatch), {})
  return texts.length / ((performance.now() - started) / 1000)
}

console.log(
  `${texts.length} Fiori passages, ${rounds} rounds; ${availableParallelism()} cores; worker threads: ${pooled.threads}`,
)
const ratios: number[] = []
for (let round = 1; round <= rounds; round++) {
  const before = await rate(single)
  const after = await rate(pooled)
  ratios.push(after / before)
  console.log(
    `round ${round}: calling thread ${before.toFixed(1)}/s, worker threads ${after.toFixed(1)}/s, ${(after / before).toFixed(2)}x  (load average ${loadavg()[0]!.toFixed(1)})`,
  )
}
await pooled.close()
const low = Math.min(...ratios)
const high = Math.max(...ratios)
console.log(
  `\nworker threads / calling thread: ${low.toFixed(2)}-${high.toFixed(2)}x   (target >= 3x; ceiling of a compute-bound model on ${pooled.threads} threads: ${pooled.threads}x)  ${low >= 3 ? 'met' : 'NOT met: under the ceiling of the cores'}`,
)
