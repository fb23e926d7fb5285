import {
  AbortedError,
  AttemptBudget,
  BudgetExhaustedError,
  type ChatMessage,
  type ChatModel,
  type ModelStreamEvent,
} from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { ModelProviderError, withRetry } from '@agent-core/kits/models'
import { defineToolLifecycle } from '@agent-core/kits/tools'
import { describe, expect, it } from 'vitest'
import {
  type AgentRunState,
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  trimMessages,
} from './index.js'
import { counted, EventLog } from './internal/testing/fixtures.js'

function streamingModel(events: () => AsyncIterable<ModelStreamEvent>): ChatModel {
  return {
    identity: 'hand-written',
    generate: () => Promise.reject(new Error('not used')),
    stream: () => events(),
  }
}

describe('the scripted model', () => {
  it('logs calls, fails clearly when its turns run out, and tells when turns were left', async () => {
    const model = createScriptedModel([{ text: 'one' }, { text: 'two' }])
    const agent = defineAgent({ model })
    await agent.run({ prompt: 'first' })
    expect(model.calls).toHaveLength(1)
    expect(model.remaining).toBe(1)
    expect(() => model.assertDone()).toThrow(/used 1 of its 2 turns; 1 were never asked for/)
    await agent.run({ prompt: 'second' })
    model.assertDone()
    const result = await agent.run({ prompt: 'third' })
    expect(result.reason).toBe('error')
    expect(result.reason === 'error' && result.error).toMatchObject({
      code: 'invalid-state',
      message: expect.stringContaining('was called 3 times, but its script has 2 turns'),
    })
  })

  it('honours cancellation, streams tool calls, and answers without streaming when asked', async () => {
    const controller = new AbortController()
    controller.abort()
    const model = createScriptedModel([{ text: 'x' }])
    await expect(
      collect(model.stream!({ messages: [] }, { signal: controller.signal } as never)),
    ).rejects.toSatisfy((e: unknown) => AbortedError.isInstance(e))
    const calls = createScriptedModel([{ toolCalls: [{ name: 'a', input: { x: 1 } }], thinking: 'hmm' }])
    const events = await collect(
      calls.stream!({ messages: [] }, { signal: new AbortController().signal } as never),
    )
    expect(events.map((event) => event.type)).toEqual([
      'thinking-delta',
      'tool-call-start',
      'tool-call-delta',
      'tool-call-end',
      'finish',
    ])
    const plain = createScriptedModel([{ text: 'plain' }], { stream: false })
    expect(plain.stream).toBeUndefined()
    const log = new EventLog()
    const result = await defineAgent({ model: plain }).run({ prompt: 'hi', onEvent: log.onEvent })
    expect(result.reason === 'final' && result.answer).toBe('plain')
    expect(log.all).toEqual(['run-start', 'turn-start', 'text-delta', 'text-flush', 'run-done:final'])
  })

  it('refuses a malformed script up front', () => {
    expect(() => createScriptedModel([{ txt: 'typo' } as never])).toThrow(
      expect.objectContaining({ code: 'invalid-input' }),
    )
    expect(() => createScriptedModel([{ text: 'ab', chunks: ['a'] }])).toThrow(/join to text/)
  })
})

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of items) out.push(item)
  return out
}

