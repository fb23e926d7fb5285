/**
 * The span bridge: turns core diagnostic events into OpenTelemetry spans as they arrive. A `<name>-start`
 * event with a `spanId` starts a span (its parent: the open span named by `parentSpanId`); the matching
 * `<name>-end` ends it with its outcome; any other event becomes a span event on the span it was emitted
 * in (`parentSpanId`, or else the innermost open span whose scope path encloses the event's).
 */
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api'
import type { DiagnosticEvent } from '@agent-core/core'
import {
  attributeValue,
  collect,
  type Data,
  EVENT_MAPPING,
  GENERIC,
  MAPPINGS,
  type SpanFacts,
  type SpanMapping,
} from './mapping.js'
import { ATTR_ERROR_TYPE, ERROR_TYPE_VALUE_OTHER } from './semconv.js'

/** The parts of `@opentelemetry/api` the bridge calls. */
export interface BridgeApi {
  readonly trace: {
    setSpan(context: Context, span: Span): Context
  }
  readonly context: {
    active(): Context
  }
  readonly SpanKind: { readonly INTERNAL: number; readonly CLIENT: number; readonly SERVER: number }
  readonly SpanStatusCode: { readonly ERROR: number }
}

export interface BridgeOptions {
  readonly api: BridgeApi
  readonly tracer: Tracer
  readonly recordContent: boolean
  readonly maxOpenSpans: number
}

/** Counters of what the bridge did, for tests and health checks. */
export interface BridgeStats {
  /** Spans open now. */
  readonly open: number
  /** Spans started (from a start event, or for an end whose start was never seen). */
  readonly started: number
  /** Spans ended by their own end event. */
  readonly ended: number
  /** Spans the sink ended itself as `unfinished` (closed while open, or evicted past `maxOpenSpans`). */
  readonly unfinished: number
  /** End events whose start the sink never saw: recorded as spans of their own, from their duration. */
  readonly orphanEnds: number
  /** Events the sink could not read (not a diagnostic event) or that had no span to attach to. */
  readonly ignored: number
}

/** One open span. */
export interface OpenSpan extends SpanFacts {
  readonly id: string
  readonly span: Span
  /** The context children start in. */
  readonly context: Context
  /** The scope path of the span's own events: the start event's scope plus the span name. */
  readonly scope: readonly string[]
  readonly spanName: string
  readonly mapping: SpanMapping
  readonly recording: boolean
}

export const OUTCOME_UNFINISHED = 'unfinished'
const OUTCOMES = new Set(['ok', 'error', 'aborted', 'timeout'])

function isEvent(value: unknown): value is DiagnosticEvent {
  if (typeof value !== 'object' || value === null) return false
  const event = value as Partial<DiagnosticEvent>
  return (
    typeof event.kind === 'string' &&
    Array.isArray(event.scope) &&
    typeof event.data === 'object' &&
    event.data !== null &&
    (event.spanId === undefined || typeof event.spanId === 'string') &&
    (event.parentSpanId === undefined || typeof event.parentSpanId === 'string')
  )
}

const time = (atMs: unknown): number | undefined =>
  typeof atMs === 'number' && Number.isFinite(atMs) && atMs >= 0 ? atMs : undefined

export class SpanBridge {
  readonly #api: BridgeApi
  readonly #tracer: Tracer
  readonly #recordContent: boolean
  readonly #maxOpen: number
  readonly #open = new Map<string, OpenSpan>()
  /** Ids of spans the sink ended as unfinished, so that their late end is not recorded a second time. */
  readonly #closed = new Set<string>()
  #started = 0
  #ended = 0
  #unfinished = 0
  #orphanEnds = 0
  #ignored = 0

  constructor(options: BridgeOptions) {
    this.#api = options.api
    this.#tracer = options.tracer
    this.#recordContent = options.recordContent
    this.#maxOpen = options.maxOpenSpans
  }

  get stats(): BridgeStats {
    return Object.freeze({
      open: this.#open.size,
      started: this.#started,
      ended: this.#ended,
      unfinished: this.#unfinished,
      orphanEnds: this.#orphanEnds,
      ignored: this.#ignored,
    })
  }

