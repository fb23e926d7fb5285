/**
 * Spans through the OTLP/HTTP exporter (`@opentelemetry/exporter-trace-otlp-http`, JSON encoding) to a
 * receiver on loopback started here: a node:http server that decodes each export request.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { defineModelTool } from '@agent-core/core/tools'
import { createScriptedModel, defineAgent } from '@agent-core/kits/loop'
import * as otel from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { afterEach, describe, expect, it } from 'vitest'
import { createOtelSink } from './index.js'

/** An attribute as OTLP/JSON encodes it. */
interface OtlpAttribute {
  readonly key: string
  readonly value: {
    readonly stringValue?: string
    readonly intValue?: string | number
    readonly doubleValue?: number
    readonly boolValue?: boolean
    readonly arrayValue?: { readonly values: OtlpAttribute['value'][] }
  }
}
interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: OtlpAttribute[]
  readonly events?: { readonly name: string; readonly attributes: OtlpAttribute[] }[]
  readonly status?: { readonly code?: number; readonly message?: string }
}
interface ExportRequest {
  readonly resourceSpans: {
    readonly resource: { readonly attributes: OtlpAttribute[] }
    readonly scopeSpans: { readonly scope: { readonly name: string }; readonly spans: OtlpSpan[] }[]
  }[]
}

/** A minimal OTLP/HTTP trace receiver: POST /v1/traces with a JSON body. */
async function startReceiver() {
  const requests: { contentType: string | undefined; body: ExportRequest }[] = []
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end()
        return
      }
      requests.push({
        contentType: request.headers['content-type'],
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest,
      })
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    requests,
    spans: () =>
      requests.flatMap((r) => r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

function value(attribute: OtlpAttribute['value']): unknown {
  if (attribute.stringValue !== undefined) return attribute.stringValue
  if (attribute.intValue !== undefined) return Number(attribute.intValue)
  if (attribute.doubleValue !== undefined) return attribute.doubleValue
  if (attribute.boolValue !== undefined) return attribute.boolValue
  if (attribute.arrayValue !== undefined) return attribute.arrayValue.values.map(value)
  return undefined
}
const attributesOf = (span: OtlpSpan) =>
  Object.fromEntries(span.attributes.map((attribute) => [attribute.key, value(attribute.value)]))

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('OTLP/HTTP export', () => {
  it('delivers the spans of an agent run to a collector on loopback, tree and attributes intact', async () => {
    const receiver = await startReceiver()
    cleanups.push(receiver.close)
    const provider = new BasicTracerProvider({
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: receiver.url }))],
    })
    cleanups.push(() => provider.shutdown())
    const tracing = createOtelSink({ api: otel, tracerProvider: provider })

    const lookup = defineModelTool<{ q: string }, string>({
      id: 'lookup',
      description: 'Looks something up',
      inputSchema: { type: 'object', required: ['q'], properties: { q: { type: 'string' } } },
      execute: ({ q }) => `found ${q}`,
    })
    const broken = defineModelTool<Record<string, never>, string>({
      id: 'broken',
      description: 'Always fails',
      inputSchema: { type: 'object' },
      execute: () => {
        throw new Error('no such record')
      },
    })
    const model = createScriptedModel(
      [
        {
          toolCalls: [
            { name: 'lookup', input: { q: 'tides' } },
            { name: 'broken', input: {} },
          ],
        },
        { text: 'Here is what I found.', usage: { inputTokens: 40, outputTokens: 6 } },
      ],
      { identity: 'gpt-4o-mini' },
    )
    await defineAgent({ model, tools: [lookup, broken] }).run(
      { prompt: 'Look up tides', runId: 'otlp-run' },
      { diagnostics: tracing.sink },
    )
    tracing.endOpenSpans()
    await provider.forceFlush()

    expect(receiver.requests.length).toBeGreaterThan(0)
    expect(receiver.requests[0]?.contentType).toMatch(/^application\/json/)
    expect(receiver.requests[0]?.body.resourceSpans[0]?.scopeSpans[0]?.scope.name).toBe(
      '@agent-core/kits/otel',
    )
    const spans = receiver.spans()
    expect(spans.map((span) => span.name).sort()).toEqual([
      'chat gpt-4o-mini',
      'chat gpt-4o-mini',
      'execute_tool broken',
      'execute_tool lookup',
      'invoke_agent',
      'tool-execution',
      'tool-execution',
      'turn',
      'turn',
    ])
    const byId = new Map(spans.map((span) => [span.spanId, span]))
    const parentName = (span: OtlpSpan) => (span.parentSpanId ? byId.get(span.parentSpanId)?.name : undefined)
    const named = (name: string) => spans.filter((span) => span.name === name)
    expect(named('invoke_agent').map(parentName)).toEqual([undefined])
    expect(named('turn').map(parentName)).toEqual(['invoke_agent', 'invoke_agent'])
    expect(named('execute_tool lookup').map(parentName)).toEqual(['turn'])
    expect(named('tool-execution').map(parentName).sort()).toEqual([
      'execute_tool broken',
      'execute_tool lookup',
    ])
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1)

    const run = named('invoke_agent')[0]!
    expect(attributesOf(run)).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.request.model': 'gpt-4o-mini',
      'agent_core.run.id': 'otlp-run',
      'agent_core.outcome': 'ok',
    })
    const last = named('chat gpt-4o-mini').find(
      (span) => attributesOf(span)['gen_ai.usage.input_tokens'] === 40,
    )
    expect(attributesOf(last!)).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.output_tokens': 6,
      'gen_ai.response.finish_reasons': ['stop'],
    })
    const failed = named('execute_tool broken')[0]!
    expect(failed.status).toEqual({ code: 2, message: 'error: no such record' })
    expect(attributesOf(failed)).toMatchObject({
      'gen_ai.tool.name': 'broken',
      'agent_core.outcome': 'error',
    })
    expect(failed.events?.map((event) => event.name)).toContain('exception')
    expect(failed.events?.map((event) => event.name)).toContain('phase-enter')
  })
})
