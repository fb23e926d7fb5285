/**
 * The OpenAI-compatible embedder against MockGPT over real HTTP on loopback, plus a tiny misbehaving
 * server for answers MockGPT never gives (too few rows).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AbortedError, InvalidInputError, InvalidOutputError, TimeoutError } from '@agent-core/core'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { EmbeddingError, HybridSearch, openAICompatibleEmbedder } from './index.js'

let server: MockGPTServer
let liar: Server
let liarURL: string

beforeAll(async () => {
  server = await startMockGPTServer({ seed: 3, apiKey: 'sk-test' })
  // Answers every embeddings request with one row, whatever the input.
  liar = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      response.setHeader('content-type', 'application/json')
      response.end(
        JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [1, 0, 0] }] }),
      )
    })
  })
  await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve))
  liarURL = `http://127.0.0.1:${(liar.address() as AddressInfo).port}/v1`
})

afterAll(async () => {
  await server.close()
  await new Promise<void>((resolve, reject) => liar.close((error) => (error ? reject(error) : resolve())))
})

beforeEach(() => server.mock.reset())

function embedder(extra: Partial<Parameters<typeof openAICompatibleEmbedder>[0]> = {}) {
  return openAICompatibleEmbedder({
    baseURL: server.baseURL,
    apiKey: 'sk-test',
    model: 'text-embedding-3-small',
    dimensions: 1536,
    ...extra,
  })
}

async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run()
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('openAICompatibleEmbedder against MockGPT', () => {
  it('embeds in batches, in order, the same vectors as base64 or as floats', async () => {
    const texts = Array.from({ length: 7 }, (_, i) => `passage number ${i}`)
    const base64 = await embedder({ maxBatch: 3 }).embed(texts, {})
    const requests = server.mock.requests.filter((r) => r.path === '/v1/embeddings')
    expect(requests.map((r) => (r.body as { input: string[] }).input.length)).toEqual([3, 3, 1])
    expect((requests[0]!.body as { encoding_format: string }).encoding_format).toBe('base64')
    const floats = await embedder({ encoding: 'float' }).embed(texts, {})
    expect(base64).toHaveLength(7)
    for (let i = 0; i < 7; i++) {
      expect(base64[i]).toHaveLength(1536)
      expect(Array.from(base64[i]!)).toEqual(Array.from(floats[i]!))
    }
    // Different texts, different vectors; the same text, the same vector.
    expect(Array.from(base64[0]!)).not.toEqual(Array.from(base64[1]!))
    expect(Array.from((await embedder().embed(['passage number 0'], {}))[0]!)).toEqual(Array.from(base64[0]!))
    expect(await embedder().embed([], {})).toEqual([])
  })

  it('sends dimensions only when asked to, and refuses vectors of the wrong length', async () => {
    const short = embedder({ dimensions: 256, requestDimensions: true })
    expect((await short.embed(['x'], {}))[0]).toHaveLength(256)
    expect((server.mock.requests.at(-1)!.body as { dimensions?: number }).dimensions).toBe(256)
    const error = await rejection(() => embedder({ model: 'text-embedding-3-large' }).embed(['x'], {}))
    expect(InvalidOutputError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/3072 dimensions/)
  })

  it('refuses an answer with fewer rows than inputs', async () => {
    const lying = openAICompatibleEmbedder({ baseURL: liarURL, model: 'm', dimensions: 3 })
    expect(await lying.embed(['one'], {})).toHaveLength(1)
    const error = await rejection(() => lying.embed(['one', 'two'], {}))
    expect(InvalidOutputError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/1 vectors for 2 texts/)
  })

  it('turns HTTP errors, timeouts, cancellation and unreachable servers into typed errors', async () => {
    const unauthorized = await rejection(() => embedder({ apiKey: 'sk-wrong' }).embed(['x'], {}))
    expect(EmbeddingError.isInstance(unauthorized)).toBe(true)
    expect((unauthorized as EmbeddingError).details.status).toBe(401)
    expect((unauthorized as Error).message).toMatch(/API key/)

    server.mock.script({ faults: [{ type: 'status', status: 503 }], match: { endpoint: 'embeddings' } })
    const unavailable = await rejection(() => embedder().embed(['x'], {}))
    expect((unavailable as EmbeddingError).details.status).toBe(503)

    server.mock.script({
      faults: [{ type: 'slow-first-byte', delayMs: 500 }],
      match: { endpoint: 'embeddings' },
    })
    expect(TimeoutError.isInstance(await rejection(() => embedder({ timeoutMs: 50 }).embed(['x'], {})))).toBe(
      true,
    )

    server.mock.script({
      faults: [{ type: 'slow-first-byte', delayMs: 500 }],
      match: { endpoint: 'embeddings' },
    })
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('user cancelled')), 30)
    expect(
      AbortedError.isInstance(await rejection(() => embedder().embed(['x'], { signal: controller.signal }))),
    ).toBe(true)

    const nowhere = openAICompatibleEmbedder({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', dimensions: 3 })
    expect(EmbeddingError.isInstance(await rejection(() => nowhere.embed(['x'], {})))).toBe(true)
  })

  it('checks its options', () => {
    const field = (run: () => unknown) => {
      try {
        run()
      } catch (error) {
        expect(InvalidInputError.isInstance(error)).toBe(true)
        return (error as InvalidInputError).details.field
      }
      return undefined
    }
    const ok = { baseURL: 'http://127.0.0.1/v1', model: 'm', dimensions: 3 }
    expect(field(() => openAICompatibleEmbedder(null as never))).toBe('options')
    expect(field(() => openAICompatibleEmbedder({ ...ok, baseURL: 'not a url' }))).toBe('options.baseURL')
    expect(field(() => openAICompatibleEmbedder({ ...ok, dimensions: 0 }))).toBe('options.dimensions')
    expect(field(() => openAICompatibleEmbedder({ ...ok, maxBatch: 5000 }))).toBe('options.maxBatch')
    expect(field(() => openAICompatibleEmbedder({ ...ok, encoding: 'hex' as never }))).toBe(
      'options.encoding',
    )
    expect(field(() => openAICompatibleEmbedder({ ...ok, timeoutMs: 0 }))).toBe('options.timeoutMs')
    expect(openAICompatibleEmbedder(ok).identity).toBe('m@3')
  })
})

describe('HybridSearch over MockGPT embeddings', () => {
  it('indexes, searches and survives an embedding outage without changing', async () => {
    const index = new HybridSearch<{ id: string; text: string }>({
      indexRevision: 'r1',
      fields: ['text'],
      embedder: embedder({ maxBatch: 2 }),
    })
    await index.upsert([
      { id: 'a', text: 'Restore a snapshot from disk.' },
      { id: 'b', text: 'Filters answer true or false.' },
      { id: 'c', text: 'Vectors are normalized on upsert.' },
    ])
    expect(server.mock.requests.filter((r) => r.path === '/v1/embeddings')).toHaveLength(2)
    const [hit] = await index.search({ query: 'snapshot', limit: 1 })
    expect(hit!.id).toBe('a')
    expect(hit!.contributions.map((c) => c.sourceId)).toEqual(['text', 'vector'])

    const before = JSON.stringify(index.snapshot())
    server.mock.script({
      faults: [{ type: 'status', status: 500 }],
      match: { endpoint: 'embeddings' },
      times: 5,
    })
    const error = await rejection(() => index.upsert([{ id: 'a', text: 'Something else entirely.' }]))
    expect(EmbeddingError.isInstance(error)).toBe(true)
    expect(JSON.stringify(index.snapshot())).toBe(before)
  })
})
