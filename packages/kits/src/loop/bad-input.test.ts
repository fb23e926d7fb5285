/** Garbage in, typed errors out: every public entry of the loop kit (property). */
import { AgentCoreError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppError, deepGarbage } from '../testing/garbage.js'
import {
  agentRunStep,
  assertAgentRunState,
  createAgentRunState,
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  defineAnswerFlow,
  defineExternalTool,
  defineQuestionTool,
  estimateTokens,
  isAgentRunState,
  structuredAnswer,
  trimMessages,
} from './index.js'

/** A thenable that settles at once, so no run under test can hang on it. */
const settling = { then: (resolve: (value: unknown) => void) => resolve('{}') }

const garbage: fc.Arbitrary<unknown> = deepGarbage(
  [
    settling,
    () => settling,
    () => Number.NaN,
    new AbortController().signal,
    { role: 'user' },
    { type: 'approve' },
  ],
  fc.sparseArray(fc.anything(), { maxLength: 4 }),
)

function maybe<T>(valid: T): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: fc.constant(valid), weight: 3 }, { arbitrary: garbage, weight: 1 })
}

async function typedOrSuccess(run: () => unknown): Promise<void> {
  try {
    await run()
  } catch (error) {
    if (error instanceof AppError) return
    if (!AgentCoreError.isInstance(error)) {
      throw new Error(`expected an AgentCoreError, got ${String(error)}`, { cause: error })
    }
    expect(AgentCoreError.isInstance(error)).toBe(true)
  }
}

// biome-ignore lint/suspicious/noExplicitAny: garbage goes through the public API on purpose
type Loose = any

const echo = defineModelTool({ id: 'echo', description: 'echo', inputSchema: {}, execute: () => 'echo' })

describe('loop kit: garbage input (property)', () => {
  it('defineAgent and the tool definitions reject garbage only with AgentCoreError', async () => {
    await fc.assert(
      fc.asyncProperty(garbage, garbage, garbage, async (a, b, c) => {
        await typedOrSuccess(() => defineAgent(a as Loose))
        await typedOrSuccess(() =>
          defineAgent({
            model: createScriptedModel([]),
            tools: [echo],
            ...(typeof b === 'object' && b !== null && !Array.isArray(b) ? b : { maxTurns: b }),
          } as Loose),
        )
        await typedOrSuccess(() => defineAgent({ model: createScriptedModel([]), tools: a } as Loose))
        await typedOrSuccess(() => defineAgentTool(a as Loose, b as Loose))
        await typedOrSuccess(() =>
          defineAgentTool(echo, { approval: a, maxTurns: b, replayPolicy: c } as Loose),
        )
        await typedOrSuccess(() => defineExternalTool(a as Loose))
        await typedOrSuccess(() =>
          defineExternalTool({ id: 'x', description: 'x', inputSchema: {}, approval: b } as Loose),
        )
        await typedOrSuccess(() => defineQuestionTool(a as Loose))
        await typedOrSuccess(() =>
          defineQuestionTool({
            id: 'q',
            description: 'q',
            inputSchema: {},
            answerSchema: b,
            question: c,
          } as Loose),
        )
        await typedOrSuccess(() => defineAnswerFlow(a as Loose))
        await typedOrSuccess(() => structuredAnswer(a as Loose))
        await typedOrSuccess(() => structuredAnswer({ schema: { type: 'object' }, mode: b } as Loose))
        await typedOrSuccess(() => createScriptedModel(a as Loose, b as Loose))
        await typedOrSuccess(() => createScriptedModel([a] as Loose))
        await typedOrSuccess(() => agentRunStep(a as Loose, b as Loose))
        await typedOrSuccess(() => agentRunStep(defineAgent({ model: createScriptedModel([]) }), b as Loose))
        await typedOrSuccess(() => createAgentRunState(a as Loose))
        expect(typeof isAgentRunState(a)).toBe('boolean')
      }),
      { numRuns: 300 },
    )
  })

  it('run, resume and the helpers reject garbage only with AgentCoreError', async () => {
    await fc.assert(
      fc.asyncProperty(
        garbage,
        fc.record(
          {
            prompt: maybe('hi'),
            messages: garbage,
            toolChoice: garbage,
            defer: garbage,
            onEvent: garbage,
            onHistoryAppend: garbage,
            resolveApproval: garbage,
            runId: garbage,
          },
          { requiredKeys: [] },
        ),
        garbage,
        garbage,
        async (a, request, context, state) => {
          const model = createScriptedModel([
            { toolCalls: [{ name: 'echo' }] },
            { text: 'done' },
            { text: 'again' },
          ])
          const agent = defineAgent({ model, tools: [echo] })
          await typedOrSuccess(() => agent.run(a as Loose))
          await typedOrSuccess(() => agent.run(request as Loose, context as Loose))
          await typedOrSuccess(() => agent.run({ resume: state, outcomes: a } as Loose))
          await typedOrSuccess(() => assertAgentRunState(state))
          await typedOrSuccess(() => trimMessages(a as Loose, state as Loose))
          await typedOrSuccess(() =>
            trimMessages([{ role: 'user', content: 'x' }], { maxTokens: a } as Loose),
          )
          await typedOrSuccess(() => estimateTokens(a as Loose))
          const stream = agent.stream(a as Loose)
          await typedOrSuccess(async () => {
            for await (const _event of stream) {
              // drain
            }
          })
          await typedOrSuccess(() => stream.result)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('a resume built from a real state with garbage outcomes is refused with typed errors', async () => {
    const pending = defineAgentTool(echo, { approval: 'ask' })
    const first = await defineAgent({
      model: createScriptedModel([{ toolCalls: [{ name: 'echo' }] }]),
      tools: [pending],
    }).run({
      prompt: 'x',
      defer: true,
    })
    await fc.assert(
      fc.asyncProperty(garbage, garbage, async (outcome, field) => {
        const agent = defineAgent({ model: createScriptedModel([{ text: 'ok' }]), tools: [pending] })
        await typedOrSuccess(() =>
          agent.run({ resume: first.state, outcomes: { call_1_0: outcome } } as Loose),
        )
        await typedOrSuccess(() =>
          agent.run({
            resume: first.state,
            outcomes: { call_1_0: { type: 'approve', toolCallId: 'call_1_0', by: field } },
          } as Loose),
        )
        await typedOrSuccess(() => agent.run({ resume: { ...first.state, pending: [outcome] } } as Loose))
        await typedOrSuccess(() => agent.run({ resume: { ...first.state, messages: [outcome] } } as Loose))
      }),
      { numRuns: 200 },
    )
  })
})
