import { MemoryDiagnosticSink as TestingMemoryDiagnosticSink } from '@agent-core/core/testing'
import { AbortedError, TimeoutError } from './errors/errors.js'

/**
 * Severity of a diagnostic event.
 * @example
 * ```ts
 * import { createDiagnostics, type DiagnosticLevel } from '@agent-core/core'
 * const level: DiagnosticLevel = 'warn'
 * createDiagnostics().emit('lease-waited', { taskId: 't1' }, level)
 * ```
 */
export type DiagnosticLevel = 'debug' | 'info' | 'warn' | 'error'

/**
 * One structured diagnostic event, as a sink receives it.
 * @example
 * ```ts
 * import { createDiagnostics, type DiagnosticEvent } from '@agent-core/core'
 * const seen: DiagnosticEvent[] = []
 * createDiagnostics({ sink: (event) => seen.push(event), scope: ['loop'] }).emit('turn-start', { turn: 1 })
 * seen[0]?.kind // 'turn-start'
 * ```
 */
export interface DiagnosticEvent {
  /** The scope path, outermost first, e.g. `['loop', 'turn-2', 'tools']`. */
  readonly scope: readonly string[]
  /** A noun-verb event name, e.g. `tool-start` or `checkpoint-saved`. */
  readonly kind: string
  readonly level: DiagnosticLevel
  /** Milliseconds since the epoch, from the context's clock. */
  readonly atMs: number
  readonly data: Readonly<Record<string, unknown>>
  /** The span this event starts, ends or belongs to (see {@link Diagnostics.span}). */
  readonly spanId?: string | undefined
  /** The span that encloses {@link DiagnosticEvent.spanId} (or, for a plain event, the span it was emitted in). */
  readonly parentSpanId?: string | undefined
}

/**
 * How a span ended: `ok`, a failure, a cancellation or a time limit.
 * @example
 * ```ts
 * import { createDiagnostics, type SpanOutcome } from '@agent-core/core'
 * const outcome: SpanOutcome = 'ok'
 * createDiagnostics().span('retrieval').end(outcome, { hits: 3 })
 * ```
 */
export type SpanOutcome = 'ok' | 'error' | 'aborted' | 'timeout'

/**
 * One unit of work with exactly one start and one end event. `span(name)` emits `<name>-start`; the first
 * {@link DiagnosticSpan.end} emits `<name>-end` with the outcome and the duration, and later calls are
 * ignored, so a `finally` can end a span that a `catch` already ended.
 * @example
 * ```ts
 * import { createOperationContext } from '@agent-core/core'
 * const context = createOperationContext()
 * const span = context.diagnostics.span('tool-call', { toolId: 'search' })
 * try {
 *   // hand span.diagnostics to the work inside: { ...context, diagnostics: span.diagnostics }
 *   span.end('ok', { hits: 3 })
 * } catch (error) {
 *   span.fail(error)
 *   throw error
 * }
 * ```
 */
export interface DiagnosticSpan {
  /** Unique within the process; empty when diagnostics are disabled. */
  readonly id: string
  /** A child scope named after the span whose events (and child spans) carry this span as their parent. */
  readonly diagnostics: Diagnostics
  /** True once the end event was emitted. */
  readonly ended: boolean
  /**
   * Emits the end event (`data` merged with `outcome`, `durationMs` and, for an error, `errorCode` and
   * `errorMessage`). Only the first call counts.
   */
  end(outcome: SpanOutcome, data?: Readonly<Record<string, unknown>>, error?: unknown): void
  /** Ends the span with the outcome {@link spanOutcomeOf} derives from `error`. */
  fail(error: unknown, data?: Readonly<Record<string, unknown>>): void
}

/**
 * Where diagnostic events go. A sink must not throw; if it does, the error is reported once and dropped.
 * @example
 * ```ts
 * import { createDiagnostics, type DiagnosticSink } from '@agent-core/core'
 * const toStderr: DiagnosticSink = (event) => process.stderr.write(`${event.scope.join('/')} ${event.kind}\n`)
 * const diagnostics = createDiagnostics({ sink: toStderr })
 * ```
 */
