import { EventSchemas } from '@ag-ui/core/schemas'
import { defineModelTool } from '@agent-core/core/tools'
import { createScriptedModel, defineAgent, defineAgentTool, type ScriptedTurn } from '@agent-core/kits/loop'
import { describe, expect, it } from 'vitest'
import { type AgUiEvent, createAgUiHandler, fromAgUiMessages, toAgUiEvents } from './index.js'

/** Every event checked by `@ag-ui/core`'s own schema. */
async function collect(events: AsyncIterable<AgUiEvent>): Promise<AgUiEvent[]> {
  const out: AgUiEvent[] = []
  for await (const event of events) {
    EventSchemas.parse(event)
    out.push(event)
  }
  return out
}

async function readSse(response: Response): Promise<AgUiEvent[]> {
  const text = await response.text()
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => EventSchemas.parse(JSON.parse(block.slice(6))) as unknown as AgUiEvent)
}

const paid: number[] = []
const refund = defineAgentTool(
  defineModelTool<{ amount: number }, string>({
    id: 'refund',
    description: 'Refunds an order',
    inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
    execute: ({ amount }, context) => {
      context.progress({ message: 'contacting the bank', ratio: 0.5 })
      paid.push(amount)
      return `refunded ${amount}`
    },
  }),
  { approval: { type: 'ask', reason: 'Refunds need a person.' } },
)

describe('AG-UI events', () => {
  it('writes text, reasoning, steps, tool calls and results as events @ag-ui/core accepts', async () => {
    const weather = defineModelTool<{ city: string }, string>({
      id: 'weather',
      description: 'Weather',
      inputSchema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
      execute: ({ city }, context) => {
        context.progress({ message: 'asking the station', ratio: 0.5 })
        return `sunny in ${city}`
      },
    })
    const turns: ScriptedTurn[] = [
      { thinking: 'Need the weather.', toolCalls: [{ id: 'c1', name: 'weather', input: { city: 'Lyon' } }] },
      { text: 'Sunny in Lyon.' },
    ]
    const agent = defineAgent({ model: createScriptedModel(turns), tools: [weather] })
    const events = await collect(
      toAgUiEvents(agent.stream({ prompt: 'Weather?' }), { threadId: 't1', runId: 'r1' }),
    )
    expect(events.map((e) => e.type)).toEqual([
      'RUN_STARTED',
      'STEP_STARTED',
      'REASONING_START',
      'REASONING_MESSAGE_START',
      'REASONING_MESSAGE_CONTENT',
      'REASONING_MESSAGE_END',
      'REASONING_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'ACTIVITY_SNAPSHOT',
      'TOOL_CALL_RESULT',
      'STEP_FINISHED',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
      'RUN_FINISHED',
    ])
    const text = events.flatMap((e) => (e.type === 'TEXT_MESSAGE_CONTENT' ? [e.delta] : [])).join('')
    expect(text).toBe('Sunny in Lyon.')
    expect(events.find((e) => e.type === 'TOOL_CALL_RESULT')).toMatchObject({
      toolCallId: 'c1',
      content: 'sunny in Lyon',
    })
    expect(events.find((e) => e.type === 'ACTIVITY_SNAPSHOT')).toMatchObject({
      activityType: 'tool-progress',
      content: { toolCallId: 'c1', message: 'asking the station', ratio: 0.5, sequence: 1 },
    })
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      threadId: 't1',
      runId: 'r1',
      outcome: { type: 'success' },
      result: 'Sunny in Lyon.',
    })
  })

  it('ends a failed run with RUN_ERROR and a stopped one as cancelled', async () => {
    const failed = await collect(
      toAgUiEvents(
        defineAgent({ model: createScriptedModel([{ error: new Error('down') }]) }).stream({ prompt: 'x' }),
        {
          threadId: 't',
        },
      ),
    )
    expect(failed.at(-1)).toEqual({ type: 'RUN_ERROR', message: 'The run failed.', code: 'run-failed' })
    const controller = new AbortController()
    controller.abort()
    const stopped = await collect(
      toAgUiEvents(
        defineAgent({ model: createScriptedModel([{ text: 'never' }]) }).stream(
          { prompt: 'x' },
          { signal: controller.signal },
        ),
        { threadId: 't' },
      ),
    )
    expect(stopped.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'cancelled' } })
  })

  it('interrupts on an approval and resumes from the resume entry over the fetch handler', async () => {
    paid.length = 0
    const model = createScriptedModel([
      { toolCalls: [{ id: 'call_r', name: 'refund', input: { amount: 30 } }] },
      (request) => ({ text: `Done: ${request.messages.at(-1)?.content}` }),
    ])
    const handle = createAgUiHandler({ agent: defineAgent({ model, tools: [refund] }) })
    const post = (body: unknown) =>
      handle(new Request('http://app.local/agent', { method: 'POST', body: JSON.stringify(body) }))
    const first = await readSse(
      await post({
        threadId: 'th',
        runId: 'r1',
        messages: [{ id: 'u1', role: 'user', content: 'Refund order 7' }],
      }),
    )
    expect(first.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      runId: 'r1',
      outcome: {
        type: 'interrupt',
        interrupts: [
          { id: 'call_r', reason: 'tool-approval', message: 'Refunds need a person.', toolCallId: 'call_r' },
        ],
      },
    })
    expect(paid).toEqual([])
    const second = await readSse(
      await post({
        threadId: 'th',
        runId: 'r2',
        messages: [],
        resume: [{ interruptId: 'call_r', status: 'resolved', payload: { approved: true } }],
      }),
    )
    expect(second.find((e) => e.type === 'TOOL_CALL_RESULT')).toMatchObject({
      toolCallId: 'call_r',
      content: 'refunded 30',
    })
    expect(second.at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      runId: 'r2',
      outcome: { type: 'success' },
      result: 'Done: refunded 30',
    })
    expect(paid).toEqual([30])
    // The same answer again: nothing waits any more.
    const again = await post({
      threadId: 'th',
      runId: 'r3',
      messages: [],
      resume: [{ interruptId: 'call_r', status: 'resolved' }],
    })
    expect(again.status).toBe(409)
    model.assertDone()
  })

  it('refuses malformed inputs and converts AG-UI messages to the history', async () => {
    const handle = createAgUiHandler({ agent: defineAgent({ model: createScriptedModel([]) }) })
    expect((await handle(new Request('http://a.local/'))).status).toBe(405)
    for (const body of [
      'nope',
      '{}',
      '{"threadId":"t","runId":"r"}',
      '{"threadId":"t","runId":"r","messages":[1]}',
    ]) {
      const response = await handle(new Request('http://a.local/', { method: 'POST', body }))
      expect(response.status).toBe(400)
    }
    expect(() => createAgUiHandler({} as never)).toThrow(/agent/)
    await expect(toAgUiEvents(42 as never, { threadId: 't' }).next()).rejects.toThrow(/events/)
    expect(
      fromAgUiMessages([
        { id: '1', role: 'system', content: 'x' },
        { id: '2', role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        {
          id: '3',
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c', function: { name: 'f', arguments: '{}' } }],
        },
        { id: '4', role: 'tool', toolCallId: 'c', content: 'ok' },
      ]),
    ).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'f', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c', content: 'ok' },
    ])
  })
})
