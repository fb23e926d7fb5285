/** Tool state across the calls of one run: read, kept, serialized, saved in the state and resumed in another process. */
import { fileURLToPath } from 'node:url'
import { InvalidDefinitionError, InvalidInputError } from '@agent-core/core'
import { defineModelTool, type ToolExecutionContext } from '@agent-core/core/tools'
import { runWithToolState, type ToolStateRecord, toolState } from '@agent-core/kits/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { runChildJson } from '../testing/child-process.js'
import {
  type AgentRunState,
  assertAgentRunState,
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  defineExternalTool,
  type ScriptedTurn,
} from './index.js'
import { statefulAgent } from './internal/testing/stateful-agent.js'

const childScript = fileURLToPath(new URL('./internal/testing/tool-state-child.ts', import.meta.url))
function runChild(input: unknown): Promise<{
  reason?: string
  messages?: { role: string; content: string }[]
  state?: AgentRunState
  thrown?: string
}> {
  return runChildJson(childScript, input)
}

const toolTexts = (messages: readonly { role: string; content: unknown }[]) =>
  messages.filter((message) => message.role === 'tool').map((message) => message.content)

const call = (name: string) => ({ name, input: {} })

describe('tool state', () => {
  it("gives each call the previous call's result and count, one call at a time, and saves it in the state", async () => {
    const turns: ScriptedTurn[] = [
      { toolCalls: [call('page')] },
      { toolCalls: [call('page'), call('page')] },
      { toolCalls: [call('cursor')] },
      { toolCalls: [call('cursor')] },
      { text: 'Done.' },
    ]
    const result = await statefulAgent(turns).run({ prompt: 'Read on.' })
    expect(result.reason).toBe('final')
    expect(toolTexts(result.messages)).toEqual([
      '{"page":1,"before":0}',
      '{"page":2,"before":1}',
      '{"page":3,"before":2}',
      'at 10',
      'at 20',
    ])
    expect(result.state.toolState).toEqual({
      page: { calls: 3, lastResult: { page: 3, before: 2 } },
      cursor: { calls: 2, lastResult: 'at 20', kept: { at: 20 } },
    })
    assertAgentRunState(JSON.parse(JSON.stringify(result.state)))
  })

  it('keeps no state field for agents whose tools keep none', async () => {
    const clock = defineModelTool({
      id: 'clock',
      description: 'Time',
      inputSchema: {},
      execute: () => 'noon',
    })
    const agent = defineAgent({
      model: createScriptedModel([{ toolCalls: [call('clock')] }, { text: 'Noon.' }]),
      tools: [clock],
    })
    const result = await agent.run({ prompt: 'Time?' })
    expect(result.reason).toBe('final')
    expect('toolState' in result.state).toBe(false)
  })

  it('resumes with the same state in another process', async () => {
    const first: ScriptedTurn[] = [
      { toolCalls: [call('page')] },
      { toolCalls: [call('cursor'), call('page')] },
      { toolCalls: [{ id: 'c_confirm', name: 'confirm', input: {} }] },
    ]
    const suspended = await statefulAgent(first).run({ prompt: 'Read on.', defer: true })
    expect(suspended.reason).toBe('suspended')
    const saved = JSON.parse(JSON.stringify(suspended.state)) as AgentRunState
    expect(saved.toolState?.page).toEqual({ calls: 2, lastResult: { page: 2, before: 1 } })
    const answer = await runChild({
      turns: [{ toolCalls: [call('page'), call('cursor')] }, { text: 'Done.' }],
      state: saved,
      outcomes: { c_confirm: { type: 'approve', toolCallId: 'c_confirm', by: 'person' } },
    })
    expect(answer.thrown).toBeUndefined()
    expect(answer.reason).toBe('final')
    expect(toolTexts(answer.messages!).slice(-3)).toEqual(['confirmed', '{"page":3,"before":2}', 'at 20'])
    expect(answer.state?.toolState?.cursor).toEqual({ calls: 2, lastResult: 'at 20', kept: { at: 20 } })
  })

  it('fails a call whose tool does not keep state, or returns or keeps what is not JSON, and keeps the state as it was', async () => {
    const plain = defineModelTool({
      id: 'plain',
      description: 'Reads state it has none of',
      inputSchema: {},
      execute: (_input, context) => toolState(context).calls,
    })
    const dated = defineAgentTool(
      defineModelTool({
        id: 'dated',
        description: 'Returns a Date once',
        inputSchema: {},
        execute: (_input, context) => (toolState(context).calls === 0 ? 'first' : new Date(0)),
      }),
      { keepState: true },
    )
    const keeper = defineAgentTool(
      defineModelTool({
        id: 'keeper',
        description: 'Keeps a function',
        inputSchema: {},
        execute: (_input, context) => {
          toolState(context).keep({ fn: (() => 1) as never })
          return 'kept'
        },
      }),
      { keepState: true },
    )
    const agent = defineAgent({
      model: createScriptedModel([
        { toolCalls: [call('plain'), call('dated'), call('keeper')] },
        { toolCalls: [call('dated')] },
        { text: 'Done.' },
      ]),
      tools: [plain, dated, keeper],
    })
    const result = await agent.run({ prompt: 'Go.' })
    // The first turn's three calls settle in any order; the second turn's call comes last.
    const texts = toolTexts(result.messages) as string[]
    expect(texts).toHaveLength(4)
    expect(texts.slice(0, 3)).toEqual(
      expect.arrayContaining([
        'first',
        expect.stringMatching(/found no tool state for this call/),
        expect.stringMatching(/keep takes plain JSON.*data\.fn/),
      ]),
    )
    expect(texts[3]).toMatch(/must return plain JSON/)
    expect(result.state.toolState).toEqual({ dated: { calls: 1, lastResult: 'first' } })
  })

  it('refuses keepState on tools the run does not execute, and a value that is not a boolean', () => {
    const echo = defineModelTool({ id: 'echo', description: 'Echo', inputSchema: {}, execute: () => 'x' })
    expect(() => defineAgentTool(echo, { keepState: 'yes' as never })).toThrow(InvalidDefinitionError)
    expect(() =>
      defineExternalTool({ id: 'open_page', description: 'Opens', inputSchema: {}, keepState: true }),
    ).toThrow(/keepState is for tools the run executes/)
  })

  it('refuses a saved tool state that is not one', async () => {
    const result = await statefulAgent([{ toolCalls: [call('page')] }, { text: 'Done.' }]).run({
      prompt: 'Go.',
    })
    const bad = (toolState: unknown) => ({ ...JSON.parse(JSON.stringify(result.state)), toolState })
    for (const value of [
      [],
      { page: { calls: 0 } },
      { page: { calls: 1.5 } },
      { page: { calls: 1, extra: 1 } },
    ]) {
      expect(() => assertAgentRunState(bad(value))).toThrow(InvalidInputError)
    }
  })

  it('counts returned calls and keeps the last result and kept data, like a reference model (property)', async () => {
    const json = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<never>
    const step = fc.record({
      outcome: fc.oneof(
        fc.record({ type: fc.constant('return' as const), value: fc.option(json, { nil: undefined }) }),
        fc.constant({ type: 'throw' as const }),
      ),
      keep: fc.option(json, { nil: undefined }),
    })
    const context = {
      invocationId: 'inv',
      progress: () => undefined,
      signal: new AbortController().signal,
    } as never as ToolExecutionContext<unknown>
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
        let record: ToolStateRecord | undefined
        const model = { calls: 0, lastResult: undefined as unknown, kept: undefined as unknown }
        for (const { outcome, keep } of steps) {
          const seen = { calls: 0, lastResult: undefined as unknown, kept: undefined as unknown }
          const run = runWithToolState(record, context, (ctx) => {
            const state = toolState(ctx)
            Object.assign(seen, { calls: state.calls, lastResult: state.lastResult, kept: state.kept })
            if (keep !== undefined) state.keep(keep)
            if (outcome.type === 'throw') throw new Error('failed')
            return outcome.value
          })
          expect(seen).toEqual(model)
          if (outcome.type === 'throw') {
            await expect(run).rejects.toThrow('failed')
            continue
          }
          record = (await run).record
          const normal = (value: unknown) =>
            value === undefined ? undefined : JSON.parse(JSON.stringify(value))
          model.calls++
          model.lastResult = normal(outcome.value)
          if (keep !== undefined) model.kept = normal(keep)
        }
      }),
      { numRuns: 100 },
    )
  })
})
