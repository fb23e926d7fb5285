/**
 * Calling the App's embedder and checking its answer before anything is written: every vector becomes a
 * Float32Array of the embedder's dimensions, finite and not all zero (the float32 value is what the store
 * keeps and the index reads, so both see the same vector).
 */
import { AgentCoreError, describeValue, raceSignal, refuseField, throwIfAborted } from '@agent-core/core'
import type { Embedder } from '@agent-core/kits/search'
import { loadedSearchKit, loadSearchKit } from './search-kit.js'

/** Converts one embedder answer to float32, or throws InvalidOutputError naming what is wrong. */
export function toFloat32(value: unknown, dimensions: number, where: string, hook: string): Float32Array {
  const refuse = (problem: string): never => {
    refuseField('output', where, problem, value, { details: { hook, returned: describeValue(value) } })
  }
  if (!Array.isArray(value) && !(value instanceof Float32Array) && !(value instanceof Float64Array))
    refuse(
      `must be an array, Float32Array or Float64Array of ${dimensions} numbers, but is ${describeValue(value)}`,
    )
  const source = value as ArrayLike<unknown>
  if (source.length !== dimensions)
    refuse(`has ${source.length} dimensions, but the embedder declares ${dimensions}`)
  const out = new Float32Array(dimensions)
  let nonZero = false
  for (let i = 0; i < dimensions; i++) {
    const x = source[i]
    if (typeof x !== 'number') refuse(`has ${describeValue(x)} at dimension ${i}, not a number`)
    const f = Math.fround(x as number)
    if (!Number.isFinite(f)) refuse(`has ${String(x)} at dimension ${i}, which is not a finite float32`)
    if (f !== 0) nonZero = true
    out[i] = f
  }
  if (!nonZero) refuse('is all zeros, which has no direction')
  return out
}

/**
 * Embeds `texts` in one call and checks the answer. A plain error from the embedder becomes an
 * `EmbeddingError` (of `@agent-core/kits/search`, imported then); agent-core errors (AbortedError, TimeoutError, ...) pass through.
 */
export async function embedTexts(
  embedder: Embedder,
  texts: readonly string[],
  signal: AbortSignal,
): Promise<Float32Array[]> {
  throwIfAborted(signal, `before embedding ${texts.length} texts`)
  let answer: unknown
  try {
    answer = await raceSignal(
      Promise.resolve().then(() => embedder.embed(texts, { signal })),
      signal,
      `embedding ${texts.length} texts`,
    )
  } catch (error) {
    if (AgentCoreError.isInstance(error)) throw error
    const { EmbeddingError } = loadedSearchKit() ?? (await loadSearchKit())
    throw new EmbeddingError(
      `The embedder "${embedder.identity}" failed on ${texts.length} texts: ${error instanceof Error ? error.message : describeValue(error)}. Nothing was published; retry once the model is reachable.`,
      { cause: error, details: { identity: embedder.identity, texts: texts.length } },
    )
  }
  if (!Array.isArray(answer) || answer.length !== texts.length) {
    refuseField(
      'output',
      'embedder.embed',
      `returned ${describeValue(answer)} for ${texts.length} texts; it must return one vector per text, in order`,
      answer,
      {
        prefix: `The embedder "${embedder.identity}": `,
        details: { hook: 'embedder.embed', returned: describeValue(answer) },
      },
    )
  }
  return answer.map((vector, i) =>
    toFloat32(vector, embedder.dimensions, `embedder.embed result[${i}]`, 'embedder.embed'),
  )
}
