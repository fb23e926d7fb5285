/**
 * Turns chat completion chunks into core stream events. Tool-call fragments are reassembled by `index`
 * (parallel calls arrive interleaved; the id and name come on a call's first fragment), reasoning deltas
 * become `thinking-delta`s, and the answer is complete only when a finish reason arrived: {@link
 * ChunkDecoder.end} refuses a stream that stopped before it.
 */
import {
  ModelStreamAccumulator,
  type ModelStreamEvent,
  type ModelUsage,
  type ToolCall,
} from '@agent-core/core'
import {
  type AnswerFacts,
  emptyFacts,
  finishReasonOf,
  readUsage,
  reasoningOf,
  syntheticCallId,
} from './answer.js'
import { malformedAnswer, truncatedStream } from './errors.js'

const ZERO: ModelUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }

export class ChunkDecoder {
  readonly facts: AnswerFacts = emptyFacts()
  /** Chunks read so far. */
  chunks = 0
  readonly #provider: string
  /** The reply the events describe, folded once by core's accumulator as they are emitted. */
  readonly reply = new ModelStreamAccumulator()
  #lastIndex = -1
  #finished = false
  #usage: ModelUsage | undefined

  constructor(provider: string) {
    this.#provider = provider
  }

  /** Reads one parsed chunk and appends the events it carries to `out`. */
  read(chunk: unknown, out: ModelStreamEvent[]): void {
    this.chunks++
    if (typeof chunk !== 'object' || chunk === null) {
      throw malformedAnswer(this.#provider, 'a chat completion chunk object', chunk)
    }
    const body = chunk as Record<string, unknown>
    const facts = this.facts
    if (facts.responseId === undefined && typeof body.id === 'string' && body.id !== '')
      facts.responseId = body.id
    if (facts.responseModel === undefined && typeof body.model === 'string' && body.model !== '') {
      facts.responseModel = body.model
    }
    if (facts.systemFingerprint === undefined && typeof body.system_fingerprint === 'string') {
      facts.systemFingerprint = body.system_fingerprint
    }
    if (body.usage !== undefined && body.usage !== null) {
      this.#usage = readUsage(body.usage, this.#provider, facts)
    }
    const choices = body.choices
    if (choices === undefined || choices === null) return
    if (!Array.isArray(choices)) throw malformedAnswer(this.#provider, 'chunk choices as an array', choices)
    const choice = choices.length === 1 ? choices[0] : choices.find(isFirstChoice)
    if (choice === undefined) return
    if (typeof choice !== 'object' || choice === null) {
      throw malformedAnswer(this.#provider, 'a chunk choice object', choice)
    }
    const { delta, finish_reason: reason } = choice as Record<string, unknown>
    if (delta !== undefined && delta !== null) {
      if (typeof delta !== 'object') throw malformedAnswer(this.#provider, 'a delta object', delta)
      this.#delta(delta as Record<string, unknown>, out)
    }
    if (reason !== undefined && reason !== null) {
      if (typeof reason !== 'string' || reason === '') {
        throw malformedAnswer(this.#provider, 'a string finish_reason', reason)
      }
      if (this.#finished) return // a repeated finish chunk changes nothing
      this.#finished = true
      facts.providerFinishReason = reason
      for (const { index, call } of this.reply.indexedCalls()) {
        this.#emit(out, { type: 'tool-call-end', index, call })
      }
    }
  }

  #delta(delta: Record<string, unknown>, out: ModelStreamEvent[]): void {
    const thinking = reasoningOf(delta)
    const { content, refusal, tool_calls: calls } = delta
    if (content !== undefined && content !== null && typeof content !== 'string') {
      throw malformedAnswer(this.#provider, 'delta content as a string or null', content)
    }
    const hasText = typeof content === 'string' && content !== ''
    const hasRefusal = typeof refusal === 'string' && refusal !== ''
    const hasCalls = calls !== undefined && calls !== null
    if (this.#finished && (thinking !== undefined || hasText || hasRefusal || hasCalls)) {
      throw malformedAnswer(this.#provider, 'nothing more after the finish reason', delta)
    }
    if (thinking !== undefined) this.#emit(out, { type: 'thinking-delta', text: thinking })
    if (hasText) this.#emit(out, { type: 'text-delta', text: content })
    // A refusal (structured output the model declined) is what the model said: keep it as text.
    if (hasRefusal) this.#emit(out, { type: 'text-delta', text: refusal })
    if (!hasCalls) return
    if (!Array.isArray(calls)) throw malformedAnswer(this.#provider, 'delta tool_calls as an array', calls)
    for (const fragment of calls) this.#fragment(fragment, out)
  }

  #fragment(fragment: unknown, out: ModelStreamEvent[]): void {
    if (typeof fragment !== 'object' || fragment === null) {
      throw malformedAnswer(this.#provider, 'a tool call fragment object', fragment)
    }
    const { index: given, id, function: fn } = fragment as Record<string, unknown>
    if (fn !== undefined && fn !== null && typeof fn !== 'object') {
      throw malformedAnswer(this.#provider, 'a tool call fragment function object', fn)
    }
    const { name, arguments: args } = (fn ?? {}) as Record<string, unknown>
    if (args !== undefined && args !== null && typeof args !== 'string') {
      throw malformedAnswer(this.#provider, 'tool call arguments as a string', args)
    }
    let index: number
    if (given === undefined || given === null) {
      // A server that leaves out `index`: a fragment with a new id opens the next call, any other continues
      // the last one.
      const last = this.reply.call(this.#lastIndex)
      index =
        last === undefined || (typeof id === 'string' && id !== '' && id !== last.id)
          ? this.reply.callCount
          : this.#lastIndex
    } else if (typeof given === 'number' && Number.isSafeInteger(given) && given >= 0) {
      index = given
    } else {
      throw malformedAnswer(this.#provider, 'a tool call index that is an integer of at least 0', given)
    }
    this.#lastIndex = index
    if (!this.reply.hasCall(index)) {
      if (typeof name !== 'string' || name === '') {
        throw malformedAnswer(
          this.#provider,
          `the tool name on the first fragment of tool call ${index}`,
          name,
        )
      }
      if (id !== undefined && id !== null && typeof id !== 'string') {
        throw malformedAnswer(this.#provider, 'a tool call id as a string', id)
      }
      const callId = typeof id === 'string' && id !== '' ? id : syntheticCallId()
      this.#emit(out, { type: 'tool-call-start', index, id: callId, name })
    }
    if (typeof args === 'string' && args !== '') {
      this.#emit(out, { type: 'tool-call-delta', index, argumentsDelta: args })
    }
  }

  /** Emits an event and folds it into {@link ChunkDecoder.reply}. */
  #emit(out: ModelStreamEvent[], event: ModelStreamEvent): void {
    this.reply.add(event)
    out.push(event)
  }

  /** The calls assembled so far, by index. */
  get toolCalls(): ToolCall[] {
    return this.reply.toolCalls
  }

  /**
   * After the transport ended without an error: appends the `finish` event, or throws when the model
   * never finished (the answer would be truncated).
   */
  end(out: ModelStreamEvent[]): void {
    const reason = this.facts.providerFinishReason
    if (!this.#finished || reason === undefined) throw truncatedStream(this.#provider, this.chunks)
    this.#emit(out, {
      type: 'finish',
      finishReason: finishReasonOf(reason, this.reply.callCount > 0),
      usage: this.#usage ?? ZERO,
      ...(this.facts.responseModel === undefined ? {} : { model: this.facts.responseModel }),
    })
  }

  /** The usage the server reported (the last one it sent), if any. */
  get usage(): ModelUsage | undefined {
    return this.#usage
  }
}

function isFirstChoice(choice: unknown): boolean {
  const index = (choice as { index?: unknown } | null)?.index
  return index === 0 || index === undefined
}
