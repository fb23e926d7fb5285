import type { Answer } from './answer.js'
import { FrameWriter, type PackedFrames } from './frame-writer.js'
import { deterministicId, hashString } from './hash.js'
import type { NormalizedRequest } from './normalize.js'
import { argumentFragments, type RenderMeta } from './render-chat.js'

function stopReason(answer: Answer): string {
  if (answer.finishReason === 'tool_calls') return 'tool_use'
  return answer.finishReason === 'length' ? 'max_tokens' : 'end_turn'
}

function zeroCacheUsage(request: NormalizedRequest, outputTokens: number) {
  return {
    input_tokens: request.inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: outputTokens,
  }
}

/**
 * A deterministic stand-in for the signature Anthropic attaches to thinking blocks: a function of the
 * thinking text alone, so MockGPT can check the blocks a client sends back (see normalize-messages).
 */
export function thinkingSignature(reasoning: string): string {
  return `mockgpt-sig-${deterministicId(hashString(reasoning), 'thinking', 32)}`
}

function usage(request: NormalizedRequest, outputTokens: number, meta: RenderMeta) {
  const cache = meta.cache
  if (cache === undefined) return zeroCacheUsage(request, outputTokens)
  return {
    input_tokens: Math.max(0, request.inputTokens - cache.read - cache.write),
    cache_creation_input_tokens: cache.write,
    cache_read_input_tokens: cache.read,
    output_tokens: outputTokens,
  }
}

/** The tool input as an object; broken scripted arguments are sent as the raw string they are. */
function inputOf(args: string): unknown {
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

function hasText(answer: Answer): boolean {
  return answer.text !== '' || answer.toolCalls.length === 0
}

/** The Anthropic `message` JSON body. */
export function messageBody(request: NormalizedRequest, answer: Answer, meta: RenderMeta): string {
  const content: unknown[] = []
  if (answer.reasoning)
    content.push({
      type: 'thinking',
      thinking: answer.reasoning,
      signature: thinkingSignature(answer.reasoning),
    })
  if (hasText(answer)) content.push({ type: 'text', text: answer.text })
  for (const call of answer.toolCalls)
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: inputOf(call.arguments) })
  return JSON.stringify({
    id: meta.id,
    type: 'message',
    role: 'assistant',
    model: meta.model,
    content,
    stop_reason: stopReason(answer),
    stop_sequence: null,
    usage: usage(request, answer.outputTokens, meta),
  })
}

/**
 * The Anthropic Messages event stream: `message_start`, a `ping`, per content block `content_block_start`,
 * its deltas (`thinking_delta` + `signature_delta`, `text_delta`, `input_json_delta`) and
 * `content_block_stop`, then `message_delta` (stop reason, output tokens) and `message_stop`.
 */
export function messageSteps(request: NormalizedRequest, answer: Answer, meta: RenderMeta): PackedFrames {
  const w = new FrameWriter(
    (answer.pieces.length + answer.reasoningPieces.length + 16) * 160 + answer.text.length * 4,
  )
  const event = (type: string, data: Record<string, unknown>, finish = false) =>
    w.text(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`).end(finish)
  event('message_start', {
    message: {
      id: meta.id,
      type: 'message',
      role: 'assistant',
      model: meta.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usage(request, 1, meta),
    },
  })
  event('ping', {})
  let index = 0
  if (answer.reasoning) {
    event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } })
    for (const piece of answer.reasoningPieces)
      event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } })
    event('content_block_delta', {
      index,
      delta: { type: 'signature_delta', signature: thinkingSignature(answer.reasoning) },
    })
    event('content_block_stop', { index })
    index++
  }
  if (hasText(answer)) {
    event('content_block_start', { index, content_block: { type: 'text', text: '' } })
    const head = FrameWriter.encode(
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":`,
    )
    const close = FrameWriter.encode('}}\n\n')
    for (const piece of answer.pieces) w.bytes(head).text(JSON.stringify(piece)).bytes(close).end()
    event('content_block_stop', { index })
    index++
  }
  for (const call of answer.toolCalls) {
    event('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    })
    for (const fragment of argumentFragments(call.arguments))
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: fragment } })
    event('content_block_stop', { index })
    index++
  }
  event('message_delta', {
    delta: { stop_reason: stopReason(answer), stop_sequence: null },
    usage: { output_tokens: answer.outputTokens },
  })
  event('message_stop', {}, true)
  return w.frames()
}
