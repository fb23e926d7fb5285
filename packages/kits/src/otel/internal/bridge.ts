/**
 * The span bridge: turns core diagnostic events into OpenTelemetry spans as they arrive. A `<name>-start`
 * event with a `spanId` starts a span (its parent: the open span named by `parentSpanId`); the matching
 * `<name>-end` ends it with its outcome; any other event becomes a span event on the span it was emitted
 * in (`parentSpanId`, or else the innermost open span whose scope path encloses the event's).
 */

import type { DiagnosticEvent } from '@agent-core/core'
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api'
import type { OtelSinkStats } from '../otel-sink.js'
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
  readonly spanEvents: boolean
  readonly maxOpenSpans: number
}

/** One open span. */
export interface OpenSpan extends SpanFacts {
  readonly id: string
  readonly span: Span
  /** The context the span started in (its parent's). */
  readonly parentContext: Context
  /** The context children start in: made when the first child starts. */
  context: Context | undefined
  /** The scope path of the start event; the span's own events have `spanName` appended. */
  readonly scope: readonly string[]
  readonly spanName: string
  readonly mapping: SpanMapping
  readonly recording: boolean
  /** The end time of a span made for an orphan end (its times come from the event); else the SDK's clock. */
  readonly endAt?: number
}

export const OUTCOME_UNFINISHED = 'unfinished'

const MAX_CACHED = 256
interface SpanEdge {
  readonly start: boolean
  readonly name: string
  readonly mapping: SpanMapping
}
const edges = new Map<string, SpanEdge | null>()

/** Whether `kind` starts or ends a span (`<name>-start` / `<name>-end`): the span's name and mapping. */
function spanEdge(kind: string): SpanEdge | undefined {
  let edge = edges.get(kind)
  if (edge === undefined) {
    const start = kind.endsWith('-start')
    const name = start ? kind.slice(0, -6) : kind.endsWith('-end') ? kind.slice(0, -4) : undefined
    edge = name === undefined ? null : { start, name, mapping: MAPPINGS.get(name) ?? GENERIC }
    if (edges.size < MAX_CACHED) edges.set(kind, edge)
  }
  return edge ?? undefined
}

const phases = new Map<string, Attributes>()

