import { InvalidInputError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { type AgentEvent, createScriptedModel, defineAgent, type ScriptedTurn } from '@agent-core/kits/loop'
import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai'
import { describe, expect, it } from 'vitest'
import {
  type AgentUIChunk,
  type AgentUIMetadata,
  fromUIMessages,
  toUIMessageStream,
  toUIMessageStreamResponse,
} from './index.js'

type Message = UIMessage<AgentUIMetadata>

/** Every state of the assistant message as the AI SDK's own client-side parser builds it. */
async function snapshots(stream: ReadableStream<AgentUIChunk>, errors: unknown[] = []): Promise<Message[]> {
  const out: Message[] = []
  for await (const message of readUIMessageStream<Message>({
    stream: stream as ReadableStream<UIMessageChunk>,
    onError: (error) => errors.push(error),
  }))
    out.push(structuredClone(message))
  return out
}

async function chunksOf(stream: ReadableStream<AgentUIChunk>): Promise<AgentUIChunk[]> {
  const out: AgentUIChunk[] = []
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return out
    out.push(value)
  }
}

const weather = defineModelTool<{ city: string }, { city: string; sky: string }>({
  id: 'weather',
  description: 'Current weather in a city',
  inputSchema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
  execute: ({ city }) => ({ city, sky: city === 'Lyon' ? 'sunny' : 'rain' }),
})

const broken = defineModelTool<Record<string, never>, string>({
  id: 'broken',
  description: 'Always fails',
  inputSchema: { type: 'object' },
  execute: () => {
    throw new Error('the sensor is offline')
  },
})

function run(turns: ScriptedTurn[], options: { stream?: boolean } = {}) {
  const agent = defineAgent({
    model: createScriptedModel(turns, { stream: options.stream ?? true }),
    tools: [weather, broken],
  })
  return agent.stream({ prompt: 'Weather?' })
}

