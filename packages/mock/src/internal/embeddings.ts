import { describeValue } from '@agent-core/core'
import { countTokens } from '../tokenizer.js'
import { float32Base64 } from './base64.js'
import { hashString } from './hash.js'
import { badRequest } from './openai-error.js'
import { mulberry32 } from './prng.js'

function defaultDimensions(model: string): number {
  return model.includes('3-large') ? 3072 : 1536
}

/** A deterministic unit vector for `text` under `seed` and `model`; values are exact float32 numbers. */
export function embeddingVector(text: string, model: string, seed: number, dimensions: number): number[] {
  const random = mulberry32(hashString(`${model}\n${text}`, seed))
  const values = new Array<number>(dimensions)
  let norm = 0
  for (let i = 0; i < dimensions; i++) {
    const v = random() * 2 - 1
    values[i] = v
    norm += v * v
  }
  const scale = 1 / Math.sqrt(norm || 1)
  for (let i = 0; i < dimensions; i++) values[i] = Math.fround((values[i] as number) * scale)
  return values
}

/** Validates a `POST /v1/embeddings` body and answers it; returns the JSON text and the token count. */
export function embeddingsResponse(
  body: Record<string, unknown>,
  seed: number,
): { text: string; tokens: number } {
  const model = body.model
  if (typeof model !== 'string' || model === '')
    throw badRequest('you must provide a model parameter', 'model', 'missing_required_parameter')
  const raw = body.input
  let inputs: { key: string; tokens: number }[]
  const isTokens = (v: unknown): v is number[] =>
    Array.isArray(v) && v.length > 0 && v.every((n) => Number.isSafeInteger(n) && n >= 0)
  if (typeof raw === 'string') inputs = [{ key: raw, tokens: countTokens(raw) }]
  else if (isTokens(raw)) inputs = [{ key: JSON.stringify(raw), tokens: raw.length }]
  else if (Array.isArray(raw) && raw.length > 0 && raw.every((s) => typeof s === 'string'))
    inputs = (raw as string[]).map((s) => ({ key: s, tokens: countTokens(s) }))
  else if (Array.isArray(raw) && raw.length > 0 && raw.every(isTokens))
    inputs = (raw as number[][]).map((t) => ({ key: JSON.stringify(t), tokens: t.length }))
  else {
    throw badRequest(
      `'input' must be a string, an array of strings, or token arrays, non-empty, but got ${describeValue(raw)}.`,
      'input',
    )
  }
  if (inputs.some((i) => i.key === '')) throw badRequest("'input' must not contain empty strings.", 'input')
  if (inputs.length > 2048)
    throw badRequest(`'input' may hold at most 2048 items, but has ${inputs.length}.`, 'input')
  const max = defaultDimensions(model)
  let dimensions = max
  if (body.dimensions !== undefined && body.dimensions !== null) {
    const d = body.dimensions
    if (typeof d !== 'number' || !Number.isSafeInteger(d) || d < 1 || d > max) {
      throw badRequest(
        `'dimensions' must be an integer from 1 to ${max} for ${model}, but got ${describeValue(d)}.`,
        'dimensions',
      )
    }
    dimensions = d
  }
  const format = body.encoding_format ?? 'float'
  if (format !== 'float' && format !== 'base64') {
    throw badRequest(
      `'encoding_format' must be "float" or "base64", but got ${describeValue(format)}.`,
      'encoding_format',
    )
  }
  let tokens = 0
  const data = inputs.map((input, index) => {
    tokens += input.tokens
    const vector = embeddingVector(input.key, model, seed, dimensions)
    return { object: 'embedding', index, embedding: format === 'base64' ? float32Base64(vector) : vector }
  })
  return {
    text: JSON.stringify({
      object: 'list',
      data,
      model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    }),
    tokens,
  }
}
