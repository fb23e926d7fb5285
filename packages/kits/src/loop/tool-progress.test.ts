import { InvalidInputError } from '@agent-core/core'
import { defineModelTool, type ToolExecutionContext } from '@agent-core/core/tools'
import { defineToolLifecycle } from '@agent-core/kits/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  type AgentEvent,
  type AgentRunState,
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  type ScriptedTurn,
} from './index.js'

type Step = { readonly kind: 'report' } | { readonly kind: 'tick' }

/** One call's script: reports and yields while it runs, then (maybe) more reports after it returned or timed out. */
interface CallScript {
  readonly steps: readonly Step[]
  readonly late: number
  readonly hang: boolean
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('tool progress', () => {
  it('property: each call reports in order, between its start and its end, and nothing after it settled', async () => {
    const stepArb: fc.Arbitrary<Step> = fc.oneof(
      fc.constant({ kind: 'report' } as const),
      fc.constant({ kind: 'tick' } as const),
    )
    const callArb: fc.Arbitrary<CallScript> = fc.record({
      steps: fc.array(stepArb, { maxLength: 8 }),
      late: fc.nat({ max: 3 }),
      hang: fc.boolean(),
    })
    await fc.assert(
      fc.asyncProperty(fc.array(callArb, { minLength: 1, maxLength: 4 }), async (calls) => {
        const settled = new Set<string>()
        /** The reference, per call: every report in order, with whether the loop had reported the call's end. */
        const made = new Map<string, { message: string; afterEnd: boolean; beforeReturn: boolean }[]>()
        const late: Promise<void>[] = []
        const work = defineModelTool<{ index: number }, string>({
          id: 'work',
          description: 'Works through a script',
          inputSchema: { type: 'object', required: ['index'], properties: { index: { type: 'integer' } } },
          execute: async ({ index }, context: ToolExecutionContext) => {
            const script = calls[index] as CallScript
            const id = `call_${index}`
            const reports: { message: string; afterEnd: boolean; beforeReturn: boolean }[] = []
            made.set(id, reports)
            let returned = false
            const report = () => {
              const message = `${id}#${reports.length + 1}`
              reports.push({ message, afterEnd: settled.has(id), beforeReturn: !returned })
              context.progress({
                message,
                ratio: Math.min(1, reports.length / 10),
                data: { n: reports.length },
              })
            }
            for (const step of script.steps) {
              if (step.kind === 'report') report()
              else await tick()
            }
            const after = (async () => {
              for (let i = 0; i < script.late; i++) {
                await tick()
                report()
              }
            })()
            late.push(after)
            if (script.hang) {
              // Times out: its later reports arrive after the loop settled it.
              await after
              await new Promise((resolve) => setTimeout(resolve, 60))
            }
            returned = true
            return `done ${index}`
          },
        })
        const agent = defineAgent({
          model: createScriptedModel([
            { toolCalls: calls.map((_, index) => ({ id: `call_${index}`, name: 'work', input: { index } })) },
            { text: 'ok' },
          ]),
          tools: [defineAgentTool(work, { timeoutMs: 20 })],
        })
        const events: AgentEvent[] = []
        const result = await agent.run({
          prompt: 'go',
          onEvent: (event) => {
            events.push(event)
            if (
              event.type === 'tool-resolved' ||
              event.type === 'tool-failed' ||
              event.type === 'tool-aborted' ||
              event.type === 'tool-rejected'
            )
              settled.add(event.toolCallId)
          },
        })
        await Promise.all(late)
        await tick()
        expect(result.reason).toBe('final')
        for (let index = 0; index < calls.length; index++) {
          const id = `call_${index}`
          const mine = events.filter((e) => 'toolCallId' in e && e.toolCallId === id)
          const progress = mine.flatMap((e) => (e.type === 'tool-progress' ? [e] : []))
          const reports = made.get(id) ?? []
          const emitted = progress.map((e) => e.message)
          // In the order made, numbered 1, 2, 3, ...
          const order = emitted.map((m) => reports.findIndex((r) => r.message === m))
          expect(order.every((at, i) => at >= 0 && (i === 0 || at > (order[i - 1] as number)))).toBe(true)
          expect(progress.map((e) => e.sequence)).toEqual(progress.map((_, i) => i + 1))
          // Nothing the tool reported after the loop reported the call's end.
          for (const r of reports) if (r.afterEnd) expect(emitted).not.toContain(r.message)
          // A call that finished by itself: everything it reported before returning arrived.
          if (mine.at(-1)?.type === 'tool-resolved') {
            for (const r of reports) if (r.beforeReturn) expect(emitted).toContain(r.message)
          }
          // Between the call's start and its end.
          expect(mine[0]?.type).toBe('tool-start')
          const end = mine.findIndex((e) => e.type !== 'tool-start' && e.type !== 'tool-progress')
          expect(end).toBe(mine.length - 1)
        }
        // Never in the history.
        expect(JSON.stringify(result.messages)).not.toContain('#1')
      }),
      { numRuns: 40 },
    )
  })

  it('writes a report to the history only when the tool keeps it', async () => {
    const index = defineModelTool<Record<string, never>, string>({
      id: 'index',
      description: 'Indexes files',
      inputSchema: { type: 'object' },
      execute: (_input, context) => {
        context.progress({ message: 'scanning', ratio: 0.1 })
        context.progress({ message: 'skipped 2 unreadable files', keep: true })
        context.progress({ message: 'writing', ratio: 0.9 })
        return '120 files indexed'
      },
    })
    const model = createScriptedModel([{ toolCalls: [{ id: 'c1', name: 'index' }] }, { text: 'Indexed.' }])
    const events: AgentEvent[] = []
    const result = await defineAgent({ model, tools: [index] }).run({
      prompt: 'index',
      onEvent: (e) => void events.push(e),
    })
    const tool = result.messages.find((m) => m.role === 'tool')
    expect(tool?.content).toBe('[progress] skipped 2 unreadable files\n120 files indexed')
    expect(events.filter((e) => e.type === 'tool-progress').map((e) => e.message)).toEqual([
      'scanning',
      'skipped 2 unreadable files',
      'writing',
    ])
    const resolved = events.find((e) => e.type === 'tool-resolved')
    expect(resolved?.type === 'tool-resolved' && resolved.content).toBe(tool?.content)
    expect(model.calls[1]?.messages.at(-1)?.content).toBe(tool?.content)
  })

  it('reaches the events from a lifecycle tool too, and refuses malformed reports to the tool', async () => {
    const problems: string[] = []
    const lifecycle = defineToolLifecycle(
      defineModelTool<Record<string, never>, string>({
        id: 'sync',
        description: 'Syncs',
        inputSchema: { type: 'object' },
        execute: (_input, context) => {
          for (const bad of [
            { ratio: 2 },
            { ratio: Number.NaN },
            { message: 4 },
            { colour: 'red' },
            'x',
            { data: () => 1 },
          ]) {
            try {
              context.progress(bad as never)
            } catch (error) {
              if (InvalidInputError.isInstance(error)) problems.push(String(error.details?.field))
            }
          }
          context.progress({ message: 'synced', ratio: 1 })
          return 'ok'
        },
      }),
      { complete: () => undefined },
    )
    const events: AgentEvent[] = []
    await defineAgent({
      model: createScriptedModel([{ toolCalls: [{ id: 's1', name: 'sync' }] }, { text: 'ok' }]),
      tools: [lifecycle],
    }).run({ prompt: 'sync', onEvent: (e) => void events.push(e) })
    expect(problems).toEqual([
      'update.ratio',
      'update.ratio',
      'update.message',
      'update.colour',
      'update',
      'update.data',
    ])
    expect(events.filter((e) => e.type === 'tool-progress')).toEqual([
      { type: 'tool-progress', toolCallId: 's1', toolId: 'sync', sequence: 1, message: 'synced', ratio: 1 },
    ])
  })

  it('durable runs: a resumed run replays no progress of the calls that settled before', async () => {
    const step = defineModelTool<{ n: number }, string>({
      id: 'step',
      description: 'One step',
      inputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
      execute: ({ n }, context) => {
        context.progress({ message: `step ${n} working` })
        return `step ${n} done`
      },
    })
    const turns: ScriptedTurn[] = [
      { toolCalls: [{ id: 'a', name: 'step', input: { n: 1 } }] },
      { toolCalls: [{ id: 'b', name: 'step', input: { n: 2 } }] },
      { text: 'both done' },
    ]
    const saves: AgentRunState[] = []
    const first = await defineAgent({ model: createScriptedModel(turns), tools: [step] }).run({
      prompt: 'go',
      onProgress: (state) => void saves.push(structuredClone(state)),
    })
    expect(first.reason).toBe('final')
    // The save right after call "a" settled, as a crashed process would have left it.
    const afterA = saves.find(
      (s) =>
        s.messages.some((m) => m.role === 'tool' && m.toolCallId === 'a') &&
        !s.messages.some((m) => m.role === 'tool' && m.toolCallId === 'b'),
    ) as AgentRunState
    expect(afterA).toBeDefined()
    expect(JSON.stringify(afterA)).not.toContain('working')
    const events: AgentEvent[] = []
    const resumed = await defineAgent({ model: createScriptedModel(turns.slice(1)), tools: [step] }).run({
      resume: afterA,
      onEvent: (e) => void events.push(e),
    })
    expect(resumed.reason).toBe('final')
    expect(events.filter((e) => e.type === 'tool-progress').map((e) => e.message)).toEqual(['step 2 working'])
  })
})
