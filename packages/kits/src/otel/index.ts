/**
 * Traces: agent-core diagnostics as OpenTelemetry spans, following the GenAI semantic conventions. A
 * diagnostics sink turns the kits' spans (agent runs, turns, model calls and HTTP model requests, tool
 * calls with their lifecycle phases as span events, durable tasks, attempts and steps, retrievals, MCP
 * calls) into spans of the App's tracer, nested by span id, with token usage, errors by agent-core code,
 * and cancellation and timeouts told apart. `@opentelemetry/api` is an optional peer dependency: pass the
 * module to {@link createOtelSink}, or let {@link loadOtelSink} import it (tracing is off when it is not
 * installed). Message content is recorded only when the App opts in.
 *
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api'
 * import { createOtelSink } from '@agent-core/kits/otel'
 * import type { Agent } from '@agent-core/kits/loop'
 * declare const agent: Agent
 *
 * const tracing = createOtelSink({ api: otel })
 * const result = await agent.run({ prompt: 'Hello' }, { diagnostics: tracing.sink })
 * tracing.endOpenSpans()
 * ```
 *
 * @module
 */
export {
  createOtelSink,
  loadOtelSink,
  type OpenTelemetryApi,
  type OtelSink,
  type OtelSinkOptions,
  type OtelSinkStats,
} from './otel-sink.js'
