import {
  assertObject,
  assertSafeInteger,
  type ChatModel,
  type DiagnosticSink,
  describeValue,
  type ModelRequest,
  ModelStreamAccumulator,
  type ModelStreamEvent,
  type OperationContext,
  refuseField,
} from '@agent-core/core'
import type * as OpenTelemetry from '@opentelemetry/api'
import { contentValue, type OpenSpan, SpanBridge } from './internal/bridge.js'
import { contentMessage, outputMessage } from './internal/content.js'
import { ATTR_GEN_AI_INPUT_MESSAGES, ATTR_GEN_AI_OUTPUT_MESSAGES } from './internal/semconv.js'

/**
 * The parts of the `@opentelemetry/api` module the sink uses: pass the module itself
 * (`import * as otel from '@opentelemetry/api'`).
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api'
 * import type { OpenTelemetryApi } from '@agent-core/kits/otel'
 * const api: OpenTelemetryApi = otel
 * ```
 */
export type OpenTelemetryApi = Pick<typeof OpenTelemetry, 'trace' | 'context' | 'SpanKind' | 'SpanStatusCode'>

/**
 * Options of {@link createOtelSink}.
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api'
 * import type { OtelSinkOptions } from '@agent-core/kits/otel'
 * const options: OtelSinkOptions = { api: otel, recordContent: process.env.TRACE_CONTENT === '1' }
 * ```
 */
export interface OtelSinkOptions {
  /** The OpenTelemetry API module (`import * as otel from '@opentelemetry/api'`). */
  readonly api: OpenTelemetryApi
  /** The tracer spans are made with. Default: `tracerProvider.getTracer('@agent-core/kits/otel')`. */
  readonly tracer?: OpenTelemetry.Tracer | undefined
  /** Where the default tracer comes from. Default: the global provider (`api.trace.getTracerProvider()`). */
  readonly tracerProvider?: OpenTelemetry.TracerProvider | undefined
  /**
   * Records message content (`gen_ai.input.messages`, `gen_ai.output.messages` through
   * {@link OtelSink.traceModel}, and content fields of span data such as a retrieval's key). Default
   * `false`: prompts, replies and queries often hold personal data, so they leave the process only when
   * the App says so.
   */
  readonly recordContent?: boolean | undefined
  /**
   * Whether events other than span starts and ends become span events (the tools lifecycle's phases,
   * checkpoints, retries...). Default `true`; `false` keeps only the spans (and their exception events),
   * for high-volume services where the span tree is enough.
   */
  readonly spanEvents?: boolean | undefined
  /**
   * How many spans may be open at once (default 10000). Past it the oldest open span is ended as
   * `unfinished`, so work that never ends (a stream its consumer dropped) cannot grow memory forever.
   */
  readonly maxOpenSpans?: number | undefined
}

/**
 * What the sink has done so far: counters for tests and health checks.
 * @example
 * ```ts
 * import type { OtelSinkStats } from '@agent-core/kits/otel'
 * const healthy = (stats: OtelSinkStats) => stats.open < 1000 && stats.ignored === 0
 * ```
 */
export interface OtelSinkStats {
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

/**
 * A diagnostics sink that turns agent-core spans into OpenTelemetry spans. Hand {@link OtelSink.sink} to
 * a context (`{ diagnostics: otel.sink }`); call {@link OtelSink.endOpenSpans} before shutting the tracer
 * provider down.
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api'
 * import { createOtelSink } from '@agent-core/kits/otel'
 * const tracing = createOtelSink({ api: otel })
 * const context = { diagnostics: tracing.sink }
 * ```
 */
export interface OtelSink {
  /**
   * The diagnostics sink; `undefined` when tracing is off (see {@link loadOtelSink}), so that a context
   * given `{ diagnostics: sink }` builds no event data at all.
   */
  readonly sink: DiagnosticSink | undefined
  /** True when events become spans. */
  readonly enabled: boolean
  /** Whether message content is recorded ({@link OtelSinkOptions.recordContent}). */
  readonly recordContent: boolean
  /** Counters: open spans, spans started and ended, unfinished, orphan ends, ignored events. */
  readonly stats: OtelSinkStats
  /**
   * Wraps a chat model so that each call records its input messages and its reply on the span it runs
   * in (the loop's, `ModelCalls`' or `generateStructured`'s `model-call` span), as `gen_ai.input.messages`
   * and `gen_ai.output.messages`. Returns `model` itself when content is not recorded or tracing is off.
   */
  traceModel<App>(model: ChatModel<App>): ChatModel<App>
  /**
   * Ends every span still open with the outcome `unfinished` (status error, `agent_core.outcome`
   * `unfinished`, the reason as the status description); returns how many. Call it before
   * `provider.shutdown()`: a span that never ends is never exported. A late end event for such a span is
   * ignored.
   */
  endOpenSpans(reason?: string): number
}

const DEFAULT_MAX_OPEN = 10_000
const TRACER_NAME = '@agent-core/kits/otel'

function readBoolean(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined) return fallback
  if (typeof value !== 'boolean') {
    refuseField('input', field, `must be true or false, but got ${describeValue(value)}`, value)
  }
  return value
}

