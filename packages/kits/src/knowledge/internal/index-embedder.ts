/**
 * The embedder the publication's HybridSearch sees. The publication embeds passages itself (so it can
 * write their vectors to the store before the index changes, batch them and report progress); while it
 * applies a batch to the index it stages those vectors here, keyed by the embedded text, and the index
 * reads them instead of calling the model. Anything not staged (a search query) goes to the App's
 * embedder unchanged.
 */
import type { Embedder, EmbedOptions, VectorInput } from '@agent-core/kits/search'

export class StagedEmbedder implements Embedder {
  readonly identity: string
  readonly dimensions: number
  readonly maxBatch: number
  readonly #model: Embedder
  #staged = new Map<string, Float32Array>()

  constructor(model: Embedder) {
    this.#model = model
    this.identity = model.identity
    this.dimensions = model.dimensions
    this.maxBatch = model.maxBatch ?? 64
  }

  /** Serves `vectors` (embedded text to vector) to the index until the returned function is called. */
  stage(vectors: Map<string, Float32Array>): () => void {
    this.#staged = vectors
    return () => {
      if (this.#staged === vectors) this.#staged = new Map()
    }
  }

  async embed(texts: readonly string[], options: EmbedOptions): Promise<readonly VectorInput[]> {
    const staged = this.#staged
    const out: (Float32Array | undefined)[] = texts.map((text) => staged.get(text))
    const missing: number[] = []
    for (let i = 0; i < out.length; i++) if (out[i] === undefined) missing.push(i)
    if (missing.length === 0) return out as Float32Array[]
    if (missing.length === texts.length) return this.#model.embed(texts, options)
    const answer = await this.#model.embed(
      missing.map((i) => texts[i] as string),
      options,
    )
    // The index checks the answer's length and every vector; a short answer leaves holes it refuses.
    const merged: unknown[] = [...out]
    for (let j = 0; j < missing.length; j++) merged[missing[j] as number] = answer[j]
    return merged as VectorInput[]
  }
}