describe('history, progress and the host', () => {
  it('reports every message the run adds, in order, each tool result before the next model call', async () => {
    const { tool } = counted()
    const model = createScriptedModel([
      {
        toolCalls: [
          { name: 'add', input: { a: 1, b: 2 } },
          { name: 'add', input: { a: 3, b: 4 } },
        ],
      },
      { text: 'Results: 3 and 7.' },
    ])
    const reported: ChatMessage[] = []
    const order: string[] = []
    const result = await defineAgent({
      model: {
        identity: model.identity,
        generate: model.generate,
        stream: (request, context) => {
          order.push(`model call with ${request.messages.length} messages, ${reported.length} reported`)
          return model.stream!(request, context)
        },
      },
      tools: [tool],
    }).run({
      messages: [{ role: 'user', content: 'earlier' }],
      prompt: 'add these',
      onHistoryAppend: async (message) => {
        // A slow host: the run waits for each report before it goes on.
        await new Promise((resolve) => setTimeout(resolve, message.role === 'tool' ? 10 : 1))
        reported.push(message)
      },
    })
    expect(result.reason).toBe('final')
    expect(reported.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant'])
    expect(reported[0]).toEqual({ role: 'user', content: 'add these' })
    expect(order).toEqual([
      'model call with 2 messages, 1 reported',
      'model call with 5 messages, 4 reported',
    ])
    expect(result.messages).toEqual([{ role: 'user', content: 'earlier' }, ...reported])
  })

  it('saves progress after the reply and after each tool result; a saved state resumes where it stopped', async () => {
    const runs: string[] = []
    const slowAdd = defineModelTool<{ a: number; b: number }, number>({
      id: 'add',
      description: 'Adds, slowly for large numbers',
      inputSchema: {
        type: 'object',
        required: ['a', 'b'],
        properties: { a: { type: 'number' }, b: { type: 'number' } },
      },
      execute: async ({ a, b }, { invocationId }) => {
        runs.push(invocationId)
        if (a > 2) await new Promise((resolve) => setTimeout(resolve, 20))
        return a + b
      },
    })
    const model = createScriptedModel([
      {
        toolCalls: [
          { name: 'add', input: { a: 1, b: 2 } },
          { name: 'add', input: { a: 3, b: 4 } },
        ],
      },
      { text: 'Results: 3 and 7.' },
    ])
    const saves: AgentRunState[] = []
    const result = await defineAgent({ model, tools: [slowAdd] }).run({
      prompt: 'go',
      onProgress: (state) => void saves.push(JSON.parse(JSON.stringify(state))),
    })
    expect(result.reason).toBe('final')
    const tools = (state: AgentRunState) => state.messages.filter((m) => m.role === 'tool').length
    // The reply is saved before any call runs; calls that are not replay-safe are saved with their
    // invocation ids before they run; then every result.
    expect(
      saves.map((state) => [tools(state), state.pending.map((call) => call.waitingFor).join(',')]),
    ).toEqual([
      [0, ''],
      [0, 'running,running'],
      [1, 'running'],
      [2, ''],
      [2, ''],
    ])
    // The last save holds the model's answer, so a crash after it does not call the model again.
    expect(saves.at(-1)!.messages.at(-1)).toEqual({ role: 'assistant', content: 'Results: 3 and 7.' })
    expect(runs).toHaveLength(2)
    const silent = createScriptedModel([])
    const replayed = await defineAgent({ model: silent, tools: [slowAdd] }).run({ resume: saves.at(-1)! })
    expect(replayed.reason === 'final' && replayed.answer).toBe('Results: 3 and 7.')
    expect(silent.calls).toHaveLength(0)
    expect(runs).toHaveLength(2)
  })

  it('a state saved mid-step resumes without running settled calls again, re-entering running ones with their keys', async () => {
    const runs: string[] = []
    const slowAdd = defineModelTool<{ a: number; b: number }, number>({
      id: 'add',
      description: 'Adds, slowly for large numbers',
      inputSchema: {
        type: 'object',
        required: ['a', 'b'],
        properties: { a: { type: 'number' }, b: { type: 'number' } },
      },
      execute: async ({ a, b }, { invocationId }) => {
        runs.push(invocationId)
        if (a > 2) await new Promise((resolve) => setTimeout(resolve, 20))
        return a + b
      },
    })
    const saves: AgentRunState[] = []
    await defineAgent({
      model: createScriptedModel([
        {
          toolCalls: [
            { name: 'add', input: { a: 1, b: 2 } },
            { name: 'add', input: { a: 3, b: 4 } },
          ],
        },
        { text: 'x' },
      ]),
      tools: [slowAdd],
    }).run({ prompt: 'go', onProgress: (state) => void saves.push(JSON.parse(JSON.stringify(state))) })
    // The process "died" right after the save that holds the first result.
    const crash = saves.find((state) => state.messages.filter((m) => m.role === 'tool').length === 1)!
    const running = crash.pending[0]!
    expect(running.waitingFor).toBe('running')
    expect(runs).toHaveLength(2)
    const again = createScriptedModel([{ text: 'Done: 3 and 7.' }])
    const resumed = await defineAgent({ model: again, tools: [slowAdd] }).run({ resume: crash })
    expect(resumed.reason === 'final' && resumed.answer).toBe('Done: 3 and 7.')
    expect(runs).toHaveLength(3)
    expect(runs[2]).toBe(running.invocationId)
    expect(resumed.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual(['3', '7'])
  })

  it('a failing save ends the run with its error', async () => {
    const { tool } = counted()
    const result = await defineAgent({
      model: createScriptedModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] }, { text: 'x' }]),
      tools: [tool],
    }).run({
      prompt: 'go',
      onProgress: () => {
        throw new Error('the disk is full')
      },
    })
    expect(result.reason === 'error' && (result.error as Error).message).toBe('the disk is full')
  })

  it('beforeTurn replaces what the model reads, not the history', async () => {
    const model = createScriptedModel([{ text: 'short' }])
    const long: ChatMessage[] = Array.from(
      { length: 20 },
      (_, i) =>
        ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} ${'x'.repeat(100)}` }) as ChatMessage,
    )
    const result = await defineAgent({
      model,
      system: 'Be brief.',
      beforeTurn: ({ messages }) => ({ messages: trimMessages(messages, { maxTokens: 100 }) }),
    }).run({ messages: long, prompt: 'and now?' })
    expect(model.calls[0]!.messages[0]).toEqual({ role: 'system', content: 'Be brief.' })
    expect(model.calls[0]!.messages.length).toBeLessThan(long.length)
    expect(model.calls[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'and now?' })
    expect(result.messages).toHaveLength(22)
  })

  it('toolChoice forces a tool on the first turn only, or runs it with an input before the first model call', async () => {
    const { tool, runs } = counted()
    const forced = createScriptedModel([
      { toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] },
      { text: 'two' },
    ])
    await defineAgent({ model: forced, tools: [tool] }).run({ prompt: 'add', toolChoice: { name: 'add' } })
    expect(forced.calls.map((call) => call.toolChoice)).toEqual([{ name: 'add' }, undefined])

    const direct = createScriptedModel([{ text: 'It is 5.' }])
    const log = new EventLog()
    const result = await defineAgent({ model: direct, tools: [tool] }).run({
      prompt: 'what is 2 + 3?',
      toolChoice: { name: 'add', input: { a: 2, b: 3 } },
      onEvent: log.onEvent,
    })
    expect(log.types.slice(0, 3)).toEqual(['run-start', 'tool-start:add', 'tool-resolved:add'])
    expect(direct.calls[0]!.messages.slice(-2)).toMatchObject([
      { role: 'assistant', toolCalls: [{ name: 'add', arguments: '{"a":2,"b":3}' }] },
      { role: 'tool', content: '5' },
    ])
    expect(result.turns).toBe(1)
    expect(runs).toHaveLength(2)
  })

  it('a history given as messages that ends on unanswered calls runs them first', async () => {
    const { tool, runs } = counted()
    const model = createScriptedModel([{ text: '3' }])
    await defineAgent({ model, tools: [tool] }).run({
      messages: [
        { role: 'user', content: '1+2?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c1', name: 'add', arguments: '{"a":1,"b":2}' }],
        },
      ],
    })
    expect(runs).toHaveLength(1)
    expect(model.calls[0]!.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'c1', content: '3' })
  })

  it('gives empty or repeated tool-call ids distinct ones, and reads empty arguments as {}', async () => {
    const ping = defineModelTool({
      id: 'ping',
      description: 'ping',
      inputSchema: { type: 'object' },
      execute: () => 'pong',
    })
    const model = createScriptedModel([
      {
        toolCalls: [
          { id: 'same', name: 'ping', arguments: '' },
          { id: 'same', name: 'ping', arguments: '{}' },
          { id: '', name: 'ping', arguments: '  ' },
        ],
      },
      { text: 'pong x3' },
    ])
    const result = await defineAgent({ model, tools: [ping] }).run({ prompt: 'ping' })
    const assistant = result.messages[1] as Extract<ChatMessage, { role: 'assistant' }>
    const ids = assistant.toolCalls!.map((call) => call.id)
    expect(new Set(ids).size).toBe(3)
    expect(ids[0]).toBe('same')
    const results = result.messages.filter((m) => m.role === 'tool')
    expect(results.map((m) => m.content)).toEqual(['pong', 'pong', 'pong'])
  })

  it('tool lifecycles from the tools kit keep their hooks and receiver', async () => {
    class Audit {
      readonly #seen: string[] = []
      get seen() {
        return this.#seen
      }
      finalize(outcome: { toolId: string; status: string }) {
        this.#seen.push(`${outcome.toolId}:${outcome.status}`)
      }
    }
    const audit = new Audit()
    const { tool } = counted()
    const model = createScriptedModel([
      { toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] },
      { text: '2' },
    ])
    await defineAgent({ model, tools: [defineToolLifecycle(tool, audit)] }).run({ prompt: 'add' })
    expect(audit.seen).toEqual(['add:completed'])
  })
})

describe('model failures and retries', () => {
  it('a stream that breaks off, ends without finish, or sends garbage is an error, never a complete answer', async () => {
    const cases: [string, () => AsyncIterable<ModelStreamEvent>, string][] = [
      [
        'breaks off',
        async function* () {
          yield { type: 'text-delta', text: 'The answer is' }
          throw new ModelProviderError('connection reset', { kind: 'network' })
        },
        'provider-error',
      ],
      [
        'ends without finish',
        async function* () {
          yield { type: 'text-delta', text: 'The answer is' }
        },
        'provider-error',
      ],
      [
        'sends garbage',
        async function* () {
          yield { type: 'text-delta', text: 42 } as never
        },
        'invalid-output',
      ],
    ]
    for (const [name, events, code] of cases) {
      const result = await defineAgent({ model: streamingModel(events) }).run({ prompt: 'x' })
      expect(result.reason, name).toBe('error')
      expect(result.reason === 'error' && (result.error as { code?: string }).code, name).toBe(code)
      expect(result.messages, name).toEqual([{ role: 'user', content: 'x' }])
    }
  })

  it('a stalled stream trips the idle timeout', async () => {
    const stalled = streamingModel(async function* () {
      yield { type: 'text-delta', text: 'one' }
      await new Promise(() => {})
    })
    const result = await defineAgent({ model: stalled, modelIdleTimeoutMs: 20 }).run({ prompt: 'x' })
    expect(result.reason === 'error' && (result.error as { code?: string }).code).toBe('timeout')
    expect(result.partialText).toBe('one')
  })

  it('takes one attempt per model call from the budget; withRetry takes the retries; a cancel is never retried', async () => {
    const flaky = createScriptedModel([
      { error: new ModelProviderError('slow down', { status: 429, retryAfterMs: 1 }) },
      { text: 'ok' },
    ])
    const attemptBudget = new AttemptBudget(5)
    const result = await defineAgent({ model: withRetry(flaky, { maxAttempts: 3 }) }).run(
      { prompt: 'x' },
      { attemptBudget },
    )
    expect(result.reason === 'final' && result.answer).toBe('ok')
    expect(attemptBudget.used).toBe(2)

    const exhausted = await defineAgent({ model: createScriptedModel([{ text: 'a' }]) }).run(
      { prompt: 'x' },
      { attemptBudget: new AttemptBudget(0) },
    )
    expect(exhausted.reason === 'error' && BudgetExhaustedError.isInstance(exhausted.error)).toBe(true)

    let calls = 0
    const slowFailure: ChatModel = {
      identity: 'slow',
      generate: () => {
        calls++
        return Promise.reject(new ModelProviderError('busy', { status: 503, retryAfterMs: 50 }))
      },
    }
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 10)
    const stopped = await defineAgent({ model: withRetry(slowFailure, { maxAttempts: 5 }) }).run(
      { prompt: 'x' },
      { signal: controller.signal },
    )
    expect(stopped.reason).toBe('stopped')
    expect(calls).toBe(1)
  })
})

describe('agent tools', () => {
  it('an approval function answers per call, and its thenable or garbage answer fails the call', async () => {
    const { tool, runs } = counted()
    const model = createScriptedModel([
      {
        toolCalls: [
          { name: 'add', input: { a: 1, b: 1 } },
          { name: 'add', input: { a: 200, b: 1 } },
        ],
      },
      { text: 'ok' },
    ])
    const log = new EventLog()
    await defineAgent({
      model,
      tools: [defineAgentTool(tool, { approval: (call) => (call.input.a > 100 ? 'ask' : 'allow') })],
    }).run({
      prompt: 'x',
      onEvent: log.onEvent,
      resolveApproval: () => ({ type: 'approve', by: 'policy' }),
    })
    expect(log.of('tool-awaiting-approval').map((event) => event.input)).toEqual([{ a: 200, b: 1 }])
    expect(log.of('tool-approved')[0]?.by).toBe('policy')
    expect(runs).toHaveLength(2)

    const broken = createScriptedModel([
      { toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] },
      { text: 'ok' },
    ])
    const brokenLog = new EventLog()
    await defineAgent({
      model: broken,
      tools: [defineAgentTool(counted().tool, { approval: (() => Promise.resolve('allow')) as never })],
    }).run({
      prompt: 'x',
      onEvent: brokenLog.onEvent,
    })
    expect(brokenLog.of('tool-failed')[0]?.error).toMatchObject({ code: 'rejected-thenable' })
  })

  it('a resolver answering garbage ends the run with a typed error', async () => {
    const { tool } = counted()
    const model = createScriptedModel([{ toolCalls: [{ name: 'add', input: { a: 1, b: 1 } }] }])
    const result = await defineAgent({ model, tools: [defineAgentTool(tool, { approval: 'ask' })] }).run({
      prompt: 'x',
      resolveApproval: () => ({ type: 'maybe' }) as never,
    })
    expect(result.reason === 'error' && result.error).toMatchObject({
      code: 'invalid-output',
      details: { hook: 'request.resolveApproval' },
    })
  })

  it('an invalid answer from a question resolver is a typed error', async () => {
    const result = await defineAgent({
      model: createScriptedModel([{ toolCalls: [{ name: 'ask_name', input: {} }] }]),
      tools: [
        (await import('./index.js')).defineQuestionTool({
          id: 'ask_name',
          description: 'asks for a name',
          inputSchema: {},
          answerSchema: { type: 'string' },
          question: () => 'Your name?',
        }),
      ],
    }).run({ prompt: 'x', answerQuestion: () => ({ type: 'answer', value: 42 }) })
    expect(result.reason === 'error' && result.error).toMatchObject({
      code: 'invalid-output',
      details: { hook: 'request.answerQuestion' },
    })
  })
})

describe('stream', () => {
  it('gives the events as an async iterable and the result as a promise', async () => {
    const { tool } = counted()
    const model = createScriptedModel([
      { toolCalls: [{ name: 'add', input: { a: 1, b: 2 } }] },
      { text: 'It is 3.' },
    ])
    const seen: string[] = []
    const run = defineAgent({ model, tools: [tool] }).stream({
      prompt: 'add',
      onEvent: (event) => void seen.push(event.type),
    })
    const types: string[] = []
    for await (const event of run) types.push(event.type)
    expect(types).toEqual(seen)
    expect(types.at(-1)).toBe('run-done')
    const result = await run.result
    expect(result.reason === 'final' && result.answer).toBe('It is 3.')
  })

  it('a consumer that stops early leaves the run going; a refused request ends the iteration with its error', async () => {
    const model = createScriptedModel([{ text: 'one two three' }])
    const run = defineAgent({ model }).stream({ prompt: 'count' })
    for await (const event of run) if (event.type === 'turn-start') break
    expect((await run.result).reason).toBe('final')

    const refused = defineAgent({ model: createScriptedModel([]) }).stream({ prompt: 42 as never })
    await expect(
      (async () => {
        for await (const _event of refused) {
          // nothing arrives
        }
      })(),
    ).rejects.toMatchObject({ code: 'invalid-input', details: { field: 'request.prompt' } })
    await expect(refused.result).rejects.toMatchObject({ code: 'invalid-input' })
  })
})
