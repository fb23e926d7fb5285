/** Severity of a diagnostic event. */
export type DiagnosticLevel = 'debug' | 'info' | 'warn' | 'error'

/** One structured diagnostic event. */
export interface DiagnosticEvent {
  /** The scope path, outermost first, e.g. `['loop', 'turn-2', 'tools']`. */
  readonly scope: readonly string[]
  /** A noun-verb event name, e.g. `tool-start` or `checkpoint-saved`. */
  readonly kind: string
  readonly level: DiagnosticLevel
  /** Milliseconds since the epoch, from the context's clock. */
  readonly atMs: number
  readonly data: Readonly<Record<string, unknown>>
}

/** Where diagnostic events go. A sink must not throw; if it does, the error is reported once and dropped. */
export type DiagnosticSink = (event: DiagnosticEvent) => void

/**
 * A scoped emitter of diagnostic events. `child(name)` opens a sub-scope whose events carry the longer
 * scope path; emitting never changes control flow.
 */
export interface Diagnostics {
  readonly scope: readonly string[]
  /** True when events are delivered somewhere; lets hot paths skip building event data. */
  readonly enabled: boolean
  emit(kind: string, data?: Readonly<Record<string, unknown>>, level?: DiagnosticLevel): void
  child(name: string): Diagnostics
}

/** Options of {@link createDiagnostics}. */
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

class ScopedDiagnostics implements Diagnostics {
  readonly enabled: boolean
  constructor(
    readonly scope: readonly string[],
    private readonly sink: DiagnosticSink | undefined,
    private readonly now: () => number,
  ) {
    this.enabled = sink !== undefined
    Object.freeze(this.scope)
  }
  emit(kind: string, data: Readonly<Record<string, unknown>> = {}, level: DiagnosticLevel = 'info'): void {
    if (!this.sink) return
    deliver(this.sink, { scope: this.scope, kind, level, atMs: this.now(), data })
  }
  child(name: string): Diagnostics {
    return new ScopedDiagnostics([...this.scope, String(name)], this.sink, this.now)
  }
}

/**
 * Creates a diagnostics emitter.
 * @example
 * ```ts
 * import { createDiagnostics, MemoryDiagnosticSink } from '@agent-core/core'
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

/** A diagnostics emitter that delivers nothing. */
export const silentDiagnostics: Diagnostics = new ScopedDiagnostics([], undefined, Date.now)

/**
 * Collects events in memory, for tests.
 * @example
 * ```ts
 * import { createOperationContext, MemoryDiagnosticSink } from '@agent-core/core'
 * const memory = new MemoryDiagnosticSink()
 * const context = createOperationContext({ app: {}, diagnostics: memory.sink })
 * context.diagnostics.emit('thing-happened')
 * memory.kinds() // ['thing-happened']
 * ```
 */
export class MemoryDiagnosticSink {
  readonly events: DiagnosticEvent[] = []
  /** The sink function to hand to {@link createDiagnostics} or a context. */
  readonly sink: DiagnosticSink = (event) => {
    this.events.push(event)
  }
  /** Event kinds in order, optionally only those under a scope prefix. */
  kinds(scopePrefix: readonly string[] = []): string[] {
    return this.ofScope(scopePrefix).map((e) => e.kind)
  }
  ofKind(kind: string): DiagnosticEvent[] {
    return this.events.filter((e) => e.kind === kind)
  }
  ofScope(scopePrefix: readonly string[]): DiagnosticEvent[] {
    return this.events.filter((e) => scopePrefix.every((part, i) => e.scope[i] === part))
  }
  clear(): void {
    this.events.length = 0
  }
}

/** The environment variable that turns on console diagnostics: `1`/`*` for all, or scope prefixes `loop,durable`. */
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

/** The console sink when `AGENT_CORE_DEBUG` is set and not `0`/`false`; otherwise `undefined` (no output). */
export function consoleDiagnosticSinkFromEnv(): DiagnosticSink | undefined {
  const value = readEnv(DIAGNOSTICS_ENV_VAR)
  if (!value || value === '0' || value === 'false') return undefined
  return consoleDiagnosticSink(value)
}
