import type { ChatMessage } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import {
  type AgentEvent,
  type AgentResult,
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  defineAnswerFlow,
  defineQuestionTool,
  structuredAnswer,
} from './index.js'

const refund = defineModelTool<{ orderId: string; amount: number }, string, { userId: string }>({
  id: 'refund',
  description: 'Refunds',
  inputSchema: { type: 'object' },
  execute: ({ amount }) => `refunded ${amount}`,
})

describe('loop types', () => {
  it('types the answer from the AnswerFlow', async () => {
    const model = createScriptedModel([])
    const text = defineAgent({ model })
    expectTypeOf(text.run).returns.toEqualTypeOf<Promise<AgentResult<string>>>()
    const structured = defineAgent({
      model,
      answer: structuredAnswer({ schema: z.object({ city: z.string(), tempC: z.number() }) }),
    })
    const result = await structured.run({ prompt: 'x' })
    if (result.reason === 'final')
      expectTypeOf(result.answer).toEqualTypeOf<{ city: string; tempC: number }>()
    if (result.reason === 'suspended')
      expectTypeOf(result.pending[0]!.waitingFor).toEqualTypeOf<
        'approval' | 'external' | 'question' | 'running'
      >()
    // @ts-expect-error: only a final result has an answer
    result.answer
    const counted = defineAgent({
      model,
      answer: defineAnswerFlow({ decide: ({ text }) => ({ type: 'accept', value: text.length }) }),
    })
    const count = await counted.run({ prompt: 'x' })
    if (count.reason === 'final') expectTypeOf(count.answer).toEqualTypeOf<number>()
  })

  it('types approval policies and hooks from the tool, and the context from the App', () => {
    defineAgentTool(refund, {
      approval: (call, context) => {
        expectTypeOf(call.input).toEqualTypeOf<{ orderId: string; amount: number }>()
        expectTypeOf(context.app).toEqualTypeOf<{ userId: string }>()
        return call.input.amount > 100 ? 'ask' : 'allow'
      },
      complete: ({ output }) => {
        expectTypeOf(output).toEqualTypeOf<string>()
      },
    })
    defineAgentTool(refund, {
      // @ts-expect-error: not an approval answer
      approval: () => 'maybe',
    })
    defineQuestionTool<{ options: string[] }, { account: string }>({
      id: 'choose',
      description: 'choose',
      inputSchema: {},
      answerSchema: {},
      question: (input) => {
        expectTypeOf(input.options).toEqualTypeOf<string[]>()
        return 'Which?'
      },
    })
  })

  it('narrows events by type', () => {
    const show = (event: AgentEvent) => {
      if (event.type === 'tool-rejected')
        expectTypeOf(event.by).toEqualTypeOf<'person' | 'policy' | 'earlier-refusal'>()
      if (event.type === 'tool-aborted')
        expectTypeOf(event.cause).toEqualTypeOf<
          'stopped' | 'timeout' | 'no-handler' | 'no-resolver' | undefined
        >()
      if (event.type === 'text-delta') expectTypeOf(event.text).toEqualTypeOf<string>()
    }
    void show
    const history: ChatMessage[] = []
    void defineAgent({ model: createScriptedModel([]), tools: [refund] }).run({
      prompt: 'x',
      onHistoryAppend: (message) => void history.push(message),
    })
  })

  it('onEvent takes synchronous listeners only: the type refuses an async one', () => {
    const agent = defineAgent({ model: createScriptedModel([]) })
    const seen: AgentEvent[] = []
    const byType = new Map<string, AgentEvent>()
    void agent.run({ prompt: 'x', onEvent: (event) => console.log(event.type) })
    void agent.run({ prompt: 'x', onEvent: (event) => seen.push(event) })
    void agent.run({ prompt: 'x', onEvent: (event) => byType.set(event.type, event) })
    const log = (event: AgentEvent) => {
      seen.push(event)
    }
    void agent.run({ prompt: 'x', onEvent: log })
    // @ts-expect-error an async listener would not be awaited: iterate agent.stream(request) instead
    void agent.run({ prompt: 'x', onEvent: async (event) => void seen.push(event) })
    const later = async (event: AgentEvent) => {
      seen.push(event)
    }
    // @ts-expect-error a named async listener is refused too
    void agent.run({ prompt: 'x', onEvent: later })
    // @ts-expect-error so is one that returns a Promise
    void agent.run({ prompt: 'x', onEvent: (event) => Promise.resolve(event) })
  })
})