export type DiagnosticSink = (event: DiagnosticEvent) => void

/**
 * A scoped emitter of diagnostic events. `child(name)` opens a sub-scope whose events carry the longer
 * scope path; emitting never changes control flow.
 * @example
 * ```ts
 * import { createDiagnostics } from '@agent-core/core'
 * import { MemoryDiagnosticSink } from '@agent-core/core/testing'
 * const memory = new MemoryDiagnosticSink()
 * const diagnostics = createDiagnostics({ sink: memory.sink, scope: ['loop'] })
 * diagnostics.child('tools').emit('tool-start', { toolId: 'search' })
 * memory.events[0]?.scope // ['loop', 'tools']
 * ```
 */
export interface Diagnostics {
  readonly scope: readonly string[]
  /** True when events are delivered somewhere; lets hot paths skip building event data. */
  readonly enabled: boolean
  /** The span this emitter's events belong to, when it was opened by {@link Diagnostics.span}. */
  readonly spanId?: string | undefined
  emit(kind: string, data?: Readonly<Record<string, unknown>>, level?: DiagnosticLevel): void
  child(name: string): Diagnostics
  /**
   * Starts a span: emits `<name>-start` now and `<name>-end` when the span ends. Spans nest through
   * {@link DiagnosticSpan.diagnostics}: hand that to the work inside the span (for example in a
   * `childContext`), so that parallel work under one scope path still forms a tree.
   */
  span(name: string, data?: Readonly<Record<string, unknown>>): DiagnosticSpan
}

/**
 * Options of {@link createDiagnostics}.
 * @example
 * ```ts
 * import { createDiagnostics, type CreateDiagnosticsOptions } from '@agent-core/core'
 * import { MemoryDiagnosticSink } from '@agent-core/core/testing'
 * const memory = new MemoryDiagnosticSink()
 * const options: CreateDiagnosticsOptions = { sink: memory.sink, scope: ['durable'], now: () => 0 }
 * const diagnostics = createDiagnostics(options)
 * ```
 */
export interface CreateDiagnosticsOptions {
  /** Where events go. Default: the console sink when `AGENT_CORE_DEBUG` is set, otherwise nowhere. */
  readonly sink?: DiagnosticSink | undefined
  readonly scope?: readonly string[]
  /** Clock for `atMs`. Default `Date.now`. */
  readonly now?: () => number
}

const failedSinks = new WeakSet<DiagnosticSink>()

function deliver(sink: DiagnosticSink, event: DiagnosticEvent): void {
  try {
    sink(event)
  } catch (error) {
    if (!failedSinks.has(sink)) {
      failedSinks.add(sink)
      console.error('[agent-core] a diagnostics sink threw; its later errors are ignored', error)
    }
  }
}

let spanCounter = 0
const SPAN_PREFIX = Math.random().toString(36).slice(2, 8)

/**
 * The outcome a failure means for a span: `aborted` for an {@link AbortedError}, `timeout` for a
 * {@link TimeoutError} (also when either arrives as an abort reason), otherwise `error`.
 * @example
 * ```ts
 * import { AbortedError, spanOutcomeOf } from '@agent-core/core'
 * spanOutcomeOf(new AbortedError('stopped')) // 'aborted'
 * ```
 */
export function spanOutcomeOf(error: unknown): Exclude<SpanOutcome, 'ok'> {
  const code = (error as { code?: unknown } | null | undefined)?.code
  if (AbortedError.isInstance(error) || code === 'aborted') return 'aborted'
  if (TimeoutError.isInstance(error) || code === 'timeout') return 'timeout'
  return 'error'
}

function errorFields(error: unknown): Record<string, unknown> {
  if (error === undefined) return {}
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  return { ...(typeof code === 'string' ? { errorCode: code } : {}), errorMessage: message }
}

const MAX_QUIET_CHILDREN = 64

