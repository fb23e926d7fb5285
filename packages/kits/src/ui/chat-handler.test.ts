import { InvalidDefinitionError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import {
  type AgentRunState,
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  defineExternalTool,
  type ScriptedTurn,
} from '@agent-core/kits/loop'
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  type UIMessage,
} from 'ai'
import { describe, expect, it } from 'vitest'
import {
  type AgentUIMetadata,
  type ChatRunStore,
  createChatHandler,
  createMemoryChatRunStore,
} from './index.js'
import { VanillaChat } from './testing/vanilla-chat.js'

type Message = UIMessage<AgentUIMetadata>

function refundAgent(turns: ScriptedTurn[], paid: number[]) {
  const refund = defineAgentTool(
    defineModelTool<{ amount: number }, string>({
      id: 'refund',
      description: 'Refunds an order',
      inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
      execute: ({ amount }) => {
        paid.push(amount)
        return `refunded ${amount}`
      },
    }),
    { approval: { type: 'ask', reason: 'Refunds need a person.' } },
  )
  const model = createScriptedModel(turns)
  return { agent: defineAgent({ model, tools: [refund] }), model }
}

/** The AI SDK's own client, its default HTTP transport, and the handler behind its fetch. */
function chatWith(handle: (request: Request) => Promise<Response>, id = 'chat-1') {
  const requests: unknown[] = []
  const finished = { count: 0 }
  const chat = new VanillaChat<Message>({
    id,
    onFinish: () => {
      finished.count++
    },
    transport: new DefaultChatTransport<Message>({
      api: 'http://app.local/api/chat',
      fetch: async (url, init) => {
        requests.push(JSON.parse(String(init?.body)))
        return handle(new Request(url as string, init))
      },
    }),
    sendAutomaticallyWhen: (options) =>
      lastAssistantMessageIsCompleteWithApprovalResponses(options) ||
      lastAssistantMessageIsCompleteWithToolCalls(options),
  })
  /** Waits until the client has finished `responses` responses in all (automatic resubmissions included). */
  const settled = async (responses: number): Promise<void> => {
    while (finished.count < responses && chat.status !== 'error')
      await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return { chat, requests, settled }
}

const toolPart = (message: Message | undefined, toolCallId: string) =>
  message?.parts.find((p) => 'toolCallId' in p && p.toolCallId === toolCallId) as
    | { state: string; output?: unknown; approval?: { id: string; approved?: boolean } }
    | undefined

describe('createChatHandler with the AI SDK client', () => {
  it('runs a chat turn: the page shows the streamed answer', async () => {
    const agent = defineAgent({ model: createScriptedModel([{ text: 'Hello from the agent.' }]) })
    const { chat, requests, settled } = chatWith(createChatHandler({ agent }))
    await chat.sendMessage({ text: 'Hi' })
    await settled(1)
    expect(chat.error).toBeUndefined()
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(chat.messages[1]!.parts.at(-1)).toMatchObject({ type: 'text', text: 'Hello from the agent.' })
    expect(chat.messages[1]!.metadata?.reason).toBe('final')
    expect(requests).toHaveLength(1)
  })

  it('round-trips an approval: suspends, the click resumes the same message, the call runs once', async () => {
    const paid: number[] = []
    const { agent, model } = refundAgent(
      [
        { text: 'Refunding.', toolCalls: [{ id: 'call_r', name: 'refund', input: { amount: 40 } }] },
        (request) => ({ text: `Done: ${request.messages.at(-1)?.content}.` }),
      ],
      paid,
    )
    const store = createMemoryChatRunStore()
    const { chat, requests, settled } = chatWith(createChatHandler({ agent, store }))
    await chat.sendMessage({ text: 'Refund order 7' })
    await settled(1)
    const waiting = chat.messages.at(-1)!
    expect(toolPart(waiting, 'call_r')).toMatchObject({
      state: 'approval-requested',
      approval: { id: 'call_r' },
    })
    expect(waiting.metadata?.reason).toBe('suspended')
    expect(paid).toEqual([])
    const saved = (await store.load('chat-1')) as AgentRunState
    expect(saved.status).toBe('suspended')

    await chat.addToolApprovalResponse({ id: 'call_r', approved: true })
    await settled(2)
    expect(chat.error).toBeUndefined()
    expect(requests).toHaveLength(2)
    // Same assistant message, continued.
    expect(chat.messages).toHaveLength(2)
    const done = chat.messages[1]!
    expect(done.id).toBe(waiting.id)
    expect(toolPart(done, 'call_r')).toMatchObject({ state: 'output-available', output: 'refunded 40' })
    expect(done.parts.at(-1)).toMatchObject({ type: 'text', text: 'Done: refunded 40.' })
    expect(done.metadata?.reason).toBe('final')
    expect(paid).toEqual([40])
    expect(await store.load('chat-1')).toBeUndefined()
    model.assertDone()
  })

  it('sends a refusal to the model and shows the call denied', async () => {
    const paid: number[] = []
    const { agent, model } = refundAgent(
      [
        { toolCalls: [{ id: 'call_r', name: 'refund', input: { amount: 900 } }] },
        (request) => ({ text: `Not refunded (${request.messages.at(-1)?.content}).` }),
      ],
      paid,
    )
    const { chat, settled } = chatWith(createChatHandler({ agent }))
    await chat.sendMessage({ text: 'Refund everything' })
    await settled(1)
    await chat.addToolApprovalResponse({ id: 'call_r', approved: false, reason: 'Too much.' })
    await settled(2)
    const done = chat.messages.at(-1)!
    expect(toolPart(done, 'call_r')?.state).toBe('output-denied')
    expect(done.parts.at(-1)).toMatchObject({ type: 'text' })
    expect(String((done.parts.at(-1) as { text: string }).text)).toContain('Too much.')
    expect(paid).toEqual([])
    model.assertDone()
  })

  it('resumes an external tool with the output the page adds', async () => {
    const locate = defineExternalTool<Record<string, never>, { lat: number }>({
      id: 'locate',
      description: "The user's position, from the browser",
      inputSchema: { type: 'object' },
    })
    const model = createScriptedModel([
      { toolCalls: [{ id: 'call_l', name: 'locate', input: {} }] },
      (request) => ({ text: `You are at ${request.messages.at(-1)?.content}.` }),
    ])
    const { chat, settled } = chatWith(createChatHandler({ agent: defineAgent({ model, tools: [locate] }) }))
    await chat.sendMessage({ text: 'Where am I?' })
    await settled(1)
    expect(toolPart(chat.messages.at(-1), 'call_l')?.state).toBe('input-available')
    await chat.addToolOutput({
      tool: 'locate' as never,
      toolCallId: 'call_l',
      output: { lat: 45.7 } as never,
    })
    await settled(2)
    expect(chat.messages.at(-1)!.parts.at(-1)).toMatchObject({
      type: 'text',
      text: 'You are at {"lat":45.7}.',
    })
    model.assertDone()
  })

  it('refuses a second resume of the same suspension (a double-clicked Approve) with 409, running nothing', async () => {
    const paid: number[] = []
    const { agent } = refundAgent(
      [{ toolCalls: [{ id: 'call_r', name: 'refund', input: { amount: 5 } }] }, { text: 'ok' }],
      paid,
    )
    const handle = createChatHandler({ agent, store: createMemoryChatRunStore() })
    const { chat, requests, settled } = chatWith(handle)
    await chat.sendMessage({ text: 'Refund' })
    await settled(1)
    const stale: AgentRunState[] = []
    const recording: ChatRunStore = {
      load: () => stale[0],
      save: () => undefined,
      delete: () => undefined,
    }
    await chat.addToolApprovalResponse({ id: 'call_r', approved: true })
    await settled(2)
    expect(paid).toEqual([5])
    const body = structuredClone(requests[1]) as { messages: unknown[] }
    // The store forgot the run; the same answer again is a 409 with nothing run.
    const again = await handle(post(body))
    expect(again.status).toBe(409)
    expect(await again.json()).toMatchObject({ error: { code: 'nothing-to-resume' } })
    // A store that still hands out the consumed state: the agent's ledger refuses it.
    const { agent: agent2 } = refundAgent(
      [
        { toolCalls: [{ id: 'call_r', name: 'refund', input: { amount: 5 } }] },
        { text: 'ok' },
        { text: 'ok' },
      ],
      paid,
    )
    const suspended = await agent2.run({ prompt: 'Refund', defer: true })
    stale.push(suspended.state)
    const replay = createChatHandler({ agent: agent2, store: recording })
    const once = await replay(post(resumeBody(suspended.state)))
    expect(once.status).toBe(200)
    await once.text()
    const twice = await replay(post(resumeBody(suspended.state)))
    expect(twice.status).toBe(409)
    expect(await twice.json()).toMatchObject({ error: { code: 'suspension-consumed' } })
    expect(paid).toEqual([5, 5])
  })

  it('answers malformed requests with a JSON error', async () => {
    const handle = createChatHandler({ agent: defineAgent({ model: createScriptedModel([]) }) })
    const get = await handle(new Request('http://app.local/api/chat'))
    expect(get.status).toBe(405)
    for (const body of [
      'not json',
      '42',
      '{}',
      '{"id":"c","messages":[]}',
      '{"id":"c","messages":[{"role":"user"}]}',
    ]) {
      const response = await handle(new Request('http://app.local/api/chat', { method: 'POST', body }))
      expect(response.status).toBe(400)
      const json = (await response.json()) as { error: { code: string; message: string } }
      expect(json.error.code).toBe('invalid-input')
      expect(json.error.message.length).toBeGreaterThan(10)
    }
    const assistantLast = await handle(
      post({ id: 'c', messages: [{ id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }] }),
    )
    expect(assistantLast.status).toBe(409)
  })

  it('refuses bad options', () => {
    expect(() => createChatHandler(undefined as never)).toThrow(InvalidDefinitionError)
    expect(() => createChatHandler({ agent: {} as never })).toThrow(/options.agent/)
    const agent = defineAgent({ model: createScriptedModel([]) })
    expect(() => createChatHandler({ agent, context: 3 as never })).toThrow(/options.context/)
    expect(() => createChatHandler({ agent, store: { load: () => undefined } as never })).toThrow(/store/)
  })
})

function post(body: unknown): Request {
  return new Request('http://app.local/api/chat', { method: 'POST', body: JSON.stringify(body) })
}

function resumeBody(state: AgentRunState) {
  return {
    id: 'chat-x',
    messages: [
      { id: 'u', role: 'user', parts: [{ type: 'text', text: 'Refund' }] },
      {
        id: 'a',
        role: 'assistant',
        parts: [
          { type: 'step-start' },
          {
            type: 'tool-refund',
            toolCallId: state.pending[0]!.toolCallId,
            state: 'approval-responded',
            input: { amount: 5 },
            approval: { id: state.pending[0]!.toolCallId, approved: true },
          },
        ],
      },
    ],
  }
}
