/**
 * The span tree of agent runs, through the real OpenTelemetry SDK (BasicTracerProvider and an in-memory
 * exporter): a run whose model (the OpenAI adapter against MockGPT over HTTP) calls two tools in
 * parallel, one of which fails; content recording; a run stopped mid-way and a tool that times out.
 */

import { defineModelTool } from '@agent-core/core/tools'
import { createScriptedModel, defineAgent } from '@agent-core/kits/loop'
import { createOpenAIChatModel } from '@agent-core/kits/openai'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import * as otel from '@opentelemetry/api'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createOtelSink } from './index.js'
import { createTracing, only, type Tracing } from './internal/testing/tracing.js'

let tracing: Tracing
const servers: MockGPTServer[] = []
beforeAll(() => {
  tracing = createTracing()
})
afterEach(async () => {
  tracing.exporter.reset()
  await Promise.all(servers.splice(0).map((server) => server.close()))
})
afterAll(() => tracing.shutdown())

const weather = defineModelTool<{ city: string }, string>({
  id: 'get_weather',
  description: 'Current weather in a city',
  inputSchema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
  execute: ({ city }) => (city === 'Lisbon' ? '19 °C' : 'unknown'),
})
const flights = defineModelTool<{ to: string }, string>({
  id: 'find_flights',
  description: 'Flights to a city',
  inputSchema: { type: 'object', required: ['to'], properties: { to: { type: 'string' } } },
  execute: () => {
    throw new Error('the flight search service is down')
  },
})

async function serve(script: NonNullable<Parameters<typeof startMockGPTServer>[0]>['script']) {
  const server = await startMockGPTServer({ apiKey: 'sk-test', script })
  servers.push(server)
  return createOpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: server.baseURL })
}

const PARALLEL_SCRIPT = [
  {
    reply: {
      type: 'tool-calls' as const,
      calls: [
        { name: 'get_weather', arguments: { city: 'Lisbon' } },
        { name: 'find_flights', arguments: { to: 'Lisbon' } },
      ],
    },
  },
  { reply: { type: 'text' as const, text: 'Lisbon is 19 °C; I could not search flights.' } },
]

