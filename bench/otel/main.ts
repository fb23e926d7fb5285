/**
 * The OpenTelemetry sink's overhead on the agent loop, per turn. Each run has 10 turns (9 that call a
 * no-op tool, then an answer) against a zero-latency scripted model, so the loop's own work is all there
 * is to measure; per turn the sink turns 3 spans (turn, model call, tool call) and 11 span events (the
 * tool lifecycle's phases, core's invocation events) into OpenTelemetry calls.
 *
 * - `off`: diagnostics off (no sink), the baseline;
 * - `events`: diagnostics on with a sink that drops every event (what the kits' own span events cost);
 * - `otel batch`: the otel sink over the SDK's BasicTracerProvider with a BatchSpanProcessor and an
 *   InMemorySpanExporter (the processor production setups use);
 * - `otel simple`: the same with a SimpleSpanProcessor (every span exported as it ends);
 * - `otel spans`: batch, with `spanEvents: false` (spans only, no phase events);
 * - `sink only`: the sink over a tracer whose spans do not record (the API's no-op tracer): the sink's own
 *   bookkeeping (event checks, parents, names, start attributes) without the SDK's spans;
 * - `sdk direct`: diagnostics on, with a minimal hand-written sink that makes the same spans and span
 *   events directly on the SDK (same batch provider), with fixed attributes and no reading of the events'
 *   data: the spans a turn needs, made where the loop runs, at the least cost any sink can have;
 * - `sdk floor`: `off` plus, per turn, the same 3 spans and 11 events made directly on the SDK (same
 *   attributes) in a tight loop apart from the turns: what the SDK itself costs, whoever calls it.
 *
 * The machine is shared and loaded (wall time there mostly measures waiting for a core), so each round is
 * measured in CPU time of this process (its garbage collector's threads included), contenders run in many
 * short interleaved rounds in an order shuffled anew each round (with a fixed order, `events` read 15%
 * cheaper than `off`, though it does more: a bias from the contender that ran before), and each
 * contender's ratio to `off` is the median of its per-round ratios.
 *
 * Target (as ruled on the traces issue): the sink's own cost, `otel batch` at most 1.10x `sdk direct` (the
 * same spans made directly on the SDK; the median of their per-round ratios), in the same run; the bench
 * exits 0 when that holds. The earlier
 * target, at most 10% over an untraced turn (`otel batch` / `off`), is withdrawn: an untraced mock turn is
 * cheaper than what the OpenTelemetry SDK itself costs for the spans a turn needs (`sdk floor` / `off`),
 * so no sink could meet it. That ratio is still printed, for information.
 * Run with `pnpm bench otel`.
 */

import type { DiagnosticSink } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { createScriptedModel, defineAgent, type ScriptedTurn } from '@agent-core/kits/loop'
import { createOtelSink } from '@agent-core/kits/otel'
import * as otel from '@opentelemetry/api'
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'

const TURNS = 10
const RUNS = 20
const ROUNDS = 60

const noop = defineModelTool<Record<string, never>, string>({
  id: 'noop',
  description: 'Does nothing',
  inputSchema: { type: 'object' },
  execute: () => 'ok',
})

const script: ScriptedTurn[] = [
  ...Array.from({ length: TURNS - 1 }, () => ({ toolCalls: [{ name: 'noop', input: {} }] })),
  { text: 'done' },
]
const agent = () => defineAgent({ model: createScriptedModel(script), tools: [noop], maxTurns: TURNS + 1 })

async function runs(sink: DiagnosticSink | undefined): Promise<void> {
  for (let i = 0; i < RUNS; i++) {
    const result = await agent().run({ prompt: 'go' }, sink === undefined ? {} : { diagnostics: sink })
    if (result.turns !== TURNS) throw new Error(`expected ${TURNS} turns, got ${result.turns}`)
  }
}

