import {
  AbortedError,
  createDiagnostics,
  createOperationContext,
  type DiagnosticEvent,
  InvalidInputError,
  TimeoutError,
  UnauthorizedError,
} from '@agent-core/core'
import * as otel from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { garbage, typed } from '../testing/garbage.js'
import { createOtelSink, loadOtelSink } from './index.js'
import { createTracing, only, type Tracing } from './internal/testing/tracing.js'

let tracing: Tracing
beforeAll(() => {
  tracing = createTracing()
})
afterEach(() => tracing.exporter.reset())
afterAll(() => tracing.shutdown())

function sink(options: { recordContent?: boolean; maxOpenSpans?: number; spanEvents?: boolean } = {}) {
  return createOtelSink({ api: otel, tracerProvider: tracing.provider, ...options })
}

const ms = (time: otel.HrTime) => time[0] * 1000 + time[1] / 1e6

describe('the OpenTelemetry sink', () => {
  it('nests parallel spans under one scope path by their span ids, and makes plain events span events', () => {
    const tracer = sink()
    const diagnostics = createDiagnostics({ sink: tracer.sink })
    const turn = diagnostics.child('loop').span('turn', { turn: 1 })
    const a = turn.diagnostics.span('tool-call', { toolId: 'search', toolCallId: 'call_a' })
    const b = turn.diagnostics.span('tool-call', { toolId: 'fetch', toolCallId: 'call_b' })
    b.diagnostics.emit('phase-enter', { phase: 'execute' })
    a.diagnostics.emit('phase-enter', { phase: 'execute' })
    b.end('ok', { status: 'completed' })
    a.end('ok', { status: 'completed' })
    turn.end('ok', { toolCalls: 2 })

    const spans = tracing.spans()
    const search = only(spans, 'execute_tool search')
    // Start times have millisecond precision (durations are finer): parallel siblings by name.
    expect(tracing.tree(['gen_ai.tool.call.id'], 'name')).toEqual([
      {
        name: 'turn',
        children: [
          { name: 'execute_tool fetch', attributes: { 'gen_ai.tool.call.id': 'call_b' }, children: [] },
          { name: 'execute_tool search', attributes: { 'gen_ai.tool.call.id': 'call_a' }, children: [] },
        ],
      },
    ])
    expect(search.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'search',
      'gen_ai.tool.type': 'function',
      'agent_core.outcome': 'ok',
      'agent_core.tool.status': 'completed',
    })
    // The scope path is recorded where a trace enters agent-core.
    expect(search.attributes['agent_core.scope']).toBeUndefined()
    expect(search.events.map((event) => [event.name, event.attributes])).toEqual([
      ['phase-enter', { 'agent_core.phase': 'execute' }],
    ])
    expect(only(spans, 'turn').attributes).toMatchObject({
      'agent_core.scope': 'loop',
      'agent_core.turn.number': 1,
      'agent_core.turn.tool_calls': 2,
    })
    // Times come from the SDK's clock as the events arrive.
    for (const span of spans) expect(ms(span.endTime)).toBeGreaterThanOrEqual(ms(span.startTime))
    expect(tracer.stats).toMatchObject({ open: 0, started: 3, ended: 3, ignored: 0 })
  })

  it('records an error with its agent-core code, and tells cancellation and time limits apart', () => {
    const tracer = sink()
    const diagnostics = createDiagnostics({ sink: tracer.sink })
    const failed = diagnostics.span('tool-call', { toolId: 'refund' })
    failed.fail(new UnauthorizedError('Not your order.'))
    const stopped = diagnostics.span('tool-call', { toolId: 'search' })
    stopped.fail(new AbortedError('stopped by the user'))
    const slow = diagnostics.span('tool-call', { toolId: 'fetch' })
    slow.fail(new TimeoutError('tool "fetch" took longer than 50 ms'))

    const spans = tracing.spans()
    const refund = only(spans, 'execute_tool refund')
    expect(refund.status).toEqual({ code: otel.SpanStatusCode.ERROR, message: 'error: Not your order.' })
    expect(refund.attributes).toMatchObject({
      'agent_core.outcome': 'error',
      'agent_core.error.code': 'unauthorized',
      'error.type': 'unauthorized',
    })
    expect(refund.events).toHaveLength(1)
    expect(refund.events[0]?.name).toBe('exception')
    expect(refund.events[0]?.attributes).toMatchObject({
      'exception.type': 'unauthorized',
      'exception.message': 'Not your order.',
    })
    const search = only(spans, 'execute_tool search')
    expect(search.status.message).toBe('aborted: stopped by the user')
    expect(search.attributes).toMatchObject({ 'agent_core.outcome': 'aborted', 'error.type': 'aborted' })
    const fetch = only(spans, 'execute_tool fetch')
    expect(fetch.status.message).toBe('timeout: tool "fetch" took longer than 50 ms')
    expect(fetch.attributes).toMatchObject({ 'agent_core.outcome': 'timeout', 'error.type': 'timeout' })
  })

  it('names guardrail spans after the guardrail, with what it checked and the guarded tool', () => {
    const tracer = sink()
    const diagnostics = createDiagnostics({ sink: tracer.sink })
    diagnostics.span('guardrail', { guardrail: 'no-secrets', kind: 'input' }).end('ok', { tripped: true })
    diagnostics.span('guardrail', { guardrail: 'tmp-only', kind: 'tool-input', toolId: 'remove' }).end('ok')
    const spans = tracing.spans()
    expect(only(spans, 'guardrail no-secrets').attributes).toMatchObject({
      'agent_core.guardrail.name': 'no-secrets',
      'agent_core.guardrail.kind': 'input',
      'agent_core.guardrail.tripped': true,
    })
    expect(only(spans, 'guardrail tmp-only').attributes).toMatchObject({
      'gen_ai.tool.name': 'remove',
      'agent_core.guardrail.kind': 'tool-input',
    })
  })

  it('maps model spans onto the GenAI conventions, and counts usage once when model requests are inside', () => {
    const tracer = sink()
    const diagnostics = createDiagnostics({ sink: tracer.sink })
    const call = diagnostics.span('model-call', { model: 'gpt-4o-mini', turn: 1 })
    const request = call.diagnostics.span('model-request', {
      operation: 'chat',
      provider: 'openai',
      requestModel: 'gpt-4o-mini',
      serverAddress: '127.0.0.1',
      serverPort: 8787,
      stream: true,
      temperature: 0.2,
      maxOutputTokens: 200,
      responseFormat: 'json_schema',
    })
    request.end('ok', {
      responseModel: 'gpt-4o-mini-2024-07-18',
      responseId: 'chatcmpl-1',
      finishReason: 'tool-calls',
      providerFinishReason: 'tool_calls',
      inputTokens: 12,
      outputTokens: 7,
      totalTokens: 19,
      cachedInputTokens: 4,
      requestId: 'req_1',
    })
    call.end('ok', { finishReason: 'tool-calls', inputTokens: 12, outputTokens: 7, totalTokens: 19 })
    const plain = diagnostics.span('model-call', { identity: 'scripted' })
    plain.end('ok', { finishReason: 'stop', inputTokens: 3, outputTokens: 2, totalTokens: 5 })

    const spans = tracing.spans()
    const http = spans.find((span) => span.kind === otel.SpanKind.CLIENT)!
    expect(http.name).toBe('chat gpt-4o-mini')
    expect(http.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.request.stream': true,
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.max_tokens': 200,
      'gen_ai.output.type': 'json',
      'agent_core.model.response_format': 'json_schema',
      'server.address': '127.0.0.1',
      'server.port': 8787,
      'agent_core.outcome': 'ok',
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      'gen_ai.response.id': 'chatcmpl-1',
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.usage.cache_read.input_tokens': 4,
      'agent_core.usage.total_tokens': 19,
      'agent_core.model.request_id': 'req_1',
    })
    const [outer, single] = spans.filter((span) => span.kind === otel.SpanKind.INTERNAL)
    expect(outer?.name).toBe('chat gpt-4o-mini')
    expect(outer?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'agent_core.model.usage.input_tokens': 12,
      'agent_core.model.usage.output_tokens': 7,
    })
    expect(outer?.attributes['gen_ai.usage.input_tokens']).toBeUndefined()
    expect(single?.name).toBe('chat scripted')
    expect(single?.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 3,
      'gen_ai.usage.output_tokens': 2,
      'gen_ai.response.finish_reasons': ['stop'],
    })
  })

  it('records a failed model request as error.type by provider error kind, with the HTTP status', () => {
    const tracer = sink()
    const diagnostics = createDiagnostics({ sink: tracer.sink })
    const request = diagnostics.span('model-request', { operation: 'chat', requestModel: 'gpt-4o-mini' })
    request.end(
      'error',
      { errorKind: 'rate-limit', status: 429, retryable: true },
      Object.assign(new Error('Too many requests'), { code: 'provider-error' }),
    )
    const span = only(tracing.spans(), 'chat gpt-4o-mini')
    expect(span.attributes).toMatchObject({
      'error.type': 'rate-limit',
      'agent_core.error.code': 'provider-error',
      'agent_core.error.kind': 'rate-limit',
      'http.response.status_code': 429,
      'agent_core.model.retryable': true,
    })
  })

  it('keeps content fields out unless the App opts in', () => {
    for (const recordContent of [false, true]) {
      const diagnostics = createDiagnostics({ sink: sink({ recordContent }).sink })
      diagnostics.span('retrieval', { retrievalId: 'docs', key: 'refund policy for Lisbon' }).end('ok')
    }
    const [hidden, shown] = tracing.spans()
    expect(hidden?.name).toBe('retrieval docs')
    expect(hidden?.attributes).toMatchObject({
      'gen_ai.operation.name': 'retrieval',
      'gen_ai.data_source.id': 'docs',
    })
    expect(hidden?.attributes['agent_core.retrieval.key']).toBeUndefined()
    expect(shown?.attributes['agent_core.retrieval.key']).toBe('refund policy for Lisbon')
  })

  it('records an end whose start it never saw as a span of its own, from the duration', () => {
    // A sink attached after the span started (or handed only part of the events) sees its end alone.
    const tracer = sink()
    tracer.sink?.({
      scope: ['durable', 'order-1'],
      kind: 'step-end',
      level: 'info',
      atMs: 1_700_000_001_000,
      data: { outcome: 'ok', durationMs: 250, stepId: 'charge' },
      spanId: 'elsewhere-1',
    })
    const orphan = only(tracing.spans(), 'durable step charge')
    expect(orphan.attributes).toMatchObject({ 'agent_core.start_seen': false, 'agent_core.outcome': 'ok' })
    expect(ms(orphan.endTime) - ms(orphan.startTime)).toBe(250)
    expect(tracer.stats.orphanEnds).toBe(1)
  })

  it('ends the spans still open as unfinished when closed, and ignores their late end', () => {
    const tracer = sink()
    const diagnostics = createDiagnostics({ sink: tracer.sink })
    const task = diagnostics.child('durable').child('order-1').span('task', { definitionId: 'order' })
    const step = task.diagnostics.span('step', { stepId: 'charge', index: 0 })
    expect(tracer.stats.open).toBe(2)
    expect(tracing.spans()).toHaveLength(0)

    expect(tracer.endOpenSpans('the worker shut down')).toBe(2)
    const spans = tracing.spans()
    expect(spans.map((span) => span.name)).toEqual(['durable step charge', 'durable task order'])
    for (const span of spans) {
      expect(span.status).toEqual({
        code: otel.SpanStatusCode.ERROR,
        message: 'unfinished: the worker shut down',
      })
      expect(span.attributes['agent_core.outcome']).toBe('unfinished')
    }
    expect(only(spans, 'durable task order').attributes['agent_core.durable.task.id']).toBe('order-1')
    step.end('ok')
    task.end('ok')
    expect(tracing.spans()).toHaveLength(2)
    expect(tracer.stats).toMatchObject({ open: 0, unfinished: 2, orphanEnds: 0 })
  })

  it('never holds more than maxOpenSpans: the oldest is ended as unfinished', () => {
    const tracer = sink({ maxOpenSpans: 2 })
    const diagnostics = createDiagnostics({ sink: tracer.sink })
    const spans = [1, 2, 3].map((n) => diagnostics.span('model-request', { requestModel: `m${n}` }))
    expect(tracer.stats.open).toBe(2)
    expect(tracing.spans().map((span) => [span.name, span.status.message])).toEqual([
      ['chat m1', 'unfinished: more than 2 spans were open at once'],
    ])
    for (const span of spans) span.end('ok')
    expect(tracing.spans()).toHaveLength(3)
    expect(tracer.stats).toMatchObject({ open: 0, ended: 2, unfinished: 1 })
  })

  it('attaches plain events without a span id to the innermost open span whose scope encloses them', () => {
    const tracer = sink()
    const diagnostics = createDiagnostics({ sink: tracer.sink })
    const run = diagnostics.child('loop').span('run', { runId: 'r1' })
    // Another emitter for the same scope path, built without the span: no parentSpanId on its events.
    createDiagnostics({ sink: tracer.sink, scope: ['loop', 'run', 'tools'] }).emit(
      'cache-miss',
      { key: 'k' },
      'warn',
    )
    createDiagnostics({ sink: tracer.sink, scope: ['elsewhere'] }).emit('unrelated')
    run.end('ok', { reason: 'final', turns: 1 })
    const span = only(tracing.spans(), 'invoke_agent')
    expect(span.events.map((event) => [event.name, event.attributes])).toEqual([
      ['cache-miss', { 'agent_core.level': 'warn', 'agent_core.key': 'k' }],
    ])
    expect(span.attributes).toMatchObject({ 'agent_core.run.id': 'r1', 'agent_core.run.reason': 'final' })
    expect(tracer.stats.ignored).toBe(1)
  })

  it('nests root spans under the span active in the OpenTelemetry context', async () => {
    const manager = new AsyncLocalStorageContextManager().enable()
    otel.context.setGlobalContextManager(manager)
    try {
      const tracer = sink()
      const appTracer = tracing.provider.getTracer('app')
      await appTracer.startActiveSpan('POST /chat', async (request) => {
        const context = createOperationContext({ diagnostics: tracer.sink })
        await Promise.resolve()
        context.diagnostics.child('loop').span('run', { runId: 'r2' }).end('ok')
        request.end()
      })
      expect(tracing.tree()).toEqual([
        { name: 'POST /chat', children: [{ name: 'invoke_agent', children: [] }] },
      ])
    } finally {
      otel.context.disable()
    }
  })

  it('works, making no recording spans, over the global no-op provider when no SDK is registered', () => {
    const tracer = createOtelSink({ api: otel })
    const diagnostics = createDiagnostics({ sink: tracer.sink })
    const span = diagnostics.span('run', { runId: 'x' })
    span.diagnostics.emit('note')
    span.fail(new Error('boom'))
    expect(tracer.stats).toMatchObject({ open: 0, started: 1, ended: 1, ignored: 0 })
    expect(tracing.spans()).toHaveLength(0)
  })

  it('loadOtelSink imports the API and traces through the global provider', async () => {
    otel.trace.setGlobalTracerProvider(tracing.provider)
    try {
      const tracer = await loadOtelSink()
      expect(tracer.enabled).toBe(true)
      createDiagnostics({ sink: tracer.sink }).span('tool-call', { toolId: 'echo' }).end('ok')
      expect(tracing.spans().map((span) => span.name)).toEqual(['execute_tool echo'])
    } finally {
      otel.trace.disable()
    }
  })

  it('refuses malformed options with typed errors', async () => {
    expect(() => createOtelSink(undefined as never)).toThrow(InvalidInputError)
    expect(() => createOtelSink({} as never)).toThrow(/options.api must be the @opentelemetry\/api module/)
    expect(() => createOtelSink({ api: otel, tracer: {} as never })).toThrow(InvalidInputError)
    expect(() => createOtelSink({ api: otel, tracerProvider: 'x' as never })).toThrow(InvalidInputError)
    expect(() =>
      createOtelSink({
        api: otel,
        tracer: tracing.provider.getTracer('a'),
        tracerProvider: tracing.provider,
      }),
    ).toThrow(/both given/)
    expect(() => createOtelSink({ api: otel, maxOpenSpans: 0 })).toThrow(InvalidInputError)
    expect(() => createOtelSink({ api: otel, recordContent: 'yes' as never })).toThrow(InvalidInputError)
    await expect(loadOtelSink({ api: otel } as never)).rejects.toThrow(/call createOtelSink/)
    await expect(loadOtelSink({ maxOpenSpans: -1 })).rejects.toThrow(InvalidInputError)
    expect(() => sink().traceModel({} as never)).toThrow(InvalidInputError)
  })

  it('garbage: options are refused with typed errors; events never make the sink throw or leak', () => {
    fc.assert(
      fc.property(garbage, garbage, (api, options) => {
        typed(() => createOtelSink({ api } as never))
        typed(() => createOtelSink({ api: otel, ...(options as object) } as never))
      }),
    )
    const tracer = sink()
    const event = fc.record(
      {
        scope: fc.oneof(fc.array(fc.string(), { maxLength: 3 }), garbage),
        kind: fc.oneof(
          fc.constantFrom('run-start', 'run-end', 'tool-call-start', 'tool-call-end', 'x'),
          garbage,
        ),
        level: fc.oneof(fc.constantFrom('info', 'warn'), garbage),
        atMs: fc.oneof(fc.integer({ min: 0, max: 2 ** 40 }), garbage),
        data: fc.oneof(fc.dictionary(fc.string(), garbage), garbage),
        spanId: fc.oneof(fc.constantFrom('s1', 's2', 's3'), garbage),
        parentSpanId: fc.oneof(fc.constantFrom('s1', 's2'), garbage),
      },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(fc.array(fc.oneof(event, garbage), { maxLength: 20 }), (events) => {
        for (const e of events) tracer.sink?.(e as DiagnosticEvent)
      }),
    )
    tracer.endOpenSpans()
    expect(tracer.stats.open).toBe(0)
  })
})