class ScopedDiagnostics implements Diagnostics {
  readonly enabled: boolean
  constructor(
    readonly scope: readonly string[],
    private readonly sink: DiagnosticSink | undefined,
    private readonly now: () => number,
    readonly spanId?: string | undefined,
  ) {
    this.enabled = sink !== undefined
    Object.freeze(this.scope)
  }
  emit(kind: string, data: Readonly<Record<string, unknown>> = {}, level: DiagnosticLevel = 'info'): void {
    if (!this.sink) return
    deliver(this.sink, {
      scope: this.scope,
      kind,
      level,
      atMs: this.now(),
      data,
      ...(this.spanId === undefined ? {} : { parentSpanId: this.spanId }),
    })
  }
  child(name: string): Diagnostics {
    return new ScopedDiagnostics([...this.scope, String(name)], this.sink, this.now, this.spanId)
  }
  span(name: string, data: Readonly<Record<string, unknown>> = {}): DiagnosticSpan {
    return new Span(this, String(name), data)
  }
  /** Emits a span's own start or end event (its id as `spanId`, the enclosing span as `parentSpanId`). */
  emitSpanEvent(
    kind: string,
    spanId: string,
    data: Readonly<Record<string, unknown>>,
    level: DiagnosticLevel,
  ) {
    if (!this.sink) return
    deliver(this.sink, {
      scope: this.scope,
      kind,
      level,
      atMs: this.now(),
      data,
      spanId,
      ...(this.spanId === undefined ? {} : { parentSpanId: this.spanId }),
    })
  }
  nowMs(): number {
    return this.now()
  }
  /**
   * The scope of a span while diagnostics are off: the same (immutable) child for the same name, so a span
   * that records nothing copies and freezes no scope path. Bounded: span names are few, but not fixed.
   */
  quietSpanScope(name: string): Diagnostics {
    let children = this.#quietChildren
    if (children === undefined) {
      children = new Map()
      this.#quietChildren = children
    }
    let child = children.get(name)
    if (child === undefined) {
      child = this.child(name)
      if (children.size < MAX_QUIET_CHILDREN) children.set(name, child)
    }
    return child
  }
  #quietChildren: Map<string, Diagnostics> | undefined
  withSpan(name: string, spanId: string): ScopedDiagnostics {
    return new ScopedDiagnostics([...this.scope, name], this.sink, this.now, spanId)
  }
}

class Span implements DiagnosticSpan {
  readonly id: string
  readonly diagnostics: Diagnostics
  #ended = false
  readonly #owner: ScopedDiagnostics
  readonly #name: string
  readonly #startedAtMs: number

  constructor(owner: ScopedDiagnostics, name: string, data: Readonly<Record<string, unknown>>) {
    this.#owner = owner
    this.#name = name
    if (!owner.enabled) {
      this.id = ''
      this.diagnostics = owner.quietSpanScope(name)
      this.#startedAtMs = 0
      return
    }
    spanCounter += 1
    this.id = `${SPAN_PREFIX}-${spanCounter.toString(36)}`
    this.diagnostics = owner.withSpan(name, this.id)
    this.#startedAtMs = owner.nowMs()
    owner.emitSpanEvent(`${name}-start`, this.id, data, 'info')
  }

  get ended(): boolean {
    return this.#ended
  }