function hasFunctions(value: unknown, names: readonly string[]): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false
  return names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')
}

function checkApi(api: unknown): OpenTelemetryApi {
  const ok =
    typeof api === 'object' &&
    api !== null &&
    hasFunctions((api as OpenTelemetryApi).trace, ['setSpan', 'getTracerProvider']) &&
    hasFunctions((api as OpenTelemetryApi).context, ['active']) &&
    typeof (api as OpenTelemetryApi).SpanKind === 'object' &&
    typeof (api as OpenTelemetryApi).SpanStatusCode === 'object'
  if (!ok) {
    refuseField(
      'input',
      'options.api',
      `must be the @opentelemetry/api module (import * as otel from '@opentelemetry/api'), but got ${describeValue(api)}. Pass the module, or use loadOtelSink() to import it`,
      api,
    )
  }
  return api as OpenTelemetryApi
}

interface CheckedOptions {
  readonly tracer: OpenTelemetry.Tracer | undefined
  readonly tracerProvider: OpenTelemetry.TracerProvider | undefined
  readonly recordContent: boolean
  readonly spanEvents: boolean
  readonly maxOpenSpans: number
}

function checkOptions(options: Omit<OtelSinkOptions, 'api'>): CheckedOptions {
  const { tracer, tracerProvider, recordContent, spanEvents, maxOpenSpans } = options
  if (tracer !== undefined && !hasFunctions(tracer, ['startSpan'])) {
    refuseField(
      'input',
      'options.tracer',
      `must be an OpenTelemetry Tracer (provider.getTracer(name)), but got ${describeValue(tracer)}`,
      tracer,
    )
  }
  if (tracerProvider !== undefined && !hasFunctions(tracerProvider, ['getTracer'])) {
    refuseField(
      'input',
      'options.tracerProvider',
      `must be an OpenTelemetry TracerProvider, but got ${describeValue(tracerProvider)}`,
      tracerProvider,
    )
  }
  if (tracer !== undefined && tracerProvider !== undefined) {
    refuseField(
      'input',
      'options.tracerProvider',
      'were both given; pass one (a tracer, or the provider to get it from)',
      tracerProvider,
      { prefix: 'options.tracer and ' },
    )
  }
  if (maxOpenSpans !== undefined) assertSafeInteger(maxOpenSpans, 'options.maxOpenSpans', { min: 1 })
  return {
    tracer,
    tracerProvider,
    recordContent: readBoolean(recordContent, 'options.recordContent', false),
    spanEvents: readBoolean(spanEvents, 'options.spanEvents', true),
    maxOpenSpans: maxOpenSpans ?? DEFAULT_MAX_OPEN,
  }
}

class TracingSink implements OtelSink {
  readonly sink: DiagnosticSink
  readonly enabled = true
  readonly recordContent: boolean
  readonly #bridge: SpanBridge

  constructor(api: OpenTelemetryApi, options: CheckedOptions) {
    const tracer =
      options.tracer ?? (options.tracerProvider ?? api.trace.getTracerProvider()).getTracer(TRACER_NAME)
    this.recordContent = options.recordContent
    this.#bridge = new SpanBridge({
      api,
      tracer,
      recordContent: options.recordContent,
      spanEvents: options.spanEvents,
      maxOpenSpans: options.maxOpenSpans,
    })
    this.sink = this.#bridge.handle
  }

  get stats(): OtelSinkStats {
    return this.#bridge.stats
  }

  endOpenSpans(reason = 'the sink was closed before the span ended'): number {
    return this.#bridge.endAll(String(reason))
  }

  traceModel<App>(model: ChatModel<App>): ChatModel<App> {
    checkModel(model)
    if (!this.recordContent) return model
    const bridge = this.#bridge
    const spanOf = (context: OperationContext<App> | undefined) =>
      bridge.spanOf((context as { diagnostics?: { spanId?: unknown } } | undefined)?.diagnostics?.spanId)
    const traced: ChatModel<App> = {
      identity: model.identity,
      async generate(request, context) {
        const span = spanOf(context)
        recordInput(span, request)
        const response = await model.generate(request, context)
        if (span?.recording) {
          const output = safely(() => contentValue([outputMessage(response)]))
          if (output !== undefined) span.span.setAttribute(ATTR_GEN_AI_OUTPUT_MESSAGES, output)
        }
        return response
      },
    }
    const stream = model.stream
    if (typeof stream === 'function') {
      traced.stream = (request, context) => {
        const span = spanOf(context)
        recordInput(span, request)
        const events = stream.call(model, request, context)
        return span?.recording ? foldInto(span, events) : events
      }
    }
    return Object.freeze(traced)
  }
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}

