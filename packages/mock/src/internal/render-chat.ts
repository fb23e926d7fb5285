import { tokenize } from './../tokenizer.js'
import type { Answer } from './answer.js'
import { FrameWriter, type PackedFrames } from './frame-writer.js'
import type { NormalizedRequest } from './normalize.js'

export interface RenderMeta {
  readonly id: string
  /** Unix seconds. */
  readonly created: number
  readonly model: string
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

/** The `chat.completion` JSON body. */
export function chatCompletionBody(request: NormalizedRequest, answer: Answer, meta: RenderMeta): string {
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: answer.toolCalls.length && answer.text === '' ? null : answer.text,
    refusal: null,
    annotations: [],
  }
  // As OpenAI-compatible servers with reasoning models send it (DeepSeek, vLLM, ...).
  if (answer.reasoning) message.reasoning_content = answer.reasoning
  if (answer.toolCalls.length) {
    message.tool_calls = answer.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }))
  }
  return JSON.stringify({
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finishReason }],
    usage: chatUsage(request, answer),
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
  })
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