  end(outcome: SpanOutcome, data: Readonly<Record<string, unknown>> = {}, error?: unknown): void {
    if (this.#ended) return
    this.#ended = true
    if (!this.#owner.enabled) return
    const durationMs = this.#owner.nowMs() - this.#startedAtMs
    this.#owner.emitSpanEvent(
      `${this.#name}-end`,
      this.id,
      { ...data, ...errorFields(error), outcome, durationMs },
      outcome === 'ok' ? 'info' : outcome === 'error' ? 'error' : 'warn',
    )
  }

  fail(error: unknown, data?: Readonly<Record<string, unknown>>): void {
    this.end(spanOutcomeOf(error), data, error)
  }
}

/**
 * Creates a diagnostics emitter.
 * @example
 * ```ts
 * import { createDiagnostics } from '@agent-core/core'
 * import { MemoryDiagnosticSink } from '@agent-core/core/testing'
 * const sink = new MemoryDiagnosticSink()
 * const diagnostics = createDiagnostics({ sink: sink.sink })
 * diagnostics.child('loop').emit('turn-start', { turn: 1 })
 * sink.events[0]?.scope // ['loop']
 * ```
 */
export function createDiagnostics(options: CreateDiagnosticsOptions = {}): Diagnostics {
  const sink = 'sink' in options ? options.sink : consoleDiagnosticSinkFromEnv()
  return new ScopedDiagnostics([...(options.scope ?? [])], sink, options.now ?? Date.now)
}

/**
 * A diagnostics emitter that delivers nothing (its spans are no-ops too).
 * @example
 * ```ts
 * import { createOperationContext, silentDiagnostics } from '@agent-core/core'
 * const quiet = createOperationContext({ diagnostics: silentDiagnostics })
 * quiet.diagnostics.enabled // false
 * ```
 */
export const silentDiagnostics: Diagnostics = new ScopedDiagnostics([], undefined, Date.now)

/**
 * Collects diagnostic events in memory, for tests: the same class as `MemoryDiagnosticSink` of
 * `@agent-core/core/testing`, still exported here for one release.
 * @deprecated Import `MemoryDiagnosticSink` from `@agent-core/core/testing`; this export is removed in the
 *   next release.
 * @example
 * ```ts
 * import { MemoryDiagnosticSink } from '@agent-core/core'
 * const memory = new MemoryDiagnosticSink()
 * memory.kinds() // []
 * ```
 */
export const MemoryDiagnosticSink: typeof TestingMemoryDiagnosticSink = TestingMemoryDiagnosticSink
/**
 * An instance of the deprecated root export {@link MemoryDiagnosticSink}.
 * @deprecated Import `MemoryDiagnosticSink` from `@agent-core/core/testing`; this export is removed in the
 *   next release.
 * @example
 * ```ts
 * import type { MemoryDiagnosticSink } from '@agent-core/core'
 * declare const memory: MemoryDiagnosticSink
 * memory.kinds()
 * ```
 */
export type MemoryDiagnosticSink = TestingMemoryDiagnosticSink

/**
 * The environment variable that turns on console diagnostics: `1`/`*` for all, or scope prefixes `loop,durable`.
 * @example
 * ```ts
 * import { DIAGNOSTICS_ENV_VAR } from '@agent-core/core'
 * // AGENT_CORE_DEBUG=durable node app.js
 * console.log(`set ${DIAGNOSTICS_ENV_VAR}=durable to see the durable kit's events`)
 * ```
 */
export const DIAGNOSTICS_ENV_VAR = 'AGENT_CORE_DEBUG'

function readEnv(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  return env?.[name]
}

/**
 * A sink that prints events to `console.error`, one line each, for the scopes named in `filter`
 * (comma-separated scope prefixes; `*` or `1` for all).
 * @example
 * ```ts
 * import { consoleDiagnosticSink, createDiagnostics } from '@agent-core/core'
 * const diagnostics = createDiagnostics({ sink: consoleDiagnosticSink('durable') })
 * ```
 */
export function consoleDiagnosticSink(filter = '*'): DiagnosticSink {
  const prefixes = filter
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
  const all = prefixes.some((p) => p === '*' || p === '1' || p === 'true')
  return (event) => {
    const path = event.scope.join('/')
    if (!all && !prefixes.some((p) => path === p || path.startsWith(`${p}/`))) return
    console.error(
      `[agent-core] ${new Date(event.atMs).toISOString()} ${event.level} ${path || '-'} ${event.kind} ${safeJson(event.data)}`,
    )
  }
}

function safeJson(data: unknown): string {
  try {
    return JSON.stringify(data) ?? ''
  } catch {
    return '[unserializable data]'
  }
}

/**
 * The console sink when `AGENT_CORE_DEBUG` is set and not `0`/`false`; otherwise `undefined` (no output).
 * @example
 * ```ts
 * import { consoleDiagnosticSinkFromEnv, createDiagnostics } from '@agent-core/core'
 * const diagnostics = createDiagnostics({ sink: consoleDiagnosticSinkFromEnv() })
 * ```
 */
export function consoleDiagnosticSinkFromEnv(): DiagnosticSink | undefined {
  const value = readEnv(DIAGNOSTICS_ENV_VAR)
  if (!value || value === '0' || value === 'false') return undefined
  return consoleDiagnosticSink(value)
}
