/**
 * Turns Messages API stream events into core stream events. Content blocks arrive by `index`: text deltas
 * become `text-delta`s, thinking deltas `thinking-delta`s and the block's end (with the signature its
 * `signature_delta` carried, or a redacted block's data) one `thinking-end`; a `tool_use` block's
 * `input_json_delta`s are assembled into one call, numbered in the order the calls start. Usage comes from
 * `message_start` and is updated by `message_delta`. The answer is complete only at `message_stop` after a
 * stop reason: {@link EventDecoder.end} refuses a stream that stopped before.
 */
import { ModelStreamAccumulator, type ModelStreamEvent, type ModelUsage } from '@agent-core/core'
import {
  type AnswerFacts,
  coreUsage,
  emptyFacts,
  emptyWireUsage,
  finishReasonOf,
  mergeUsage,
} from './answer.js'
import { malformedAnswer, truncatedStream } from './errors.js'
import { JSON_TOOL_NAME } from './request.js'

type OpenBlock =
  | { readonly kind: 'text' }
  | { readonly kind: 'thinking'; text: string; signature: string }
  | { readonly kind: 'redacted'; readonly data: string }
  | { readonly kind: 'tool'; readonly call: number; readonly id: string; readonly name: string }
  | { readonly kind: 'json' }
  | { readonly kind: 'other' }

export class EventDecoder {
  readonly facts: AnswerFacts = emptyFacts()
  /** Events read so far. */
  events = 0
  readonly provider: string
  /** A `json_object` answer: the input of the JSON tool is the text. */
  readonly #json: boolean
  /** Open blocks by index (small integers from 0: an array beats a map on the per-delta path). */
  readonly #blocks: (OpenBlock | undefined)[] = []
  readonly #usage = emptyWireUsage()
  #calls = 0
  /** The reply the events describe, folded once by core's accumulator as they are emitted. */
  readonly reply = new ModelStreamAccumulator()
  #stopped = false
  #started = false

  constructor(provider: string, json = false) {
    this.provider = provider
    this.#json = json
  }