  /** The open span a context's diagnostics belong to, if the sink has it. */
  spanOf(spanId: unknown): OpenSpan | undefined {
    return typeof spanId === 'string' ? this.#open.get(spanId) : undefined
  }

  /** Handles one event; never throws (an unreadable event is counted and dropped). */
  readonly handle = (event: DiagnosticEvent): void => {
    try {
      if (!isEvent(event)) {
        this.#ignored += 1
        return
      }
      const { kind, spanId } = event
      if (spanId !== undefined && spanId !== '') {
        if (kind.endsWith('-start')) return this.#start(event, spanId, kind.slice(0, -6))
        if (kind.endsWith('-end')) return this.#end(event, spanId, kind.slice(0, -4))
      }
      this.#event(event)
    } catch {
      // Data with throwing getters, or a tracer that throws: the App's work must go on untouched.
      this.#ignored += 1
    }
  }

  /** Ends every open span as `unfinished` (children first); returns how many. */
  endAll(reason: string): number {
    const open = [...this.#open.values()].reverse()
    for (const entry of open) this.#finishUnended(entry, reason, undefined)
    return open.length
  }

  #start(event: DiagnosticEvent, id: string, spanName: string): void {
    if (this.#open.has(id) || this.#closed.has(id)) {
      this.#ignored += 1
      return
    }
    if (this.#open.size >= this.#maxOpen) this.#evictOldest()
    // A parent the sink does not know (started before it was attached, or evicted): the scope path decides.
    const parent =
      this.#parentOf(event) ?? (event.parentSpanId === undefined ? undefined : this.#byScope(event.scope))
    const mapping = MAPPINGS.get(spanName) ?? GENERIC
    const data = event.data as Data
    const attributes: Attributes = { ...mapping.fixed }
    collect(mapping, data, attributes, this.#recordContent, false)
    mapping.start?.(data, attributes, event.scope)
    attributes['agent_core.scope'] = event.scope.join('/')
    const api = this.#api
    const kind =
      mapping.kind === 'client'
        ? api.SpanKind.CLIENT
        : mapping.kind === 'server'
          ? api.SpanKind.SERVER
          : api.SpanKind.INTERNAL
    const parentContext = parent?.context ?? api.context.active()
    const span = this.#tracer.startSpan(
      mapping.name(data, spanName),
      { kind, attributes, startTime: time(event.atMs) },
      parentContext,
    )
    if (parent !== undefined && spanName === 'model-request') parent.inference = true
    this.#open.set(id, {
      id,
      span,
      context: api.trace.setSpan(parentContext, span),
      scope: [...event.scope, spanName],
      spanName,
      mapping,
      recording: span.isRecording(),
      inference: false,
    })
    this.#started += 1
  }

  #end(event: DiagnosticEvent, id: string, spanName: string): void {
    let entry = this.#open.get(id)
    if (entry === undefined) {
      if (this.#closed.delete(id)) return
      entry = this.#orphan(event, id, spanName)
    }
    this.#open.delete(id)
    const data = event.data as Data
    const outcome = typeof data.outcome === 'string' && OUTCOMES.has(data.outcome) ? data.outcome : 'ok'
    if (entry.recording) {
      const attributes: Attributes = { 'agent_core.outcome': outcome }
      collect(entry.mapping, data, attributes, this.#recordContent, true)
      entry.mapping.end?.(data, attributes, entry)
      if (outcome !== 'ok') this.#failure(entry.span, outcome, data, attributes, event.atMs)
      entry.span.setAttributes(attributes)
    }
    entry.span.end(time(event.atMs))
    this.#ended += 1
  }

  /** Status, `error.type` and the exception event of an end that was not ok. */
  #failure(span: Span, outcome: string, data: Data, attributes: Attributes, atMs: unknown): void {
    const code = typeof data.errorCode === 'string' ? data.errorCode : undefined
    const message = typeof data.errorMessage === 'string' ? data.errorMessage : undefined
    if (code !== undefined) attributes['agent_core.error.code'] = code
    if (attributes[ATTR_ERROR_TYPE] === undefined) {
      attributes[ATTR_ERROR_TYPE] = code ?? (outcome === 'error' ? ERROR_TYPE_VALUE_OTHER : outcome)
    }
    span.setStatus({
      code: this.#api.SpanStatusCode.ERROR,
      message: message === undefined ? outcome : `${outcome}: ${message}`,
    })
    if (message !== undefined || code !== undefined) {
      span.recordException({ name: code ?? outcome, message: message ?? outcome }, time(atMs))
    }
  }

  /** An end whose start was never seen (the sink came later): a span from its duration, marked as such. */
  #orphan(event: DiagnosticEvent, id: string, spanName: string): OpenSpan {
    const data = event.data as Data
    const end = time(event.atMs)
    const duration = typeof data.durationMs === 'number' && data.durationMs >= 0 ? data.durationMs : 0
    const mapping = MAPPINGS.get(spanName) ?? GENERIC
    const parent = this.#parentOf(event)
    const parentContext = parent?.context ?? this.#api.context.active()
    const span = this.#tracer.startSpan(
      mapping.name(data, spanName),
      {
        attributes: { 'agent_core.scope': event.scope.join('/'), 'agent_core.start_seen': false },
        startTime: end === undefined ? undefined : end - duration,
      },
      parentContext,
    )
    this.#orphanEnds += 1
    this.#started += 1
    return {
      id,
      span,
      context: parentContext,
      scope: [...event.scope, spanName],
      spanName,
      mapping,
      recording: span.isRecording(),
      inference: false,
    }
  }

  #event(event: DiagnosticEvent): void {
    const owner = this.#parentOf(event) ?? this.#byScope(event.scope)
    if (owner === undefined) {
      this.#ignored += 1
      return
    }
    if (!owner.recording) return
    const attributes: Attributes = {}
    if (event.level !== 'info' && typeof event.level === 'string')
      attributes['agent_core.level'] = event.level
    collect(EVENT_MAPPING, event.data as Data, attributes, this.#recordContent, false)
    owner.span.addEvent(event.kind, attributes, time(event.atMs))
  }

  #parentOf(event: DiagnosticEvent): OpenSpan | undefined {
    const { parentSpanId } = event
    return parentSpanId === undefined ? undefined : this.#open.get(parentSpanId)
  }

  /** The innermost open span whose own scope path is a prefix of `scope` (the latest one on a tie). */
  #byScope(scope: readonly unknown[]): OpenSpan | undefined {
    let best: OpenSpan | undefined
    for (const entry of this.#open.values()) {
      const own = entry.scope
      if (own.length > scope.length || (best !== undefined && own.length < best.scope.length)) continue
      let inside = true
      for (let i = 0; i < own.length; i++) {
        if (own[i] !== scope[i]) {
          inside = false
          break
        }
      }
      if (inside) best = entry
    }
    return best
  }

  #evictOldest(): void {
    const oldest = this.#open.values().next().value
    if (oldest !== undefined) {
      this.#finishUnended(oldest, `more than ${this.#maxOpen} spans were open at once`, undefined)
    }
  }

  #finishUnended(entry: OpenSpan, reason: string, atMs: number | undefined): void {
    this.#open.delete(entry.id)
    this.#closed.add(entry.id)
    if (this.#closed.size > this.#maxOpen) {
      const first = this.#closed.values().next().value
      if (first !== undefined) this.#closed.delete(first)
    }
    if (entry.recording) {
      entry.span.setAttributes({
        'agent_core.outcome': OUTCOME_UNFINISHED,
        [ATTR_ERROR_TYPE]: OUTCOME_UNFINISHED,
      })
      entry.span.setStatus({
        code: this.#api.SpanStatusCode.ERROR,
        message: `${OUTCOME_UNFINISHED}: ${reason}`,
      })
    }
    entry.span.end(atMs)
    this.#unfinished += 1
  }
}

/** An attribute value for content (a JSON string), or `undefined` when it cannot be serialized. */
export function contentValue(value: unknown): string | undefined {
  try {
    const text = JSON.stringify(value)
    return typeof text === 'string' ? text : undefined
  } catch {
    return undefined
  }
}

export { attributeValue }
