import type { Answer } from './answer.js'
import { FrameWriter, type PackedFrames } from './frame-writer.js'
import type { NormalizedRequest } from './normalize.js'
import { argumentFragments, type RenderMeta } from './render-chat.js'

const DELTA_KEY = FrameWriter.encode(',"delta":')
const CLOSE = FrameWriter.encode('}\n\n')

function usage(request: NormalizedRequest, answer: Answer) {
  return {
    input_tokens: request.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: answer.outputTokens,
    output_tokens_details: { reasoning_tokens: answer.reasoningPieces.length },
    total_tokens: request.inputTokens + answer.outputTokens,
  }
}

function messageItem(id: string, text: string, status: string) {
  return {
    id,
    type: 'message',
    status,
    content: status === 'in_progress' ? [] : [{ type: 'output_text', annotations: [], logprobs: [], text }],
    role: 'assistant',
  }
}

function callItem(id: string, call: Answer['toolCalls'][number], status: string, args: string) {
  return { id, type: 'function_call', status, arguments: args, call_id: call.id, name: call.name }
}

function reasoningItem(id: string, text: string, status: string) {
  return {
    id,
    type: 'reasoning',
    status,
    summary: status === 'in_progress' ? [] : [{ type: 'summary_text', text }],
  }
}

function itemIds(answer: Answer, meta: RenderMeta) {
  const base = meta.id.slice('resp_'.length)
  const hasMessage = answer.text !== '' || answer.toolCalls.length === 0
  return {
    hasMessage,
    messageId: `msg_${base}`,
    reasoningId: `rs_${base}`,
    callId: (i: number) => `fc_${base}${i}`,
  }
}

function responseObject(request: NormalizedRequest, answer: Answer, meta: RenderMeta, done: boolean) {
  const body = request.body
  const { hasMessage, messageId, reasoningId, callId } = itemIds(answer, meta)
  const output: unknown[] = []
  if (done) {
    if (answer.reasoning) output.push(reasoningItem(reasoningId, answer.reasoning, 'completed'))
    if (hasMessage) output.push(messageItem(messageId, answer.text, 'completed'))
    for (const [i, c] of answer.toolCalls.entries())
      output.push(callItem(callId(i), c, 'completed', c.arguments))
  }
  const incomplete = done && answer.finishReason === 'length'
  return {
    id: meta.id,
    object: 'response',
    created_at: meta.created,
    status: done ? (incomplete ? 'incomplete' : 'completed') : 'in_progress',
    background: false,
    error: null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: meta.model,
    output,
    parallel_tool_calls: request.parallelToolCalls,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: (body.text as { format?: unknown } | undefined)?.format ?? { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    usage: done ? usage(request, answer) : null,
    user: null,
    metadata: body.metadata ?? {},
  }
}

/** The `response` JSON body. */
export function responseBody(request: NormalizedRequest, answer: Answer, meta: RenderMeta): string {
  return JSON.stringify(responseObject(request, answer, meta, true))
}

/**
 * The Responses API semantic event stream: `response.created`, `response.in_progress`, per output item
 * `response.output_item.added` ... `response.output_item.done` (text via `response.output_text.delta`,
 * calls via `response.function_call_arguments.delta`), then `response.completed`.
 */
export function responseSteps(request: NormalizedRequest, answer: Answer, meta: RenderMeta): PackedFrames {
  const w = new FrameWriter((answer.pieces.length + 16) * 256 + answer.text.length * 4)
  let sequence = 0
  const event = (type: string, fields: Record<string, unknown>, finish = false) =>
    w
      .text(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`)
      .end(finish)
  const pending = responseObject(request, answer, meta, false)
  event('response.created', { response: pending })
  event('response.in_progress', { response: pending })
  const { hasMessage, messageId, reasoningId, callId } = itemIds(answer, meta)
  let outputIndex = 0
  if (answer.reasoning) {
    const at = { item_id: reasoningId, output_index: outputIndex, summary_index: 0 }
    event('response.output_item.added', {
      output_index: outputIndex,
      item: reasoningItem(reasoningId, '', 'in_progress'),
    })
    event('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } })
    for (const delta of answer.reasoningPieces)
      event('response.reasoning_summary_text.delta', { ...at, delta })
    event('response.reasoning_summary_text.done', { ...at, text: answer.reasoning })
    event('response.reasoning_summary_part.done', {
      ...at,
      part: { type: 'summary_text', text: answer.reasoning },
    })
    event('response.output_item.done', {
      output_index: outputIndex,
      item: reasoningItem(reasoningId, answer.reasoning, 'completed'),
    })
    outputIndex++
  }
  if (hasMessage) {
    const at = { item_id: messageId, output_index: outputIndex, content_index: 0 }
    event('response.output_item.added', {
      output_index: outputIndex,
      item: messageItem(messageId, '', 'in_progress'),
    })
    event('response.content_part.added', {
      ...at,
      part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
    })
    const head = FrameWriter.encode(
      `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"${messageId}","output_index":${outputIndex},"content_index":0,"logprobs":[],"sequence_number":`,
    )
    for (const piece of answer.pieces) {
      w.bytes(head).text(String(sequence++)).bytes(DELTA_KEY).text(JSON.stringify(piece)).bytes(CLOSE).end()
    }
    event('response.output_text.done', { ...at, text: answer.text, logprobs: [] })
    event('response.content_part.done', {
      ...at,
      part: { type: 'output_text', annotations: [], logprobs: [], text: answer.text },
    })
    event('response.output_item.done', {
      output_index: outputIndex,
      item: messageItem(messageId, answer.text, 'completed'),
    })
    outputIndex++
  }
  answer.toolCalls.forEach((call, i) => {
    const id = callId(i)
    event('response.output_item.added', {
      output_index: outputIndex,
      item: callItem(id, call, 'in_progress', ''),
    })
    for (const delta of argumentFragments(call.arguments)) {
      event('response.function_call_arguments.delta', { item_id: id, output_index: outputIndex, delta })
    }
    event('response.function_call_arguments.done', {
      item_id: id,
      output_index: outputIndex,
      name: call.name,
      arguments: call.arguments,
    })
    event('response.output_item.done', {
      output_index: outputIndex,
      item: callItem(id, call, 'completed', call.arguments),
    })
    outputIndex++
  })
  const final = responseObject(request, answer, meta, true)
  event(
    final.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
    { response: final },
    true,
  )
  return w.frames()
}
