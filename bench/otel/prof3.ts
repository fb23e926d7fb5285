import type { DiagnosticSink } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { createScriptedModel, defineAgent, type ScriptedTurn } from '@agent-core/kits/loop'
import { createOtelSink } from '@agent-core/kits/otel'
import * as otel from '@opentelemetry/api'
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter, NoopSpanProcessor } from '@opentelemetry/sdk-trace-base'
const noop = defineModelTool<Record<string, never>, string>({ id: 'noop', description: 'x', inputSchema: { type: 'object' }, execute: () => 'ok' })
const script: ScriptedTurn[] = [...Array.from({ length: 9 }, () => ({ toolCalls: [{ name: 'noop', input: {} }] })), { text: 'done' }]
const exp = new InMemorySpanExporter()
const p = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exp, { maxQueueSize: 10000, scheduledDelayMillis: 1000 })] })
const pn = new BasicTracerProvider({ spanProcessors: [] })
const sinks: Record<string, DiagnosticSink | undefined> = {
  off: undefined, drop: () => {},
  nonrec: createOtelSink({ api: otel, tracer: otel.trace.getTracerProvider().getTracer('x') }).sink,
  noproc: createOtelSink({ api: otel, tracerProvider: pn }).sink,
  batch: createOtelSink({ api: otel, tracerProvider: p }).sink,
}
const agent = defineAgent({ model: createScriptedModel(script), tools: [noop], maxTurns: 11 })
const res: Record<string, number[]> = Object.fromEntries(Object.keys(sinks).map((k) => [k, []]))
for (let r = 0; r < 40; r++) for (const [k, s] of r % 2 ? Object.entries(sinks).reverse() : Object.entries(sinks)) {
  const t0 = process.cpuUsage()
  for (let i = 0; i < 20; i++) await defineAgent({ model: createScriptedModel(script), tools: [noop], maxTurns: 11 }).run({ prompt: 'go' }, s === undefined ? {} : { diagnostics: s })
  const u = process.cpuUsage(t0); res[k]!.push((u.user + u.system) / 200)
  await p.forceFlush(); exp.reset()
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!
console.log(Object.entries(res).map(([k, v]) => `${k} ${med(v).toFixed(1)}`).join('  '))
