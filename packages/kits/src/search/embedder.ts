import {
  AgentCoreError,
  abortedError,
  assertNonEmptyString,
  assertObject,
  assertSafeInteger,
  describeValue,
  InvalidInputError,
  InvalidOutputError,
  refuseField,
  TimeoutError,
} from '@agent-core/core'
import { base64ToFloat32 } from './internal/float32-base64.js'
import { EmbeddingError } from './search-errors.js'
import type { VectorInput } from './vector-input.js'

/**
 * Options of one {@link Embedder.embed} call.
 *
 * @example
 * ```ts
 * import type { EmbedOptions } from '@agent-core/kits/search'
 * const options: EmbedOptions = { signal: AbortSignal.timeout(10_000) }
 * ```
 */
export interface EmbedOptions {
  /** Cancels the call; an embedder should stop its I/O and reject. */
  readonly signal?: AbortSignal
}

/**
 * The App's embedding model, as a port: it turns a batch of texts into one vector each. The index calls
 * it with at most `maxBatch` texts at a time, never with an empty text, and checks every answer (one
 * vector per text, in order, each of `dimensions` finite numbers).
 *
 * @example
 * ```ts
 * import type { Embedder } from '@agent-core/kits/search'
 * // A toy embedder: letter frequencies of a-z.
 * const letters: Embedder = {
 *   identity: 'letters-v1',
 *   dimensions: 26,
 *   async embed(texts) {
 *     return texts.map((text) => {
 *       const vector = new Array(26).fill(0.001)
 *       for (const c of text.toLowerCase()) if (c >= 'a' && c <= 'z') vector[c.charCodeAt(0) - 97] += 1
 *       return vector
 *     })
 *   },
 * }
 * ```
 */
export interface Embedder {
  /**
   * Names the embedding space: the model and any setting that changes its vectors. It becomes the
   * identity of the vector index, so a snapshot made with another model is refused.
   */
  readonly identity: string
  /** How many numbers each vector has. */
  readonly dimensions: number
  /** The most texts one call may carry (default 64). */
  readonly maxBatch?: number
  /** One vector per text, in the same order. */
  embed(texts: readonly string[], options: EmbedOptions): Promise<readonly VectorInput[]>
}

/**
 * Options of {@link openAICompatibleEmbedder}.
 *
 * @example
 * ```ts
 * import type { OpenAICompatibleEmbedderOptions } from '@agent-core/kits/search'
 * const options: OpenAICompatibleEmbedderOptions = {
 *   baseURL: 'https://api.openai.com/v1',
 *   apiKey: process.env.OPENAI_API_KEY,
 *   model: 'text-embedding-3-small',
 *   dimensions: 1536,
 * }
 * ```
 */
export interface OpenAICompatibleEmbedderOptions {
  /** The API root that `/embeddings` is appended to, e.g. `https://api.openai.com/v1`. */
  readonly baseURL: string
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  readonly apiKey?: string | undefined
  /** The model name the endpoint expects. */
  readonly model: string
  /** How many numbers the model's vectors have; an answer of another length is refused. */
  readonly dimensions: number
  /**
   * Also send `dimensions` in the request, for models that shorten their vectors on request (OpenAI's
   * `text-embedding-3-*`). Default false: many compatible servers reject the field.
   */
  readonly requestDimensions?: boolean
  /** The identity of the embedding space. Default `<model>@<dimensions>`. */
  readonly identity?: string
  /** The most texts per request (default 128; OpenAI accepts up to 2048). */
  readonly maxBatch?: number
  /**
   * How vectors travel: `"base64"` (default, the official SDKs' choice: about a third of the JSON, exact
   * float32) or `"float"` (JSON numbers). An answer in the other form is accepted too.
   */
  readonly encoding?: 'base64' | 'float'
  /** Milliseconds one request may take (1 to 2147483647); default 60000. */
  readonly timeoutMs?: number
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>
  /** The fetch to use (default the global one), e.g. one with a proxy agent. */
  readonly fetch?: typeof fetch
}