  /** Emits an event and folds it into {@link EventDecoder.reply}. */
  #emit(out: ModelStreamEvent[], event: ModelStreamEvent): void {
    this.reply.add(event)
    out.push(event)
  }

  #bad(what: string, value: unknown): never {
    throw malformedAnswer(this.provider, what, value)
  }

  /** Reads one parsed event and appends the core events it carries to `out`. */
  read(event: unknown, out: ModelStreamEvent[]): void {
    this.events++
    if (typeof event !== 'object' || event === null) this.#bad('a stream event object', event)
    const body = event as Record<string, unknown>
    // The hot path first: a text delta of an open text block (nearly every event of a long answer).
    if (body.type === 'content_block_delta' && !this.#stopped) {
      const delta = body.delta as Record<string, unknown> | null | undefined
      const index = body.index
      if (delta?.type === 'text_delta' && typeof index === 'number' && this.#blocks[index]?.kind === 'text') {
        const text = delta.text
        if (typeof text === 'string') {
          if (text !== '') this.#emit(out, { type: 'text-delta', text })
          return
        }
      }
    }
    if (this.#stopped) {
      if (body.type === 'message_stop') return // a repeated stop changes nothing
      this.#bad('nothing after message_stop', body.type)
    }
    switch (body.type) {
      case 'content_block_delta':
        this.#delta(body.index, body.delta, out)
        return
      case 'content_block_start':
        this.#start(body.index, body.content_block, out)
        return
      case 'content_block_stop':
        this.#stop(body.index, out)
        return
      case 'message_start': {
        const message = body.message as Record<string, unknown> | null | undefined
        if (typeof message !== 'object' || message === null)
          this.#bad('message_start with a message', message)
        this.#started = true
        if (typeof message.id === 'string' && message.id !== '') this.facts.responseId = message.id
        if (typeof message.model === 'string' && message.model !== '')
          this.facts.responseModel = message.model
        mergeUsage(message.usage, this.#usage, this.provider)
        return
      }
      case 'message_delta': {
        const delta = body.delta as Record<string, unknown> | null | undefined
        const reason = delta?.stop_reason
        if (reason !== undefined && reason !== null) {
          if (typeof reason !== 'string' || reason === '') this.#bad('a string stop_reason', reason)
          this.facts.providerFinishReason = reason
        }
        mergeUsage(body.usage, this.#usage, this.provider)
        return
      }
      case 'message_stop':
        this.#stopped = true
        return
      default:
      // ping, and event types newer than this adapter.
    }
  }

  #setBlock(index: number, block: OpenBlock): void {
    this.#blocks[index] = block
  }

  #index(value: unknown): number {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      this.#bad('a content block index that is an integer of at least 0', value)
    }
    return value
  }

  #start(at: unknown, block: unknown, out: ModelStreamEvent[]): void {
    const index = this.#index(at)
    if (this.#blocks[index] !== undefined) this.#bad(`one content_block_start for block ${index}`, block)
    if (typeof block !== 'object' || block === null)
      this.#bad('content_block_start with a content_block', block)
    const b = block as Record<string, unknown>
    switch (b.type) {
      case 'text': {
        this.#setBlock(index, { kind: 'text' })
        if (typeof b.text === 'string' && b.text !== '') this.#emit(out, { type: 'text-delta', text: b.text })
        return
      }
      case 'thinking': {
        const text = typeof b.thinking === 'string' ? b.thinking : ''
        this.#setBlock(index, {
          kind: 'thinking',
          text,
          signature: typeof b.signature === 'string' ? b.signature : '',
        })
        if (text !== '') this.#emit(out, { type: 'thinking-delta', text })
        return
      }
      case 'redacted_thinking':
        if (typeof b.data !== 'string') this.#bad('a redacted_thinking block with data', block)
        this.#setBlock(index, { kind: 'redacted', data: b.data })
        return
      case 'tool_use': {
        if (this.#json && b.name === JSON_TOOL_NAME) {
          this.#setBlock(index, { kind: 'json' })
          return
        }
        if (typeof b.id !== 'string' || b.id === '' || typeof b.name !== 'string' || b.name === '') {
          this.#bad('a tool_use block { id, name } at its start', block)
        }
        const call = this.#calls++
        // A start that already holds the whole input (some servers send no deltas) keeps it.
        const input = b.input
        const json =
          typeof input === 'object' && input !== null && Object.keys(input).length > 0
            ? JSON.stringify(input)
            : ''
        this.#setBlock(index, { kind: 'tool', call, id: b.id, name: b.name })
        this.#emit(out, { type: 'tool-call-start', index: call, id: b.id, name: b.name })
        if (json !== '') this.#emit(out, { type: 'tool-call-delta', index: call, argumentsDelta: json })
        return
      }
      default:
        this.#setBlock(index, { kind: 'other' })
    }
  }

  #delta(at: unknown, delta: unknown, out: ModelStreamEvent[]): void {
    const index = this.#index(at)
    const block = this.#blocks[index]
    if (block === undefined) this.#bad(`content_block_start before the deltas of block ${index}`, delta)
    if (typeof delta !== 'object' || delta === null) this.#bad('a delta object', delta)
    const d = delta as Record<string, unknown>
    switch (d.type) {
      case 'text_delta':
        if (block.kind !== 'text' || typeof d.text !== 'string')
          this.#bad('a text_delta with text, in a text block', d)
        if (d.text !== '') this.#emit(out, { type: 'text-delta', text: d.text })
        return
      case 'thinking_delta':
        if (block.kind !== 'thinking' || typeof d.thinking !== 'string') {
          this.#bad('a thinking_delta with thinking, in a thinking block', d)
        }
        if (d.thinking !== '') {
          block.text += d.thinking
          this.#emit(out, { type: 'thinking-delta', text: d.thinking })
        }
        return
      case 'signature_delta':
        if (block.kind !== 'thinking' || typeof d.signature !== 'string') {
          this.#bad('a signature_delta with a signature, in a thinking block', d)
        }
        block.signature += d.signature
        return
      case 'input_json_delta':
        if (block.kind === 'json' && typeof d.partial_json === 'string') {
          if (d.partial_json !== '') this.#emit(out, { type: 'text-delta', text: d.partial_json })
          return
        }
        if (block.kind !== 'tool' || typeof d.partial_json !== 'string') {
          this.#bad('an input_json_delta with partial_json, in a tool_use block', d)
        }
        if (d.partial_json !== '') {
          this.#emit(out, { type: 'tool-call-delta', index: block.call, argumentsDelta: d.partial_json })
        }
        return
      default:
      // citations_delta, and delta types newer than this adapter.
    }
  }

  #stop(at: unknown, out: ModelStreamEvent[]): void {
    const index = this.#index(at)
    const block = this.#blocks[index]
    if (block === undefined) this.#bad(`content_block_start before content_block_stop of block ${index}`, at)
    switch (block.kind) {
      case 'thinking':
        this.#emit(out, {
          type: 'thinking-end',
          block:
            block.signature === '' ? { text: block.text } : { text: block.text, signature: block.signature },
        })
        return
      case 'redacted':
        this.#emit(out, { type: 'thinking-end', block: { text: '', redacted: block.data } })
        return
      case 'tool': {
        const json = this.reply.call(block.call)?.arguments ?? ''
        const args = json === '' ? '{}' : json
        this.#emit(out, {
          type: 'tool-call-end',
          index: block.call,
          call: { id: block.id, name: block.name, arguments: args },
        })
        return
      }
      default:
    }
  }

  /**
   * After the transport ended without an error: appends the `finish` event, or throws when the model never
   * finished (the answer would be truncated).
   */
  end(out: ModelStreamEvent[]): void {
    const reason = this.facts.providerFinishReason
    if (!this.#started || !this.#stopped || reason === undefined)
      throw truncatedStream(this.provider, this.events)
    this.#emit(out, {
      type: 'finish',
      // The JSON tool's forced use is the answer, not a call.
      finishReason:
        this.#json && reason === 'tool_use' && this.#calls === 0
          ? 'stop'
          : finishReasonOf(reason, this.#calls > 0),
      usage: coreUsage(this.#usage, this.facts),
      ...(this.facts.responseModel === undefined ? {} : { model: this.facts.responseModel }),
    })
  }

  /** The usage reported so far. */
  get usage(): ModelUsage {
    return coreUsage(this.#usage, this.facts)
  }
}