const batchExporter = new InMemorySpanExporter()
const batch = new BasicTracerProvider({
  spanProcessors: [
    new BatchSpanProcessor(batchExporter, { maxQueueSize: 10_000, scheduledDelayMillis: 1000 }),
  ],
})
const simpleExporter = new InMemorySpanExporter()
const simple = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(simpleExporter)] })
const batchSink = createOtelSink({ api: otel, tracerProvider: batch })
const spansOnly = createOtelSink({ api: otel, tracerProvider: batch, spanEvents: false })
const tracer = batch.getTracer('floor')
const PHASES = ['select', 'protocol', 'inspect', 'authorize', 'execute', 'complete', 'render', 'finalize']

/** The attributes the sink gives each span of a turn, fixed (for `sdk floor` and `sdk direct`). */
const RUN_START = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.request.model': 'scripted' }
const RUN_END = { 'agent_core.outcome': 'ok', 'agent_core.run.turns': TURNS }
const TURN_START = { 'agent_core.turn.number': 1 }
const TURN_END = { 'agent_core.outcome': 'ok', 'agent_core.turn.tool_calls': 1 }
const CALL_START = {
  'gen_ai.operation.name': 'chat',
  'gen_ai.request.model': 'scripted',
  'agent_core.turn.number': 1,
}
const CALL_END = {
  'agent_core.outcome': 'ok',
  'gen_ai.response.finish_reasons': ['tool_calls'],
  'gen_ai.usage.input_tokens': 3,
  'gen_ai.usage.output_tokens': 3,
  'agent_core.usage.total_tokens': 6,
}
const TOOL_START = {
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.type': 'function',
  'gen_ai.tool.name': 'noop',
  'gen_ai.tool.call.id': 'call_1',
  'agent_core.tool.invocation_id': 'inv_1',
  'agent_core.tool.resumed': false,
}
const TOOL_END = { 'agent_core.outcome': 'ok', 'agent_core.tool.status': 'completed' }
const PHASE_EVENT = { 'agent_core.phase': 'execute' }

/** One turn's spans and events, made directly on the SDK with the attributes the sink would give them. */
function sdkTurn(): void {
  const turn = tracer.startSpan('turn', { attributes: TURN_START })
  const context = otel.trace.setSpan(otel.ROOT_CONTEXT, turn)
  const call = tracer.startSpan('chat scripted', { attributes: CALL_START }, context)
  call.setAttributes(CALL_END)
  call.end()
  const tool = tracer.startSpan('execute_tool noop', { attributes: TOOL_START }, context)
  for (const phase of PHASES) tool.addEvent('phase-enter', { 'agent_core.phase': phase })
  for (const kind of ['tool-invocation-start', 'tool-invocation-finish', 'phase-enter']) {
    tool.addEvent(kind, { 'agent_core.tool_id': 'noop', 'agent_core.invocation_id': 'inv_1' })
  }
  tool.setAttributes(TOOL_END)
  tool.end()
  turn.setAttributes(TURN_END)
  turn.end()
}
const STARTS: Record<string, readonly [string, otel.Attributes, otel.Attributes]> = {
  'run-start': ['invoke_agent scripted', RUN_START, RUN_END],
  'turn-start': ['turn', TURN_START, TURN_END],
  'model-call-start': ['chat scripted', CALL_START, CALL_END],
  'tool-call-start': ['execute_tool noop', TOOL_START, TOOL_END],
}

/**
 * The least a sink can do to make the loop's spans on the SDK: the same spans (run, turns, model and tool
 * calls, parented as the loop's events say) and span events, with fixed attributes instead of any
 * reading of the events' data. What `otel batch` costs over this is the sink's own work.
 */
