/**
 * A child process for the "absent" test, run with `hide-otel-api.mjs`: imports the otel subpath as an App
 * would and prints what `loadOtelSink` gave as one JSON line.
 */
import { AgentCoreError, createOperationContext } from '@agent-core/core'

const print = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`)

let direct = 'loaded'
try {
  await import('@opentelemetry/api')
} catch (error) {
  direct = String((error as { code?: unknown }).code ?? (error as Error).name)
}
const kit = await import('@agent-core/kits/otel')
try {
  const tracing = await kit.loadOtelSink({ recordContent: true })
  const context = createOperationContext({ diagnostics: tracing.sink })
  const span = context.diagnostics.span('run', { runId: 'r' })
  span.end('ok')
  const model = { identity: 'm', generate: () => Promise.reject(new Error('unused')) }
  print({
    direct,
    enabled: tracing.enabled,
    sink: typeof tracing.sink,
    diagnosticsEnabled: context.diagnostics.enabled,
    sameModel: tracing.traceModel(model) === model,
    closed: tracing.endOpenSpans(),
    stats: tracing.stats,
  })
} catch (error) {
  print({ direct, rejected: AgentCoreError.isInstance(error) ? error.code : (error as Error).name })
}
