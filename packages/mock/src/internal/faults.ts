import type { MockHttpResponse, MockStreamStep } from '../mock-http.js'
import type { MockFault } from '../script.js'
import type { RenderedStep } from './frame-writer.js'

const MALFORMED: MockStreamStep = {
  type: 'data',
  chunk:
    'data: {"id":"mockgpt-malformed","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"unterminated\n\n',
}

/** The malformed frame of an Anthropic Messages stream: a named event (clients skip unnamed ones). */
export const MALFORMED_MESSAGE_EVENT: MockStreamStep = {
  type: 'data',
  chunk:
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"unterminated\n\n',
}

interface Plan {
  malformed: MockStreamStep
  slowMs: number
  duplicateFinish: boolean
  disconnectAt: number | undefined
  malformedAt: number | undefined
  hangAt: number | undefined
}

function planOf(faults: readonly MockFault[]): Plan {
  const plan: Plan = {
    malformed: MALFORMED,
    slowMs: 0,
    duplicateFinish: false,
    disconnectAt: undefined,
    malformedAt: undefined,
    hangAt: undefined,
  }
  for (const f of faults) {
    if (f.type === 'slow-chunks') plan.slowMs = Math.max(plan.slowMs, f.delayMs)
    else if (f.type === 'duplicate-finish') plan.duplicateFinish = true
    else if (f.type === 'disconnect')
      plan.disconnectAt = Math.min(plan.disconnectAt ?? Number.POSITIVE_INFINITY, f.afterChunks ?? 1)
    else if (f.type === 'malformed-chunk')
      plan.malformedAt = Math.min(plan.malformedAt ?? Number.POSITIVE_INFINITY, f.afterChunks ?? 1)
    else if (f.type === 'hang')
      plan.hangAt = Math.min(plan.hangAt ?? Number.POSITIVE_INFINITY, f.afterChunks ?? 0)
  }
  return plan
}

/** Applies the plan to a fully known stream. Cut points are clamped so the final frame is never reached. */
function applyToArray(steps: readonly RenderedStep[], plan: Plan): MockStreamStep[] {
  const last = steps.length - 1
  const clamp = (at: number | undefined) => (at === undefined ? undefined : Math.min(at, Math.max(0, last)))
  const disconnectAt = clamp(plan.disconnectAt)
  const hangAt = clamp(plan.hangAt)
  const malformedAt = clamp(plan.malformedAt)
  const out: MockStreamStep[] = []
  let sent = 0
  for (const step of steps) {
    if (sent === malformedAt) out.push(plan.malformed)
    if (sent === disconnectAt) {
      out.push({ type: 'disconnect' })
      return out
    }
    if (sent === hangAt) {
      out.push({ type: 'hang' })
      return out
    }
    const timed: MockStreamStep =
      plan.slowMs > 0 && step.type === 'data'
        ? { type: 'data', chunk: step.chunk, delayMs: plan.slowMs }
        : step
    out.push(timed)
    if (plan.duplicateFinish && step.finish) out.push(timed)
    sent++
  }
  return out
}

async function* applyToAsync(
  steps: AsyncIterable<MockStreamStep>,
  plan: Plan,
): AsyncIterable<MockStreamStep> {
  let sent = 0
  for await (const step of steps) {
    if (sent === plan.malformedAt) yield plan.malformed
    if (sent === plan.disconnectAt) {
      yield { type: 'disconnect' }
      return
    }
    if (sent === plan.hangAt) {
      yield { type: 'hang' }
      return
    }
    yield plan.slowMs > 0 && step.type === 'data'
      ? { type: 'data', chunk: step.chunk, delayMs: plan.slowMs }
      : step
    sent++
  }
  if (plan.disconnectAt !== undefined) yield { type: 'disconnect' }
  else if (plan.hangAt !== undefined) yield { type: 'hang' }
}

/**
 * Applies transport-level faults (everything but `status`, which the engine answers before rendering) to a
 * rendered response.
 */
export function applyFaults(
  response: MockHttpResponse,
  faults: readonly MockFault[],
  malformed: MockStreamStep = MALFORMED,
): MockHttpResponse {
  if (faults.length === 0) return response
  const plan = planOf(faults)
  plan.malformed = malformed
  let firstByteDelayMs = response.firstByteDelayMs
  for (const f of faults)
    if (f.type === 'slow-first-byte') firstByteDelayMs = Math.max(firstByteDelayMs, f.delayMs)
  const body = response.body
  if (plan.hangAt === 0) return { ...response, firstByteDelayMs, body: { type: 'hang' } }
  if (body.type === 'stream') {
    const source = body.steps
    const steps =
      Symbol.iterator in source
        ? applyToArray([...(source as Iterable<RenderedStep>)], plan)
        : applyToAsync(source as AsyncIterable<MockStreamStep>, plan)
    return { ...response, firstByteDelayMs, body: { type: 'stream', steps } }
  }
  if (body.type === 'text') {
    const half = body.text.slice(0, Math.floor(body.text.length / 2))
    if (plan.disconnectAt !== undefined) {
      return {
        ...response,
        firstByteDelayMs,
        body: { type: 'stream', steps: [{ type: 'data', chunk: half }, { type: 'disconnect' }] },
      }
    }
    if (plan.hangAt !== undefined) {
      return {
        ...response,
        firstByteDelayMs,
        body: { type: 'stream', steps: [{ type: 'data', chunk: half }, { type: 'hang' }] },
      }
    }
    if (plan.malformedAt !== undefined)
      return { ...response, firstByteDelayMs, body: { type: 'text', text: half } }
  }
  return { ...response, firstByteDelayMs }
}