function directSink(): DiagnosticSink {
  const spans = new Map<string, { span: otel.Span; context: otel.Context; end: otel.Attributes }>()
  return (event) => {
    const start = STARTS[event.kind]
    if (start !== undefined && event.spanId !== undefined) {
      const parent = event.parentSpanId === undefined ? undefined : spans.get(event.parentSpanId)
      const span = tracer.startSpan(start[0], { attributes: start[1] }, parent?.context ?? otel.ROOT_CONTEXT)
      spans.set(event.spanId, { span, context: otel.trace.setSpan(otel.ROOT_CONTEXT, span), end: start[2] })
      return
    }
    if (event.spanId !== undefined) {
      const open = spans.get(event.spanId)
      if (open !== undefined) {
        open.span.setAttributes(open.end)
        open.span.end()
        spans.delete(event.spanId)
      }
      return
    }
    if (event.parentSpanId !== undefined)
      spans.get(event.parentSpanId)?.span.addEvent(event.kind, PHASE_EVENT)
  }
}
const direct = directSink()
const simpleSink = createOtelSink({ api: otel, tracerProvider: simple })
const sinkOnly = createOtelSink({ api: otel, tracer: otel.trace.getTracerProvider().getTracer('no-op') })
const drop: DiagnosticSink = () => {}

const contenders: Record<string, () => Promise<void>> = {
  off: () => runs(undefined),
  events: () => runs(drop),
  'otel batch': () => runs(batchSink.sink),
  'otel simple': () => runs(simpleSink.sink),
  'otel spans': () => runs(spansOnly.sink),
  'sink only': () => runs(sinkOnly.sink),
  'sdk direct': () => runs(direct),
  'sdk floor': async () => {
    await runs(undefined)
    for (let i = 0; i < RUNS * TURNS; i++) sdkTurn()
  },
}
/** Exports and drops the spans a round made, outside the timed part. */
async function settle(): Promise<void> {
  await batch.forceFlush()
  batchExporter.reset()
  simpleExporter.reset()
}

for (const run of Object.values(contenders)) await run()
await settle()

const names = Object.keys(contenders)
/** `items` in an order of their own for each round (a fixed-seed shuffle), so that no contender always runs right after the same one. */
function shuffled<T>(items: readonly T[], round: number): T[] {
  const out = [...items]
  let state = (round + 1) * 2654435761
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    const j = state % (i + 1)
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}
const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]))
for (let round = 0; round < ROUNDS; round++) {
  const order = shuffled(names, round)
  for (const name of order) {
    const started = process.cpuUsage()
    await contenders[name]!()
    const used = process.cpuUsage(started)
    times[name]!.push((used.user + used.system) / 1000)
    await settle()
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}
const perTurnUs = (name: string) => (median(times[name]!) * 1000) / (RUNS * TURNS)
const ratio = (name: string) => median(times[name]!.map((ms, round) => ms / times.off![round]!))
for (const name of names) {
  console.log(
    `${name.padEnd(12)} ${perTurnUs(name).toFixed(1).padStart(7)} CPU µs per turn (median)   ${name === 'off' ? '' : `x${ratio(name).toFixed(3)} of off`}`,
  )
}
const versus = (name: string, base: string) =>
  median(times[name]!.map((ms, round) => ms / times[base]![round]!))
const target = versus('otel batch', 'sdk direct')
const LIMIT = 1.1
console.log(
  `target: otel batch / sdk direct: ${target.toFixed(3)} (target <= ${LIMIT.toFixed(2)}: ${target <= LIMIT ? 'met' : 'NOT met'})`,
)
console.log(
  `for information: otel batch / off: ${ratio('otel batch').toFixed(3)} (the withdrawn target, <= 1.10 over an untraced turn)`,
)
console.log(`otel simple / sdk direct: ${versus('otel simple', 'sdk direct').toFixed(3)}`)
console.log(
  `sdk direct / events: ${versus('sdk direct', 'events').toFixed(3)} (the SDK's spans made from the loop's events)`,
)
console.log(`sdk floor / off: ${ratio('sdk floor').toFixed(3)} (the SDK's own cost for the same spans)`)
console.log(
  `sink only / events: ${versus('sink only', 'events').toFixed(3)} (the sink's own bookkeeping, no SDK spans)`,
)
await batch.shutdown()
await simple.shutdown()
if (target > LIMIT) {
  console.error(
    `the otel sink (batch processor) costs ${target.toFixed(3)}x the same spans made directly on the SDK (target <= ${LIMIT})`,
  )
  process.exitCode = 1
}