/**
 * An {@link Embedder} over any OpenAI-compatible `POST /embeddings` endpoint (OpenAI, Azure OpenAI,
 * Ollama, vLLM, LM Studio, MockGPT, ...). It sends batches of up to `maxBatch` texts and refuses an
 * answer that has fewer or more rows than inputs, rows out of order or twice, or vectors of the wrong
 * length.
 *
 * @throws InvalidInputError on bad options
 * @example
 * ```ts
 * import { HybridSearch, openAICompatibleEmbedder } from '@agent-core/kits/search'
 * const embedder = openAICompatibleEmbedder({
 *   baseURL: 'http://127.0.0.1:8080/v1',
 *   model: 'text-embedding-3-small',
 *   dimensions: 1536,
 * })
 * const index = new HybridSearch<{ id: string; text: string }>({ indexRevision: 'docs-v1', fields: ['text'], embedder })
 * ```
 */
export function openAICompatibleEmbedder(options: OpenAICompatibleEmbedderOptions): Embedder {
  assertObject(options, 'options')
  assertNonEmptyString(options.baseURL, 'options.baseURL')
  let endpoint: URL
  try {
    endpoint = new URL(`${options.baseURL.replace(/\/+$/, '')}/embeddings`)
  } catch (error) {
    throw new InvalidInputError(
      `openAICompatibleEmbedder options.baseURL ${describeValue(options.baseURL)} is not a URL. Pass the API root, e.g. "https://api.openai.com/v1".`,
      { cause: error, details: { field: 'options.baseURL', received: describeValue(options.baseURL) } },
    )
  }
  assertNonEmptyString(options.model, 'options.model')
  assertSafeInteger(options.dimensions, 'options.dimensions', { min: 1, max: 65_536 })
  if (options.apiKey !== undefined) assertNonEmptyString(options.apiKey, 'options.apiKey')
  const maxBatch = options.maxBatch ?? 128
  assertSafeInteger(maxBatch, 'options.maxBatch', { min: 1, max: 2048 })
  const timeoutMs = options.timeoutMs ?? 60_000
  assertSafeInteger(timeoutMs, 'options.timeoutMs', { min: 1, max: 2_147_483_647 })
  const encoding = options.encoding ?? 'base64'
  if (encoding !== 'base64' && encoding !== 'float') {
    refuseField(
      'input',
      'options.encoding',
      `must be "base64" or "float", but got ${describeValue(encoding)}`,
      encoding,
      { prefix: 'openAICompatibleEmbedder ' },
    )
  }
  const identity = options.identity ?? `${options.model}@${options.dimensions}`
  assertNonEmptyString(identity, 'options.identity')
  const fetchImpl = options.fetch ?? globalThis.fetch
  if (typeof fetchImpl !== 'function') {
    refuseField(
      'input',
      'options.fetch',
      `must be a fetch function where the runtime has no global fetch, but got ${describeValue(fetchImpl)}`,
      fetchImpl,
      { prefix: 'openAICompatibleEmbedder ' },
    )
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.headers ?? {}) }
  if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`
  const { model, dimensions } = options
  const requestDimensions = options.requestDimensions === true

  async function embed(texts: readonly string[], embedOptions: EmbedOptions = {}): Promise<Float32Array[]> {
    if (!Array.isArray(texts) || !texts.every((text) => typeof text === 'string' && text !== '')) {
      refuseField(
        'input',
        'texts',
        `must be an array of non-empty strings, but got ${describeValue(texts)}`,
        texts,
        {
          prefix: 'The embedder: ',
        },
      )
    }
    const out: Float32Array[] = []
    for (let from = 0; from < texts.length; from += maxBatch) {
      out.push(...(await request(texts.slice(from, from + maxBatch), embedOptions.signal)))
    }
    return out
  }

  async function request(batch: readonly string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    if (signal?.aborted) throw abortedError(signal, 'embeddings request: before sending')
    const timeout = AbortSignal.timeout(timeoutMs)
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout
    const body = JSON.stringify({
      model,
      input: batch,
      encoding_format: encoding,
      ...(requestDimensions ? { dimensions } : {}),
    })
    let response: Response
    let payload: unknown
    try {
      response = await fetchImpl(endpoint, { method: 'POST', headers, body, signal: combined })
      const text = await response.text()
      if (!response.ok) {
        throw new EmbeddingError(
          `The embeddings endpoint ${endpoint.href} answered ${response.status} ${response.statusText}: ${errorMessage(text)}. ${hint(response.status)}`,
          { details: { identity, texts: batch.length, status: response.status } },
        )
      }
      try {
        payload = JSON.parse(text)
      } catch (error) {
        throw new InvalidOutputError(
          `The embeddings endpoint ${endpoint.href} answered something that is not JSON (${describeValue(text)}).`,
          { cause: error, details: { hook: 'embeddings response', received: describeValue(text) } },
        )
      }
    } catch (error) {
      if (AgentCoreError.isInstance(error)) throw error
      if (signal?.aborted) throw abortedError(signal, 'embeddings request: while waiting for the answer')
      if (timeout.aborted) {
        throw new TimeoutError(
          `The embeddings request to ${endpoint.href} took longer than ${timeoutMs} ms.`,
          {
            cause: error,
            details: { timeoutMs, what: `embeddings request (${batch.length} texts)` },
          },
        )
      }
      throw new EmbeddingError(
        `Could not reach the embeddings endpoint ${endpoint.href}: ${(error as Error)?.message ?? String(error)}. Check baseURL and that the server is running.`,
        { cause: error, details: { identity, texts: batch.length } },
      )
    }
    return readVectors(payload, batch.length, dimensions, endpoint.href)
  }

  return Object.freeze({ identity, dimensions, maxBatch, embed })
}

function errorMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } }
    if (typeof parsed.error?.message === 'string') return parsed.error.message.slice(0, 300)
  } catch {
    // Not JSON: show the start of the text.
  }
  return text.slice(0, 300) || '(no body)'
}

function hint(status: number): string {
  if (status === 401 || status === 403) return 'Check the API key.'
  if (status === 404)
    return 'Check baseURL (it should end where /embeddings starts, e.g. ".../v1") and the model name.'
  if (status === 429) return 'The endpoint is rate limiting: retry later or send smaller batches.'
  if (status >= 500) return 'The endpoint failed: retry later.'
  return 'Check the request options (model, dimensions, encoding).'
}

/** The vectors of an embeddings response, in input order, each checked. */
function readVectors(payload: unknown, count: number, dimensions: number, url: string): Float32Array[] {
  const refuse = (problem: string, field: string, value?: unknown): never => {
    throw new InvalidOutputError(`The embeddings endpoint ${url} ${problem}`, {
      details: {
        hook: 'embeddings response',
        field,
        ...(value === undefined ? {} : { received: describeValue(value) }),
      },
    })
  }
  const data = (payload as { data?: unknown } | null)?.data
  if (!Array.isArray(data)) return refuse('answered without a data array.', 'data', data)
  if (data.length !== count)
    return refuse(
      `answered ${data.length} vectors for ${count} texts. Every text needs its own row.`,
      'data',
      data,
    )
  const out: (Float32Array | undefined)[] = new Array(count)
  for (let row = 0; row < data.length; row++) {
    const item = data[row] as { index?: unknown; embedding?: unknown } | null
    const index = item?.index ?? row
    if (
      typeof index !== 'number' ||
      !Number.isSafeInteger(index) ||
      index < 0 ||
      index >= count ||
      out[index]
    )
      return refuse(
        `answered row ${row} with the index ${describeValue(index)}, which is out of range or repeated.`,
        `data[${row}].index`,
        index,
      )
    const embedding = item?.embedding
    let vector: Float32Array | undefined
    if (typeof embedding === 'string') vector = base64ToFloat32(embedding)?.slice()
    else if (Array.isArray(embedding) && embedding.every((x) => typeof x === 'number' && Number.isFinite(x)))
      vector = Float32Array.from(embedding as number[])
    if (vector === undefined)
      return refuse(`answered row ${row} without a vector of numbers.`, `data[${row}].embedding`, embedding)
    if (vector.length !== dimensions)
      return refuse(
        `answered a vector of ${vector.length} dimensions for text ${index}, but this embedder expects ${dimensions}. Check the model and the dimensions option.`,
        `data[${row}].embedding`,
        embedding,
      )
    out[index] = vector
  }
  return out as Float32Array[]
}