/** The attributes of a `phase-enter` event (shared: the SDK copies them). */
function phaseAttributes(phase: string): Attributes {
  let attributes = phases.get(phase)
  if (attributes === undefined) {
    attributes = Object.freeze({ 'agent_core.phase': phase })
    if (phases.size < MAX_CACHED) phases.set(phase, attributes)
  }
  return attributes
}
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
  readonly #spanEvents: boolean
  readonly #maxOpen: number
  readonly #open = new Map<string, OpenSpan>()
  readonly #kinds: Readonly<Record<'internal' | 'client' | 'server', number>>
  readonly #active: () => Context
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
    this.#spanEvents = options.spanEvents
    this.#maxOpen = options.maxOpenSpans
    const { SpanKind, context } = options.api
    this.#kinds = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT, server: SpanKind.SERVER }
    this.#active = () => context.active()
  }

  get stats(): OtelSinkStats {
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
        const edge = spanEdge(kind)
        if (edge !== undefined) {
          if (edge.start) this.#start(event, spanId, edge.name, edge.mapping)
          else this.#end(event, spanId, edge.name, edge.mapping)
          return
        }
      }
      if (this.#spanEvents) this.#event(event)
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

  #start(event: DiagnosticEvent, id: string, spanName: string, mapping: SpanMapping): void {
    if (this.#open.has(id) || this.#closed.has(id)) {
      this.#ignored += 1
      return
    }
    if (this.#open.size >= this.#maxOpen) this.#evictOldest()
    // A parent the sink does not know (started before it was attached, or evicted): the scope path decides.
    const parent =
      this.#parentOf(event) ?? (event.parentSpanId === undefined ? undefined : this.#byScope(event.scope))
    const data = event.data as Data
    // Filled key by key from `{}`, not spread from `fixed`: on a spread copy, every attribute `collect` adds
    // took V8's slow path (measured: this alone was half the sink's own time per loop turn).
    const attributes: Attributes = {}
    const { fixed } = mapping
    if (fixed !== undefined) for (const key of Object.keys(fixed)) attributes[key] = fixed[key]
    collect(mapping, data, attributes, this.#recordContent)
    mapping.start?.(data, attributes, event.scope)
    // Where a trace enters agent-core; below it, the tree says where each span sits.
    if (parent === undefined) attributes['agent_core.scope'] = event.scope.join('/')
    const parentContext = parent === undefined ? this.#active() : this.#childContext(parent)
    // No start time: the event is delivered as the work starts, and the SDK's clock has sub-ms precision.
    const span = this.#tracer.startSpan(
      mapping.name(data, spanName),
      { kind: this.#kinds[mapping.kind], attributes },
      parentContext,
    )
    if (parent !== undefined && spanName === 'model-request') parent.inference = true
    this.#open.set(id, {
      id,
      span,
      parentContext,
      context: undefined,
      scope: event.scope,
      spanName,
      mapping,
      recording: span.isRecording(),
      inference: false,
    })
    this.#started += 1
  }

  #childContext(parent: OpenSpan): Context {
    if (parent.context === undefined)
      parent.context = this.#api.trace.setSpan(parent.parentContext, parent.span)
    return parent.context
  }

  #end(event: DiagnosticEvent, id: string, spanName: string, mapping: SpanMapping): void {
    let entry = this.#open.get(id)
    if (entry === undefined) {
      if (this.#closed.delete(id)) return
      entry = this.#orphan(event, id, spanName, mapping)
    }
    this.#open.delete(id)
    const data = event.data as Data
    const outcome = typeof data.outcome === 'string' && OUTCOMES.has(data.outcome) ? data.outcome : 'ok'
    if (entry.recording) {
      const attributes: Attributes = { 'agent_core.outcome': outcome }
      collect(entry.mapping, data, attributes, this.#recordContent)
      entry.mapping.end?.(data, attributes, entry)
      if (outcome !== 'ok') this.#failure(entry.span, outcome, data, attributes)
      entry.span.setAttributes(attributes)
    }
    entry.span.end(entry.endAt)
    this.#ended += 1
  }

  /** Status, `error.type` and the exception event of an end that was not ok. */
  #failure(span: Span, outcome: string, data: Data, attributes: Attributes): void {
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
      span.recordException({ name: code ?? outcome, message: message ?? outcome })
    }
  }

  /** An end whose start was never seen (the sink came later): a span from its duration, marked as such. */
  #orphan(event: DiagnosticEvent, id: string, spanName: string, mapping: SpanMapping): OpenSpan {
    const data = event.data as Data
    const duration = typeof data.durationMs === 'number' && data.durationMs >= 0 ? data.durationMs : 0
    const end = time(event.atMs) ?? Date.now()
    const parent = this.#parentOf(event)
    const parentContext = parent === undefined ? this.#active() : this.#childContext(parent)
    const span = this.#tracer.startSpan(
      mapping.name(data, spanName),
      {
        kind: this.#kinds[mapping.kind],
        attributes: { 'agent_core.scope': event.scope.join('/'), 'agent_core.start_seen': false },
        startTime: end - duration,
      },
      parentContext,
    )
    this.#orphanEnds += 1
    this.#started += 1
    return {
      id,
      span,
      parentContext,
      context: undefined,
      scope: event.scope,
      spanName,
      mapping,
      recording: span.isRecording(),
      inference: false,
      endAt: end,
    }
  }

  #event(event: DiagnosticEvent): void {
    const owner = this.#parentOf(event) ?? this.#byScope(event.scope)
    if (owner === undefined) {
      this.#ignored += 1
      return
    }
    if (!owner.recording) return
    const { kind, level } = event
    const data = event.data as Data
    // The lifecycle's phase marks, many per tool call: one shared attribute set per phase.
    if (kind === 'phase-enter' && level === 'info' && typeof data.phase === 'string') {
      owner.span.addEvent(kind, phaseAttributes(data.phase))
      return
    }
    const attributes: Attributes = {}
    if (level !== 'info' && typeof level === 'string') attributes['agent_core.level'] = level
    collect(EVENT_MAPPING, data, attributes, this.#recordContent)
    owner.span.addEvent(kind, attributes)
  }

  #parentOf(event: DiagnosticEvent): OpenSpan | undefined {
    const { parentSpanId } = event
    return parentSpanId === undefined ? undefined : this.#open.get(parentSpanId)
  }

  /** The innermost open span whose own scope path (start scope plus name) is a prefix of `scope`. */
  #byScope(scope: readonly unknown[]): OpenSpan | undefined {
    let best: OpenSpan | undefined
    for (const entry of this.#open.values()) {
      const own = entry.scope
      const length = own.length + 1
      if (length > scope.length || (best !== undefined && length < best.scope.length + 1)) continue
      let inside = scope[own.length] === entry.spanName
      for (let i = 0; inside && i < own.length; i++) inside = own[i] === scope[i]
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