describe('content through traceModel', () => {
  const request = {
    messages: [
      { role: 'system' as const, content: 'Be brief.' },
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'What is this?' },
          { type: 'image' as const, url: 'https://example.com/a.png' },
        ],
      },
    ],
  }
  const reply = {
    message: {
      role: 'assistant' as const,
      content: '',
      thinking: 'Look it up.',
      toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"a.png"}' }],
    },
    finishReason: 'tool-calls' as const,
    usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  }

  it('records the request and the reply of generate on the span the call runs in', async () => {
    const tracer = sink({ recordContent: true })
    const model = tracer.traceModel({ identity: 'm', generate: async () => reply })
    expect(model.stream).toBeUndefined()
    const context = createOperationContext({ diagnostics: tracer.sink })
    const span = context.diagnostics.span('model-call', { identity: 'm' })
    await model.generate(request, { ...context, diagnostics: span.diagnostics })
    span.end('ok')
    const chat = only(tracing.spans(), 'chat m')
    expect(JSON.parse(String(chat.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
      {
        role: 'user',
        parts: [
          { type: 'text', content: 'What is this?' },
          { type: 'uri', modality: 'image', uri: 'https://example.com/a.png' },
        ],
      },
    ])
    expect(JSON.parse(String(chat.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        finish_reason: 'tool_calls',
        parts: [
          { type: 'reasoning', content: 'Look it up.' },
          { type: 'tool_call', id: 'call_1', name: 'lookup', arguments: { q: 'a.png' } },
        ],
      },
    ])
  })

  it('passes a stream through untouched, even one that yields garbage, and records nothing outside a span', async () => {
    const tracer = sink({ recordContent: true })
    const events = [
      { type: 'text-delta', text: 'Hi' },
      null,
      { type: 'finish', finishReason: 'stop', usage: reply.usage },
    ]
    const model = tracer.traceModel({
      identity: 'm',
      generate: async () => reply,
      async *stream() {
        yield* events as never[]
      },
    })
    const context = createOperationContext({ diagnostics: tracer.sink })
    const span = context.diagnostics.span('model-call', { identity: 'm' })
    const seen: unknown[] = []
    for await (const event of model.stream!(request, { ...context, diagnostics: span.diagnostics }))
      seen.push(event)
    span.end('ok')
    expect(seen).toEqual(events)
    expect(only(tracing.spans(), 'chat m').attributes['gen_ai.output.messages']).toBeUndefined()
    // Outside any span: nothing to record on, the call goes through.
    await expect(model.generate(request, context)).resolves.toBe(reply)
  })

  it('returns the model itself when content is not recorded', () => {
    const model = { identity: 'm', generate: async () => reply }
    expect(sink().traceModel(model)).toBe(model)
  })
})

describe('spanEvents: false', () => {
  it('keeps the spans and their exception events, and drops the other events', () => {
    const tracer = sink({ spanEvents: false })
    const diagnostics = createDiagnostics({ sink: tracer.sink })
    const span = diagnostics.span('tool-call', { toolId: 'x' })
    span.diagnostics.emit('phase-enter', { phase: 'execute' })
    span.fail(new Error('boom'))
    expect(only(tracing.spans(), 'execute_tool x').events.map((event) => event.name)).toEqual(['exception'])
  })
})
