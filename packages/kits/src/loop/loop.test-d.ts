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
})
