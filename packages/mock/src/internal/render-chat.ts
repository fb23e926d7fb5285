import { tokenize } from './../tokenizer.js'
import { type Answer, TextAnswer } from './answer.js'
import { FrameWriter, type PackedFrames } from './frame-writer.js'
import type { NormalizedRequest } from './normalize.js'
import type { PromptCacheUsage } from './prompt-cache.js'

export interface RenderMeta {
  readonly id: string
  /** Unix seconds. */
  readonly created: number
  readonly model: string
  /** Messages API: what the request read from and wrote to the simulated prompt cache. */
  readonly cache?: PromptCacheUsage | undefined
}

const FINGERPRINT = 'fp_mockgpt'

function chatUsage(request: NormalizedRequest, answer: Answer) {
  return {
    prompt_tokens: request.inputTokens,
    completion_tokens: answer.outputTokens,
    total_tokens: request.inputTokens + answer.outputTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: answer.reasoningPieces.length,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  }
}

/**
 * The `chat.completion` body after `"created":<n>,`: the JSON text of `{ model, choices, usage,
 * service_tier, system_fingerprint }` without its opening brace. Written as a template (only strings go
 * through `JSON.stringify`): every distinct answer renders one, and serializing the object tree took six
 * times as long. The integers print as JSON prints them; a property test compares this with the object form.
 */
function chatBodyTail(model: string, inputTokens: number, answer: Answer): string {
  const calls = answer.toolCalls
  const content = calls.length && answer.text === '' ? 'null' : JSON.stringify(answer.text)
  // As OpenAI-compatible servers with reasoning models send it (DeepSeek, vLLM, ...).
  const reasoning = answer.reasoning ? `,"reasoning_content":${JSON.stringify(answer.reasoning)}` : ''
  const toolCalls = calls.length
    ? `,"tool_calls":${JSON.stringify(
        calls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        })),
      )}`
    : ''
  const output = answer.outputTokens
  return (
    `"model":${JSON.stringify(model)},"choices":[{"index":0,"message":{"role":"assistant","content":${content},"refusal":null,"annotations":[]${reasoning}${toolCalls}},"logprobs":null,"finish_reason":${JSON.stringify(answer.finishReason)}}],` +
    `"usage":{"prompt_tokens":${inputTokens},"completion_tokens":${output},"total_tokens":${inputTokens + output},"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},` +
    `"completion_tokens_details":{"reasoning_tokens":${answer.reasoningPieces.length},"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},` +
    `"service_tier":"default","system_fingerprint":"${FINGERPRINT}"}`
  )
}

/** The `chat.completion` JSON body. */
export function chatCompletionBody(request: NormalizedRequest, answer: Answer, meta: RenderMeta): string {
  // Identical answers (the default responder caches them) render once per model and prompt size, and each
  // response only prepends its id: at most 8 tails per answer, found by comparing model and prompt size
  // (no key string to build and hash per response).
  const memo = answer instanceof TextAnswer ? answer : undefined
  let tail = memo?.chatTails?.find((t) => t.model === meta.model && t.inputTokens === request.inputTokens)
  if (tail === undefined) {
    tail = {
      model: meta.model,
      inputTokens: request.inputTokens,
      text: chatBodyTail(meta.model, request.inputTokens, answer),
    }
    // Kept from an answer's second rendering on: most answers render once, and keeping their tails only
    // gave the collector more to copy.
    if (memo && memo.chatRenders++ > 0) {
      memo.chatTails ??= []
      if (memo.chatTails.length >= 8) memo.chatTails.shift()
      memo.chatTails.push(tail)
    }
  }
  return `{"id":${JSON.stringify(meta.id)},"object":"chat.completion","created":${meta.created},${tail.text}`
}

/** Splits tool-call arguments into fragments of up to three tokens, as models stream them. */
export function argumentFragments(args: string): string[] {
  const tokens = tokenize(args)
  const out: string[] = []
  for (let i = 0; i < tokens.length; i += 3) out.push(tokens.slice(i, i + 3).join(''))
  return out
}

const DONE = FrameWriter.encode('data: [DONE]\n\n')

/**
 * The `chat.completion.chunk` stream: a role chunk, content deltas (one token each), tool-call deltas by
 * `index` (id and name on the first fragment, arguments in fragments, parallel calls interleaved), the
 * finish chunk, the usage chunk (`choices: []`) when asked, then `[DONE]`.
 */
export function chatCompletionSteps(
  request: NormalizedRequest,
  answer: Answer,
  meta: RenderMeta,
): PackedFrames {
  // A long text stream is rendered once into a template; each request copies it and writes its own id and
  // timestamp into it (they have fixed widths), instead of encoding every frame again.
  if (
    answer.toolCalls.length === 0 &&
    answer.pieces.length >= TEMPLATE_MIN_PIECES &&
    meta.id.length === ID_PLACEHOLDER.length &&
    String(meta.created).length === CREATED_PLACEHOLDER.length
  ) {
    return fromTemplate(request, answer, meta)
  }
  return renderChatStream(request, answer, meta)
}

const TEMPLATE_MIN_PIECES = 64
const ID_PLACEHOLDER = `chatcmpl-${'Z'.repeat(29)}`
const CREATED_PLACEHOLDER = '1111111111'

interface Template {
  readonly frames: PackedFrames
  /** Where each frame's id (after `chatcmpl-`) and `created` digits start. */
  readonly idOffsets: readonly number[]
  readonly createdOffsets: readonly number[]
  /** Patched copies the transport released, ready to be patched again (no allocation, no full copy). */
  readonly pool: PatchedCopy[]
}

