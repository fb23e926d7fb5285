import type { MockHttpResponse, MockStreamStep } from '../mock-http.js'
import type { Answer } from './answer.js'
import type { NormalizedRequest } from './normalize.js'
import { chatCompletionBody, chatCompletionSteps, type RenderMeta } from './render-chat.js'
import { messageBody, messageSteps } from './render-messages.js'
import { responseBody, responseSteps } from './render-responses.js'
import { SSE_HEADERS } from './sse.js'

/** A 200 SSE response (chunked, no Content-Length). */
export function sseResponse(
  steps: Iterable<MockStreamStep> | AsyncIterable<MockStreamStep>,
  requestId: string,
): MockHttpResponse {
  return {
    status: 200,
    headers: { ...SSE_HEADERS, 'x-request-id': requestId },
    firstByteDelayMs: 0,
    body: { type: 'stream', steps },
  }
}

/** A 200 JSON response. */
export function jsonTextResponse(text: string, requestId: string): MockHttpResponse {
  return {
    status: 200,
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
    firstByteDelayMs: 0,
    body: { type: 'text', text },
  }
}

/** The answer in the request's wire format: chat, Responses or Anthropic Messages, JSON or stream. */
export function renderAnswer(
  request: NormalizedRequest,
  answer: Answer,
  meta: RenderMeta,
  requestId: string,
): MockHttpResponse {
  const endpoint = request.endpoint
  if (request.stream) {
    return sseResponse(
      endpoint === 'chat.completions'
        ? chatCompletionSteps(request, answer, meta)
        : endpoint === 'messages'
          ? messageSteps(request, answer, meta)
          : responseSteps(request, answer, meta),
      requestId,
    )
  }
  return jsonTextResponse(
    endpoint === 'chat.completions'
      ? chatCompletionBody(request, answer, meta)
      : endpoint === 'messages'
        ? messageBody(request, answer, meta)
        : responseBody(request, answer, meta),
    requestId,
  )
}
