import type { MockStreamStep } from '../mock-http.js'

/** `data: <json>\n\n` */
export function dataFrame(payload: unknown): MockStreamStep {
  return { type: 'data', text: `data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n` }
}

/** `event: <name>\ndata: <json>\n\n` (Responses API style). */
export function eventFrame(event: string, payload: unknown): MockStreamStep {
  return { type: 'data', text: `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n` }
}

export const DONE_FRAME: MockStreamStep = { type: 'data', text: 'data: [DONE]\n\n' }

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
}