/** A copy of a template's bytes and the id (after `chatcmpl-`) and `created` digits written into it. */
interface PatchedCopy {
  readonly bytes: Uint8Array
  id: string
  created: string
}

/** Released copies kept per template. */
const POOL_SIZE = 16

/** Templates per token list (long texts keep one token list, see piecesOf), then per rendering key. */
const templates = new WeakMap<readonly string[], Map<string, Template>>()

function offsetsOf(bytes: Uint8Array, needle: string): number[] {
  const pattern = FrameWriter.encode(needle)
  const out: number[] = []
  const first = pattern[0] as number
  outer: for (
    let i = bytes.indexOf(first);
    i >= 0 && i <= bytes.length - pattern.length;
    i = bytes.indexOf(first, i + 1)
  ) {
    for (let j = 1; j < pattern.length; j++) if (bytes[i + j] !== pattern[j]) continue outer
    out.push(i + pattern.length)
  }
  return out
}

function fromTemplate(request: NormalizedRequest, answer: Answer, meta: RenderMeta): PackedFrames {
  let byKey = templates.get(answer.pieces)
  if (!byKey) {
    byKey = new Map()
    templates.set(answer.pieces, byKey)
  }
  const key = `${meta.model}\u0000${request.includeUsage}\u0000${request.inputTokens}\u0000${answer.finishReason}\u0000${answer.reasoning}`
  let template = byKey.get(key)
  if (!template) {
    const frames = renderChatStream(request, answer, {
      ...meta,
      id: ID_PLACEHOLDER,
      created: Number(CREATED_PLACEHOLDER),
    })
    const bytes = frames.whole()
    template = {
      frames,
      idOffsets: offsetsOf(bytes, `"id":"chatcmpl-`),
      createdOffsets: offsetsOf(bytes, '"created":'),
      pool: [],
    }
    if (byKey.size >= 8) byKey.delete(byKey.keys().next().value as string)
    byKey.set(key, template)
  }
  const pool = template.pool
  const copy = pool.pop() ?? {
    bytes: template.frames.whole().slice(),
    id: ID_PLACEHOLDER.slice('chatcmpl-'.length),
    created: CREATED_PLACEHOLDER,
  }
  const bytes = copy.bytes
  // A field that already holds the wanted text is left as it is (the same bytes either way): `created`
  // changes once a second, so most copies only get a new id.
  const id = meta.id.slice('chatcmpl-'.length)
  if (copy.id !== id) {
    const encoded = FrameWriter.encode(id)
    for (const at of template.idOffsets) bytes.set(encoded, at)
    copy.id = id
  }
  const created = String(meta.created)
  if (copy.created !== created) {
    const encoded = FrameWriter.encode(created)
    for (const at of template.createdOffsets) bytes.set(encoded, at)
    copy.created = created
  }
  return template.frames.withBytes(bytes, () => {
    if (pool.length < POOL_SIZE) pool.push(copy)
  })
}

function renderChatStream(request: NormalizedRequest, answer: Answer, meta: RenderMeta): PackedFrames {
  const usageTail = request.includeUsage ? ',"usage":null' : ''
  const headText = `data: {"id":"${meta.id}","object":"chat.completion.chunk","created":${meta.created},"model":${JSON.stringify(meta.model)},"service_tier":"default","system_fingerprint":"${FINGERPRINT}","choices":[{"index":0,"delta":`
  const head = FrameWriter.encode(headText)
  const contentHead = FrameWriter.encode(`${headText}{"content":`)
  const open = FrameWriter.encode(`,"logprobs":null,"finish_reason":null}]${usageTail}}\n\n`)
  const contentClose = FrameWriter.encode(`},"logprobs":null,"finish_reason":null}]${usageTail}}\n\n`)
  let argumentBytes = 0
  for (const call of answer.toolCalls) argumentBytes += call.arguments.length * 4
  const w = new FrameWriter(
    (answer.pieces.length + answer.reasoningPieces.length + 8) *
      (contentHead.length + contentClose.length + 16) +
      argumentBytes * 40,
  )
  const chunk = (delta: string) => w.bytes(head).text(delta).bytes(open).end()
  chunk('{"role":"assistant","content":"","refusal":null}')
  if (answer.reasoningPieces.length) {
    const reasoningHead = FrameWriter.encode(`${headText}{"reasoning_content":`)
    for (const piece of answer.reasoningPieces)
      w.bytes(reasoningHead).text(JSON.stringify(piece)).bytes(contentClose).end()
  }
  for (const piece of answer.pieces)
    w.bytes(contentHead).text(JSON.stringify(piece)).bytes(contentClose).end()
  const fragments = answer.toolCalls.map((c) => argumentFragments(c.arguments))
  answer.toolCalls.forEach((call, index) => {
    chunk(
      `{"tool_calls":[${JSON.stringify({ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } })}]}`,
    )
  })
  const rounds = Math.max(0, ...fragments.map((f) => f.length))
  for (let r = 0; r < rounds; r++) {
    fragments.forEach((list, index) => {
      const piece = list[r]
      if (piece !== undefined)
        chunk(`{"tool_calls":[{"index":${index},"function":{"arguments":${JSON.stringify(piece)}}}]}`)
    })
  }
  w.bytes(head)
    .text(`{},"logprobs":null,"finish_reason":"${answer.finishReason}"}]${usageTail}}\n\n`)
    .end(true)
  if (request.includeUsage) {
    const usage = {
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      service_tier: 'default',
      system_fingerprint: FINGERPRINT,
      choices: [],
      usage: chatUsage(request, answer),
    }
    w.text(`data: ${JSON.stringify(usage)}\n\n`).end()
  }
  w.bytes(DONE).end()
  return w.frames()
}