describe('toUIMessageStream, read by the AI SDK', () => {
  it('streams text in order and finishes with the run in the metadata', async () => {
    const all = await snapshots(toUIMessageStream(run([{ text: 'It is sunny in Lyon.' }])))
    const last = all.at(-1)!
    expect(last.role).toBe('assistant')
    expect(last.parts).toEqual([
      { type: 'step-start' },
      { type: 'text', text: 'It is sunny in Lyon.', state: 'done' },
    ])
    // The text grew delta by delta, each snapshot a prefix of the next.
    const texts = all.map((m) => m.parts.find((p) => p.type === 'text')).filter(Boolean) as { text: string }[]
    expect(texts.length).toBeGreaterThan(2)
    for (let i = 1; i < texts.length; i++) expect(texts[i]!.text.startsWith(texts[i - 1]!.text)).toBe(true)
    expect(last.metadata?.reason).toBe('final')
    expect(last.metadata?.turns).toBe(1)
    expect(last.metadata?.usage?.totalTokens).toBeGreaterThan(0)
    expect(last.metadata?.runId).toMatch(/^run/)
  })

  it('sends a reply that did not stream as one text part', async () => {
    const last = (await snapshots(toUIMessageStream(run([{ text: 'Whole reply.' }], { stream: false })))).at(
      -1,
    )!
    expect(last.parts).toEqual([
      { type: 'step-start' },
      { type: 'text', text: 'Whole reply.', state: 'done' },
    ])
  })

  it('sends reasoning before the text, or leaves it out', async () => {
    const turns: ScriptedTurn[] = [{ thinking: 'The user wants Lyon.', text: 'Sunny.' }]
    const last = (await snapshots(toUIMessageStream(run(turns)))).at(-1)!
    expect(last.parts.map((p) => p.type)).toEqual(['step-start', 'reasoning', 'text'])
    expect(last.parts[1]).toMatchObject({ type: 'reasoning', text: 'The user wants Lyon.', state: 'done' })
    const quiet = (await snapshots(toUIMessageStream(run(turns), { sendReasoning: false }))).at(-1)!
    expect(quiet.parts.map((p) => p.type)).toEqual(['step-start', 'text'])
  })

  it('sends parallel tool calls with their inputs and outputs, a step per model call', async () => {
    const turns: ScriptedTurn[] = [
      {
        text: 'Checking both.',
        toolCalls: [
          { id: 'call_a', name: 'weather', input: { city: 'Lyon' } },
          { id: 'call_b', name: 'weather', input: { city: 'Brest' } },
        ],
      },
      { text: 'Lyon is sunny, Brest is rainy.' },
    ]
    const all = await snapshots(toUIMessageStream(run(turns)))
    const last = all.at(-1)!
    expect(last.parts.map((p) => p.type)).toEqual([
      'step-start',
      'text',
      'tool-weather',
      'tool-weather',
      'step-start',
      'text',
    ])
    expect(last.parts[2]).toMatchObject({
      toolCallId: 'call_a',
      state: 'output-available',
      input: { city: 'Lyon' },
      output: { city: 'Lyon', sky: 'sunny' },
    })
    expect(last.parts[3]).toMatchObject({
      toolCallId: 'call_b',
      state: 'output-available',
      output: { city: 'Brest', sky: 'rain' },
    })
    // Both calls were shown with their input before either had its output.
    const both = all.find(
      (m) =>
        m.parts.filter((p) => p.type === 'tool-weather' && 'state' in p && p.state === 'input-available')
          .length === 2,
    )
    expect(both).toBeDefined()
    expect(last.metadata).toMatchObject({ reason: 'final', turns: 2 })
  })

  it('sends a failing tool as an output error with what the model read, and malformed arguments as an input error', async () => {
    const turns: ScriptedTurn[] = [
      {
        toolCalls: [
          { id: 'call_x', name: 'broken', input: {} },
          { id: 'call_y', name: 'weather', arguments: '{"city": ' },
        ],
      },
      { text: 'The sensor is offline.' },
    ]
    const last = (await snapshots(toUIMessageStream(run(turns)))).at(-1)!
    const failed = last.parts.find((p) => 'toolCallId' in p && p.toolCallId === 'call_x') as {
      state: string
      errorText: string
    }
    expect(failed.state).toBe('output-error')
    expect(failed.errorText).toContain('the sensor is offline')
    const malformed = last.parts.find((p) => 'toolCallId' in p && p.toolCallId === 'call_y') as {
      state: string
      errorText: string
    }
    expect(malformed.state).toBe('output-error')
    expect(last.parts.at(-1)).toMatchObject({ type: 'text', text: 'The sensor is offline.' })
  })

  it('sends tool progress as one data part per call, updated in place, and never as history', async () => {
    const survey = defineModelTool<Record<string, never>, string>({
      id: 'survey',
      description: 'Reads three sources',
      inputSchema: { type: 'object' },
      execute: async (_input, context) => {
        for (let n = 1; n <= 3; n++) {
          await new Promise((resolve) => setImmediate(resolve))
          context.progress({ message: `source ${n}/3`, ratio: n / 3, data: { n } })
        }
        return 'read 3 sources'
      },
    })
    const make = () =>
      defineAgent({
        model: createScriptedModel([{ toolCalls: [{ id: 'call_s', name: 'survey' }] }, { text: 'Done.' }]),
        tools: [survey],
      }).stream({ prompt: 'Survey' })
    const all = await snapshots(toUIMessageStream(make()))
    const progressOf = (m: Message) =>
      m.parts.filter((p) => p.type === 'data-tool-progress') as {
        id: string
        data: { message: string; sequence: number }
      }[]
    const seen = all.flatMap((m) => progressOf(m).map((p) => p.data.message))
    expect([...new Set(seen)]).toEqual(['source 1/3', 'source 2/3', 'source 3/3'])
    const last = all.at(-1)!
    expect(progressOf(last)).toEqual([
      {
        type: 'data-tool-progress',
        id: 'progress-call_s',
        data: {
          toolCallId: 'call_s',
          toolId: 'survey',
          sequence: 3,
          message: 'source 3/3',
          ratio: 1,
          data: { n: 3 },
        },
      },
    ])
    // The progress part sits in the step of its call, before the output.
    expect(last.parts.map((p) => p.type)).toEqual([
      'step-start',
      'tool-survey',
      'data-tool-progress',
      'step-start',
      'text',
    ])
    expect(JSON.stringify(fromUIMessages([last as never]))).not.toContain('source 3/3')
    // Transient: the client's onData sees the chunks, the message keeps none.
    const transient = (await snapshots(toUIMessageStream(make(), { progress: 'transient' }))).at(-1)!
    expect(progressOf(transient)).toEqual([])
    const none = await chunksOf(toUIMessageStream(make(), { progress: 'none' }))
    expect(none.some((c) => c.type === 'data-tool-progress')).toBe(false)
  })

  it('sends a stopped run as an abort, its running call as an error, and stopped in the metadata', async () => {
    const controller = new AbortController()
    const wait = defineModelTool<Record<string, never>, string>({
      id: 'wait',
      description: 'Waits until stopped',
      inputSchema: { type: 'object' },
      execute: (_input, context) =>
        new Promise<string>((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true })
        }),
    })
    const agent = defineAgent({
      model: createScriptedModel([{ text: 'Waiting.', toolCalls: [{ id: 'call_w', name: 'wait' }] }]),
      tools: [wait],
    })
    const events = agent.stream({ prompt: 'Wait' }, { signal: controller.signal })
    const tapped = (async function* () {
      for await (const event of events) {
        if (event.type === 'tool-start') setTimeout(() => controller.abort(new Error('the user left')), 0)
        yield event
      }
    })()
    const [forChunks, forClient] = toUIMessageStream(tapped).tee()
    const [chunks, all] = await Promise.all([chunksOf(forChunks), snapshots(forClient)])
    expect(chunks.filter((c) => c.type === 'abort')).toEqual([{ type: 'abort', reason: 'the user left' }])
    const last = all.at(-1)!
    expect(last.parts.find((p) => 'toolCallId' in p)).toMatchObject({
      toolCallId: 'call_w',
      state: 'output-error',
    })
    expect(last.metadata?.reason).toBe('stopped')
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'other' })
  })

  it('sends a failed run as an error chunk with the text onError gives', async () => {
    const agent = defineAgent({
      model: createScriptedModel([{ error: new Error('provider down: key sk-123') }]),
    })
    const errors: unknown[] = []
    const chunks = await chunksOf(toUIMessageStream(agent.stream({ prompt: 'Hi' })))
    expect(chunks.filter((c) => c.type === 'error')).toEqual([
      { type: 'error', errorText: 'The run failed.' },
    ])
    const custom = toUIMessageStream(
      defineAgent({ model: createScriptedModel([{ error: new Error('down') }]) }).stream({ prompt: 'Hi' }),
      { onError: (error) => `sorry: ${(error as Error).message}` },
    )
    const last = (await snapshots(custom, errors)).at(-1)!
    expect(errors.map((e) => (e as Error).message)).toEqual(['sorry: down'])
    expect(last.metadata?.reason).toBe('error')
  })

  it('ends with an error and a finish when the events throw', async () => {
    const events = (async function* (): AsyncGenerator<AgentEvent> {
      yield { type: 'run-start', runId: 'run_1', resumed: false, turns: 0 }
      yield { type: 'turn-start', turn: 1 }
      yield { type: 'text-delta', turn: 1, text: 'Hel' }
      throw new Error('lost')
    })()
    const chunks = await chunksOf(toUIMessageStream(events))
    expect(chunks.map((c) => c.type)).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'finish-step',
      'error',
      'finish',
    ])
  })

  it('leaves out start and finish for a stream merged into another', async () => {
    const chunks = await chunksOf(
      toUIMessageStream(run([{ text: 'Hi.' }]), { sendStart: false, sendFinish: false, messageId: 'm1' }),
    )
    expect(chunks.some((c) => c.type === 'start' || c.type === 'finish')).toBe(false)
    const started = await chunksOf(toUIMessageStream(run([{ text: 'Hi.' }]), { messageId: 'm1' }))
    expect(started[0]).toMatchObject({ type: 'start', messageId: 'm1' })
  })

  it('sends server-sent events with the protocol headers', async () => {
    const response = toUIMessageStreamResponse(toUIMessageStream(run([{ text: 'Hi.' }])), {
      headers: { 'x-extra': '1' },
    })
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1')
    expect(response.headers.get('x-extra')).toBe('1')
    const text = await response.text()
    const events = text.split('\n\n').filter((e) => e !== '')
    expect(events.every((e) => e.startsWith('data: '))).toBe(true)
    expect(events.at(-1)).toBe('data: [DONE]')
    expect(JSON.parse(events[0]!.slice(6))).toMatchObject({ type: 'start' })
  })

  it('refuses what is not a run or not options', () => {
    for (const bad of [42, null, {}, 'text', [1]]) {
      expect(() => toUIMessageStream(bad as never)).toThrow(InvalidInputError)
    }
    const events = run([{ text: 'x' }])
    expect(() => toUIMessageStream(events, { progress: 'loud' } as never)).toThrow(/options.progress/)
    expect(() => toUIMessageStream(events, { sendReasoning: 'yes' } as never)).toThrow(
      /options.sendReasoning/,
    )
    expect(() => toUIMessageStream(events, { messageId: '' })).toThrow(/options.messageId/)
    expect(() => toUIMessageStream(events, { colour: 'red' } as never)).toThrow(/no field "colour"/)
    expect(() => toUIMessageStream(events, 7 as never)).toThrow(InvalidInputError)
    expect(() => toUIMessageStreamResponse({} as never)).toThrow(InvalidInputError)
  })
})