describe('agent runs as OpenTelemetry traces', () => {
  it('a run with two parallel tools, one failing: invoke_agent > turns > chat and execute_tool spans', async () => {
    const model = await serve(PARALLEL_SCRIPT)
    const tracer = createOtelSink({ api: otel, tracerProvider: tracing.provider })
    const result = await defineAgent({ model, tools: [weather, flights] }).run(
      { prompt: 'Weather and flights for Lisbon?', runId: 'run-1' },
      { diagnostics: tracer.sink },
    )
    expect(result.reason).toBe('final')
    expect(tracer.stats).toMatchObject({ open: 0, unfinished: 0, orphanEnds: 0, ignored: 0 })

    // The tools run in parallel: siblings by name.
    expect(tracing.tree(['gen_ai.tool.name'], 'name')).toEqual([
      {
        name: 'invoke_agent',
        children: [
          {
            name: 'turn',
            children: [
              { name: 'chat gpt-4o-mini', children: [{ name: 'chat gpt-4o-mini', children: [] }] },
              {
                name: 'execute_tool find_flights',
                attributes: { 'gen_ai.tool.name': 'find_flights' },
                status: 'error: error: the flight search service is down',
                // The execution is a span of its own inside the call: it fails with the tool's error.
                children: [
                  {
                    name: 'tool-execution',
                    status: 'error: error: the flight search service is down',
                    children: [],
                  },
                ],
              },
              {
                name: 'execute_tool get_weather',
                attributes: { 'gen_ai.tool.name': 'get_weather' },
                children: [{ name: 'tool-execution', children: [] }],
              },
            ],
          },
          {
            name: 'turn',
            children: [{ name: 'chat gpt-4o-mini', children: [{ name: 'chat gpt-4o-mini', children: [] }] }],
          },
        ],
      },
    ])

    const spans = tracing.spans()
    // One trace.
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1)
    const run = only(spans, 'invoke_agent')
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.request.model': 'gpt-4o-mini',
      'agent_core.run.id': 'run-1',
      'agent_core.run.reason': 'final',
      'agent_core.run.turns': 2,
      'agent_core.outcome': 'ok',
    })
    expect(run.attributes['gen_ai.usage.input_tokens']).toBe(result.usage.inputTokens)
    expect(run.attributes['gen_ai.usage.output_tokens']).toBe(result.usage.outputTokens)

    // The HTTP requests are the GenAI client spans; usage is counted there, once.
    const requests = spans.filter((span) => span.kind === otel.SpanKind.CLIENT)
    expect(requests).toHaveLength(2)
    for (const request of requests) {
      expect(request.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-mini',
        'server.address': '127.0.0.1',
        'gen_ai.request.stream': true,
      })
      expect(request.attributes['server.port']).toBeTypeOf('number')
      expect(request.attributes['gen_ai.usage.input_tokens']).toBeTypeOf('number')
      expect(request.attributes['gen_ai.response.model']).toBeTypeOf('string')
    }
    expect(requests.map((request) => request.attributes['gen_ai.response.finish_reasons'])).toEqual([
      ['tool_calls'],
      ['stop'],
    ])
    const usage = (key: string) =>
      spans.reduce(
        (sum, span) => sum + (span.kind === otel.SpanKind.CLIENT ? Number(span.attributes[key]) : 0),
        0,
      )
    expect(usage('gen_ai.usage.input_tokens')).toBe(result.usage.inputTokens)
    for (const call of spans.filter(
      (span) => span.kind === otel.SpanKind.INTERNAL && span.name.startsWith('chat'),
    )) {
      expect(call.attributes['gen_ai.usage.input_tokens']).toBeUndefined()
      expect(call.attributes['agent_core.model.usage.input_tokens']).toBeTypeOf('number')
    }

    // The failing tool: error status, the agent-core code, the failed phase, an exception event, and the
    // lifecycle phases as span events.
    const failed = only(spans, 'execute_tool find_flights')
    expect(failed.status.code).toBe(otel.SpanStatusCode.ERROR)
    expect(failed.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'agent_core.outcome': 'error',
      'agent_core.tool.status': 'failed',
      'agent_core.tool.failed_phase': 'execute',
      'error.type': '_OTHER',
    })
    expect(failed.attributes['gen_ai.tool.call.id']).toMatch(/\S/)
    const ok = only(spans, 'execute_tool get_weather')
    const phases = (name: string) =>
      only(spans, name)
        .events.filter((event) => event.name === 'phase-enter')
        .map((event) => event.attributes?.['agent_core.phase'])
    expect(phases('execute_tool find_flights')).toEqual([
      'select',
      'protocol',
      'inspect',
      'authorize',
      'execute',
      'render',
      'finalize',
    ])
    expect(phases('execute_tool get_weather')).toEqual([
      'select',
      'protocol',
      'inspect',
      'authorize',
      'execute',
      'complete',
      'render',
      'finalize',
    ])
    // Core's invocation events are span events of the call's execution span (a child of the call).
    const executions = spans.filter((span) => span.name === 'tool-execution')
    expect(executions).toHaveLength(2)
    expect(executions.flatMap((span) => span.events.map((event) => event.name))).toContain(
      'tool-invocation-finish',
    )
    expect(ok.events.map((event) => event.name)).not.toContain('tool-invocation-finish')
    expect(failed.events.map((event) => event.name)).toContain('exception')
    expect(ok.status.code).toBe(otel.SpanStatusCode.UNSET)
    expect(ok.attributes['agent_core.tool.status']).toBe('completed')
  })

  it('records message content only when the App opts in', async () => {
    for (const recordContent of [false, true]) {
      const model = await serve(PARALLEL_SCRIPT)
      const tracer = createOtelSink({ api: otel, tracerProvider: tracing.provider, recordContent })
      await defineAgent({
        model: tracer.traceModel(model),
        tools: [weather, flights],
        system: 'Be brief.',
      }).run({ prompt: 'Weather and flights for Lisbon?' }, { diagnostics: tracer.sink })
      const calls = tracing
        .spans()
        .filter((span) => span.kind === otel.SpanKind.INTERNAL && span.name === 'chat gpt-4o-mini')
      expect(calls).toHaveLength(2)
      if (!recordContent) {
        for (const span of tracing.spans()) {
          expect(Object.keys(span.attributes).filter((key) => key.includes('messages'))).toEqual([])
        }
      } else {
        const [first, second] = calls
        expect(JSON.parse(String(first?.attributes['gen_ai.input.messages']))).toEqual([
          { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
          { role: 'user', parts: [{ type: 'text', content: 'Weather and flights for Lisbon?' }] },
        ])
        const output = JSON.parse(String(first?.attributes['gen_ai.output.messages']))
        expect(output).toEqual([
          {
            role: 'assistant',
            finish_reason: 'tool_calls',
            parts: [
              {
                type: 'tool_call',
                id: expect.any(String),
                name: 'get_weather',
                arguments: { city: 'Lisbon' },
              },
              {
                type: 'tool_call',
                id: expect.any(String),
                name: 'find_flights',
                arguments: { to: 'Lisbon' },
              },
            ],
          },
        ])
        const input = JSON.parse(String(second?.attributes['gen_ai.input.messages'])) as { role: string }[]
        expect(input.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool'])
        expect(input).toContainEqual({
          role: 'tool',
          parts: [{ type: 'tool_call_response', id: expect.any(String), result: '19 °C' }],
        })
        expect(JSON.parse(String(second?.attributes['gen_ai.output.messages']))).toEqual([
          {
            role: 'assistant',
            finish_reason: 'stop',
            parts: [{ type: 'text', content: 'Lisbon is 19 °C; I could not search flights.' }],
          },
        ])
      }
      tracing.exporter.reset()
    }
  })

  it('a run stopped mid-way ends all its spans: the waiting tool aborted, the run aborted', async () => {
    const controller = new AbortController()
    let markStarted = () => {}
    const started = new Promise<void>((resolve) => {
      markStarted = resolve
    })
    const wait = defineModelTool<Record<string, never>, string>({
      id: 'wait_for_approval',
      description: 'Waits',
      inputSchema: { type: 'object' },
      execute: (_input, context) =>
        new Promise((_resolve, reject) => {
          markStarted()
          context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true })
        }),
    })
    const tracer = createOtelSink({ api: otel, tracerProvider: tracing.provider })
    const model = createScriptedModel([{ toolCalls: [{ name: 'wait_for_approval', input: {} }] }])
    const running = defineAgent({ model, tools: [wait] }).run(
      { prompt: 'go' },
      { diagnostics: tracer.sink, signal: controller.signal },
    )
    await started
    controller.abort()
    expect((await running).reason).toBe('stopped')
    expect(tracer.stats).toMatchObject({ open: 0, unfinished: 0 })
    const spans = tracing.spans()
    expect(only(spans, 'invoke_agent').attributes).toMatchObject({
      'agent_core.outcome': 'aborted',
      'agent_core.run.reason': 'stopped',
    })
    expect(only(spans, 'invoke_agent').status.message).toMatch(/^aborted/)
    const tool = only(spans, 'execute_tool wait_for_approval')
    expect(tool.attributes['agent_core.outcome']).toBe('aborted')
    expect(tool.status.message).toMatch(/^aborted: /)
    expect(only(spans, 'chat scripted').attributes['agent_core.outcome']).toBe('ok')
  })

  it('a tool over its time limit is a timeout, not a cancellation', async () => {
    const slow = defineModelTool<Record<string, never>, string>({
      id: 'slow',
      description: 'Never answers in time',
      inputSchema: { type: 'object' },
      execute: (_input, context) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true })
        }),
    })
    const tracer = createOtelSink({ api: otel, tracerProvider: tracing.provider })
    const model = createScriptedModel([{ toolCalls: [{ name: 'slow', input: {} }] }, { text: 'gave up' }])
    await defineAgent({ model, tools: [slow], toolTimeoutMs: 20 }).run(
      { prompt: 'go' },
      { diagnostics: tracer.sink },
    )
    const tool = only(tracing.spans(), 'execute_tool slow')
    expect(tool.attributes).toMatchObject({ 'agent_core.outcome': 'timeout', 'error.type': 'timeout' })
    expect(tool.status.message).toMatch(/^timeout: /)
    // The execution span ends aborted the moment the time limit wins, before the call's span ends (the
    // tool's own late rejection no longer belongs to it).
    const execution = only(tracing.spans(), 'tool-execution')
    expect(execution.attributes).toMatchObject({
      'agent_core.outcome': 'aborted',
      'agent_core.reason': 'timeout',
    })
    // End order, not end times: the SDK anchors each span's clock on Date.now() at its start (whole
    // milliseconds), so two spans' end times can disagree by up to a millisecond. The in-memory exporter
    // receives spans as they end.
    const ended = tracing.spans()
    expect(ended.indexOf(execution)).toBeLessThan(ended.indexOf(tool))
    expect(only(tracing.spans(), 'invoke_agent').attributes['agent_core.outcome']).toBe('ok')
  })
})
