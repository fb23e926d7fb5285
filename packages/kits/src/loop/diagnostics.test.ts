import { type DiagnosticEvent, MemoryDiagnosticSink } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { ModelProviderError } from '@agent-core/kits/models'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  type AgentEvent,
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  type ScriptedTurn,
} from './index.js'

/** Every span that started ended exactly once, with the same id; returns the span names in start order. */
function pairedSpans(events: readonly DiagnosticEvent[]): string[] {
  const open = new Map<string, string>()
  const ended = new Set<string>()
  const names: string[] = []
  for (const event of events) {
    if (event.spanId === undefined) continue
    if (event.kind.endsWith('-start')) {
      expect(open.has(event.spanId), `span ${event.spanId} started twice`).toBe(false)
      open.set(event.spanId, event.kind.slice(0, -'-start'.length))
      names.push(event.kind.slice(0, -'-start'.length))
    } else if (event.kind.endsWith('-end')) {
      const name = open.get(event.spanId)
      expect(name, `span ${event.spanId} (${event.kind}) ended without a start`).toBe(
        event.kind.slice(0, -'-end'.length),
      )
      expect(ended.has(event.spanId), `span ${event.spanId} ended twice`).toBe(false)
      ended.add(event.spanId)
    }
  }
  expect(
    [...open.keys()].filter((id) => !ended.has(id)),
    'spans never ended',
  ).toEqual([])
  return names
}

const echo = defineModelTool({ id: 'echo', description: 'echo', inputSchema: {}, execute: () => 'echo' })

