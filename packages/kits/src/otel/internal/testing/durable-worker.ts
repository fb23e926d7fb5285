/**
 * A child process for the crash test: runs the order task on a SQLite file with the OpenTelemetry sink;
 * each span that ends is exported at once (SimpleSpanProcessor) as a JSON line on stdout. Inside the
 * `charge` step it prints `{"event":"in-step"}` and waits until the test kills it.
 * Run with `node --import tsx --conditions=@agent-core/source durable-worker.ts <dbPath> <taskId>`.
 */

import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'
import * as otel from '@opentelemetry/api'
import {
  BasicTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base'
import { createOtelSink } from '../../index.js'
import { orderTask, type PrintedSpan } from './order-task.js'

const [dbPath = '', taskId = ''] = process.argv.slice(2)

const print = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`)

const lines: SpanExporter = {
  export(spans: ReadableSpan[], done) {
    for (const span of spans) {
      const printed: PrintedSpan = {
        name: span.name,
        traceId: span.spanContext().traceId,
        spanId: span.spanContext().spanId,
        parentSpanId: span.parentSpanContext?.spanId,
        attributes: { ...span.attributes },
        status: span.status.code,
      }
      print({ event: 'span', span: printed })
    }
    done({ code: 0 })
  },
  shutdown: () => Promise.resolve(),
}

const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(lines)] })
const tracing = createOtelSink({ api: otel, tracerProvider: provider })
const store = createSqliteDurableStore(dbPath, { leaseMs: 400, renewIntervalMs: 100 })
await orderTask(() => {
  print({ event: 'in-step' })
  return new Promise<void>(() => {
    // Never settles: the test kills this process here.
    setInterval(() => {}, 1000)
  })
}).run({ taskId, store, input: { trail: [] } }, { diagnostics: tracing.sink })
