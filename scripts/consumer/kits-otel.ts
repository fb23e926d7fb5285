import assert from 'node:assert/strict'
import { defineModelTool } from '@agent-core/core/tools'
import { defineAgent } from '@agent-core/kits/loop'
import { createScriptedModel } from '@agent-core/kits/loop/testing'
import { createOtelSink } from '@agent-core/kits/otel'
import * as otel from '@opentelemetry/api'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const tracing = createOtelSink({ api: otel, tracerProvider: provider })

const weather = defineModelTool<{ city: string }, string>({
  id: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
  execute: ({ city }) => `${city}: 19 °C`,
})
const model = createScriptedModel(
  [{ toolCalls: [{ name: 'get_weather', input: { city: 'Lisbon' } }] }, { text: 'It is 19 °C in Lisbon.' }],
  { identity: 'gpt-4o-mini' },
)
await defineAgent({ model, tools: [weather] }).run(
  { prompt: 'Weather in Lisbon?' },
  { diagnostics: tracing.sink },
)

// The run as a tree of GenAI spans: the tool call nests under its turn, the turn under the run.
const spans = exporter.getFinishedSpans()
const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]))
const parentOf = (name: string) =>
  byId.get(spans.find((span) => span.name === name)?.parentSpanContext?.spanId ?? '')?.name
assert.equal(parentOf('execute_tool get_weather'), 'turn')
assert.equal(parentOf('turn'), 'invoke_agent')
const tool = spans.find((span) => span.name === 'execute_tool get_weather')
assert.equal(tool?.attributes['gen_ai.tool.name'], 'get_weather')
assert.equal(spans.filter((span) => span.name === 'chat gpt-4o-mini').length, 2)
await provider.shutdown()