describe('diagnostics', () => {
  it('puts the run in a loop sub-scope: run, turn, model-call and the lifecycle’s tool-call spans nest', async () => {
    const memory = new MemoryDiagnosticSink()
    const model = createScriptedModel([{ toolCalls: [{ name: 'echo' }, { name: 'echo' }] }, { text: 'done' }])
    await defineAgent({ model, tools: [echo] }).run({ prompt: 'go' }, { diagnostics: memory.sink })
    expect(pairedSpans(memory.events)).toEqual([
      'run',
      'turn',
      'model-call',
      'tool-call',
      'tool-call',
      'tool-execution',
      'tool-execution',
      'turn',
      'model-call',
    ])
    expect(memory.events.every((event) => event.scope[0] === 'loop')).toBe(true)
    const run = memory.ofKind('run-start')[0]!
    const turns = memory.ofKind('turn-start')
    expect(turns.every((turn) => turn.parentSpanId === run.spanId)).toBe(true)
    const calls = memory.ofKind('tool-call-start')
    expect(calls.every((call) => call.parentSpanId === turns[0]!.spanId)).toBe(true)
    expect(memory.ofKind('model-call-start').map((event) => event.parentSpanId)).toEqual(
      turns.map((turn) => turn.spanId),
    )
    expect(memory.ofKind('run-end')[0]?.data).toMatchObject({ outcome: 'ok', reason: 'final', turns: 2 })
    expect(memory.ofKind('model-call-end')[0]?.data).toMatchObject({
      outcome: 'ok',
      finishReason: 'tool-calls',
    })
  })

  it('ends every span on a failing model, a stop and a timeout', async () => {
    const failing = createScriptedModel([{ error: new ModelProviderError('down', { status: 503 }) }])
    const memory = new MemoryDiagnosticSink()
    await defineAgent({ model: failing }).run({ prompt: 'x' }, { diagnostics: memory.sink })
    pairedSpans(memory.events)
    expect(memory.ofKind('model-call-end')[0]?.data).toMatchObject({
      outcome: 'error',
      errorCode: 'provider-error',
    })
    expect(memory.ofKind('run-end')[0]?.data).toMatchObject({ outcome: 'error', reason: 'error' })

    const stopped = new MemoryDiagnosticSink()
    const controller = new AbortController()
    await defineAgent({ model: createScriptedModel([{ text: 'a b c d' }], { delayMs: 10 }) }).run(
      { prompt: 'x', onEvent: (event) => void (event.type === 'text-delta' && controller.abort()) },
      { diagnostics: stopped.sink, signal: controller.signal },
    )
    pairedSpans(stopped.events)
    expect(stopped.ofKind('model-call-end')[0]?.data.outcome).toBe('aborted')
    expect(stopped.ofKind('run-end')[0]?.data).toMatchObject({ outcome: 'aborted', reason: 'stopped' })

    const slow = new MemoryDiagnosticSink()
    await defineAgent({
      model: createScriptedModel([{ text: 'a' }], { delayMs: 100 }),
      modelTimeoutMs: 10,
    }).run({ prompt: 'x' }, { diagnostics: slow.sink })
    pairedSpans(slow.events)
    expect(slow.ofKind('model-call-end')[0]?.data.outcome).toBe('timeout')
  })

  it('property: whatever the script and wherever the stop, spans pair up, the history answers every call and one terminal event ends the run', async () => {
    const work = defineAgentTool(
      defineModelTool<{ mode: string }, string>({
        id: 'work',
        description: 'works, fails or hangs',
        inputSchema: { type: 'object', properties: { mode: { type: 'string' } } },
        execute: async ({ mode }, { signal }) => {
          if (mode === 'fail') throw new Error('failed on purpose')
          if (mode === 'hang') {
            await new Promise((_resolve, reject) =>
              signal.addEventListener('abort', () => reject(signal.reason)),
            )
          }
          await new Promise((resolve) => setTimeout(resolve, 1))
          return mode
        },
      }),
      { timeoutMs: 15 },
    )
    const asking = defineAgentTool(
      defineModelTool({ id: 'ask', description: 'needs approval', inputSchema: {}, execute: () => 'ok' }),
      {
        approval: 'ask',
      },
    )
    const turn = fc.oneof(
      fc.record({ text: fc.constantFrom('done', 'a b c') }),
      fc.record({
        toolCalls: fc.array(
          fc.oneof(
            fc.record({
              name: fc.constant('work'),
              input: fc.record({ mode: fc.constantFrom('ok', 'fail', 'hang') }),
            }),
            fc.record({ name: fc.constantFrom('ask', 'missing') }),
            fc.record({ name: fc.constant('work'), arguments: fc.constant('{broken') }),
          ),
          { minLength: 1, maxLength: 3 },
        ),
      }),
      fc.constant({ error: new ModelProviderError('flaky', { status: 500 }) }),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(turn, { minLength: 1, maxLength: 4 }),
        fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
        fc.constantFrom<'approve' | 'reject' | 'defer'>('approve', 'reject', 'defer'),
        async (script, stopAfterMs, approvals) => {
          const memory = new MemoryDiagnosticSink()
          const controller = new AbortController()
          const timer =
            stopAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), stopAfterMs)
          const events: AgentEvent[] = []
          const model = createScriptedModel(
            [...(script as ScriptedTurn[]), ...Array.from({ length: 5 }, () => ({ text: 'end' }))],
            {
              delayMs: 1,
            },
          )
          const result = await defineAgent({ model, tools: [work, asking], maxTurns: 4 }).run(
            {
              prompt: 'go',
              onEvent: (event) => void events.push(event),
              ...(approvals === 'defer' ? { defer: true } : { resolveApproval: () => ({ type: approvals }) }),
            },
            { diagnostics: memory.sink, signal: controller.signal },
          )
          clearTimeout(timer)
          pairedSpans(memory.events)
          const terminal = events.filter(
            (event) => event.type === 'run-done' || event.type === 'run-suspended',
          )
          expect(terminal).toHaveLength(1)
          expect(events.at(-1)).toBe(terminal[0])
          expect(events.filter((event) => event.type === 'run-start')).toHaveLength(1)
          // Every call the history makes is answered, unless the run waits for it.
          const waiting = new Set(
            result.reason === 'suspended' ? result.pending.map((call) => call.toolCallId) : [],
          )
          const answered = new Set(result.messages.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])))
          for (const message of result.messages) {
            for (const call of message.role === 'assistant' ? (message.toolCalls ?? []) : []) {
              expect(
                answered.has(call.id) || waiting.has(call.id),
                `call ${call.id} unanswered (${result.reason})`,
              ).toBe(true)
            }
          }
          // Each call that started ended once (or waits).
          const started = events.flatMap((event) => (event.type === 'tool-start' ? [event.toolCallId] : []))
          const ends = events.flatMap((event) =>
            event.type === 'tool-resolved' ||
            event.type === 'tool-failed' ||
            event.type === 'tool-aborted' ||
            event.type === 'tool-rejected'
              ? [event.toolCallId]
              : [],
          )
          expect([...ends].sort()).toEqual(started.filter((id) => !waiting.has(id)).sort())
        },
      ),
      { numRuns: 60 },
    )
  }, 60_000)
})