function recordInput(span: OpenSpan | undefined, request: ModelRequest): void {
  if (!span?.recording) return
  const input = safely(() => contentValue(request.messages.map(contentMessage)))
  if (input !== undefined) span.span.setAttribute(ATTR_GEN_AI_INPUT_MESSAGES, input)
}

async function* foldInto(
  span: OpenSpan,
  events: AsyncIterable<ModelStreamEvent>,
): AsyncGenerator<ModelStreamEvent> {
  // The stream's one fold, core's accumulator, as the loop and the adapters use it.
  const fold = new ModelStreamAccumulator()
  let readable = true
  for await (const event of events) {
    if (readable) {
      try {
        fold.add(event)
      } catch {
        // The model yielded something that is not a stream event: the consumer will say so; stop folding.
        readable = false
      }
    }
    yield event
  }
  if (readable && fold.finish !== undefined) {
    const output = safely(() => contentValue([outputMessage(fold.response())]))
    if (output !== undefined) span.span.setAttribute(ATTR_GEN_AI_OUTPUT_MESSAGES, output)
  }
}

function checkModel(model: unknown): void {
  if (!hasFunctions(model, ['generate']) || typeof (model as { identity?: unknown }).identity !== 'string') {
    refuseField(
      'input',
      'model',
      `must be a core ChatModel ({ identity, generate, stream? }), but got ${describeValue(model)}`,
      model,
      { prefix: 'traceModel: ' },
    )
  }
}

class SilentSink implements OtelSink {
  readonly sink = undefined
  readonly enabled = false
  readonly recordContent = false
  readonly stats: OtelSinkStats = Object.freeze({
    open: 0,
    started: 0,
    ended: 0,
    unfinished: 0,
    orphanEnds: 0,
    ignored: 0,
  })
  traceModel<App>(model: ChatModel<App>): ChatModel<App> {
    checkModel(model)
    return model
  }
  endOpenSpans(): number {
    return 0
  }
}

/**
 * Creates the OpenTelemetry diagnostics sink over the API module the App passes in. Each agent-core span
 * becomes an OpenTelemetry span, nested by `parentSpanId` (a span without one nests under the span
 * active in the OpenTelemetry context, if any); plain events become span events. Attributes follow the
 * GenAI semantic conventions: runs are `invoke_agent` spans, model calls `chat {model}`, tool calls
 * `execute_tool {tool}`, retrievals `retrieval {id}`, with token usage, finish reasons, tool names and
 * call ids; durable tasks, attempts, steps and turns carry `agent_core.*` attributes. A failed span has
 * status error, `error.type`, `agent_core.error.code` and an exception event; `agent_core.outcome` and the
 * status description (`aborted: ...`, `timeout: ...`) tell cancellation and time limits from errors.
 *
 * @param options - the API module, optionally the tracer (or provider), content recording and the open-span cap
 * @throws `InvalidInputError` for options that are not what they should be
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api'
 * import { createOperationContext } from '@agent-core/core'
 * import { createOtelSink } from '@agent-core/kits/otel'
 *
 * const tracing = createOtelSink({ api: otel })
 * const context = createOperationContext({ diagnostics: tracing.sink })
 * const span = context.diagnostics.span('tool-call', { toolId: 'search', toolCallId: 'call_1' })
 * span.end('ok')
 * ```
 */
export function createOtelSink(options: OtelSinkOptions): OtelSink {
  assertObject(options, 'options')
  const api = checkApi(options.api)
  return new TracingSink(api, checkOptions(options))
}

/** True for the error an import throws when the package is not installed. */
function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : ''
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes('@opentelemetry/api')
  )
}

/**
 * Imports `@opentelemetry/api` and creates the sink ({@link createOtelSink}); when the package is not
 * installed, resolves to a sink that is off (`sink` undefined, `enabled` false), so that tracing stays an
 * optional dependency. Any other failure to load the package (a broken install) is thrown.
 *
 * @param options - as for {@link createOtelSink}, without `api`
 * @throws `InvalidInputError` for malformed options
 * @example
 * ```ts
 * import { createOperationContext } from '@agent-core/core'
 * import { loadOtelSink } from '@agent-core/kits/otel'
 *
 * const tracing = await loadOtelSink()
 * const context = createOperationContext({ diagnostics: tracing.sink })
 * tracing.enabled // false when @opentelemetry/api is not installed
 * ```
 */
export async function loadOtelSink(options: Omit<OtelSinkOptions, 'api'> = {}): Promise<OtelSink> {
  assertObject(options, 'options')
  if ('api' in options) {
    refuseField(
      'input',
      'options.api',
      'is not taken here: loadOtelSink imports @opentelemetry/api itself; to pass the module, call createOtelSink({ api }) instead',
      (options as { api?: unknown }).api,
      { prefix: 'loadOtelSink: ' },
    )
  }
  const checked = checkOptions(options)
  let api: OpenTelemetryApi
  try {
    api = await import('@opentelemetry/api')
  } catch (error) {
    if (isMissing(error)) return new SilentSink()
    throw error
  }
  return new TracingSink(checkApi(api), checked)
}
