import { InvalidStateError, RejectedThenableError, TimeoutError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { StructuredOutputError } from '@agent-core/kits/models'
import { describe, expect, it } from 'vitest'
import {
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  defineAnswerFlow,
  defineExternalTool,
  defineQuestionTool,
  structuredAnswer,
} from './index.js'
import { counted, deferred, EventLog } from './internal/testing/fixtures.js'

const add = (a: number, b: number) => ({ name: 'add', input: { a, b } })

describe('event sequences', () => {
  it('plain answer', async () => {
    const model = createScriptedModel([{ text: 'Hello there' }])
    const log = new EventLog()
    const result = await defineAgent({ model }).run({ prompt: 'Hi', onEvent: log.onEvent })
    expect(log.all).toEqual([
      'run-start',
      'turn-start',
      'text-delta',
      'text-delta',
      'text-flush',
      'run-done:final',
    ])
    expect(log.of('text-delta').map((event) => event.text)).toEqual(['Hello ', 'there'])
    expect(log.of('text-flush')[0]?.text).toBe('Hello there')
    expect(result.reason).toBe('final')
    expect(result.reason === 'final' && result.answer).toBe('Hello there')
    expect(result.messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello there' },
    ])
    expect(log.of('run-done')[0]?.usage).toEqual(result.usage)
    expect(result.turns).toBe(1)
    model.assertDone()
  })

  it('one tool', async () => {
    const { tool, runs } = counted()
    const model = createScriptedModel([{ toolCalls: [add(2, 3)] }, { text: '5' }])
    const log = new EventLog()
    const result = await defineAgent({ model, tools: [tool] }).run({ prompt: '2+3?', onEvent: log.onEvent })
    expect(log.types).toEqual([
      'run-start',
      'turn-start',
      'tool-start:add',
      'tool-resolved:add',
      'turn-start',
      'text-flush',
      'run-done:final',
    ])
    expect(runs).toHaveLength(1)
    const resolved = log.of('tool-resolved')[0]!
    expect(resolved.output).toBe(5)
    expect(resolved.record.invocationId).toBe(runs[0])
    // The second model call reads the tool's result.
    expect(model.calls[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'call_1_0',
      content: '5',
      isError: false,
    })
    expect(model.calls[0]?.tools?.map((spec) => spec.name)).toEqual(['add'])
    expect(result.reason === 'final' && result.answer).toBe('5')
  })

  it('parallel tools with mixed success, failure and timeout', async () => {
    const ok = defineModelTool({ id: 'ok', description: 'ok', inputSchema: {}, execute: () => 'fine' })
    const boom = defineModelTool({
      id: 'boom',
      description: 'fails',
      inputSchema: {},
      execute: async () => {
        throw new Error('kaput')
      },
    })
    let late = false
    const slow = defineAgentTool(
      defineModelTool({
        id: 'slow',
        description: 'ignores its signal',
        inputSchema: {},
        execute: () =>
          new Promise<string>((resolve) =>
            setTimeout(() => {
              late = true
              resolve('too late')
            }, 200),
          ),
      }),
      { timeoutMs: 20 },
    )
    const model = createScriptedModel([
      { toolCalls: [{ name: 'ok' }, { name: 'boom' }, { name: 'slow' }] },
      { text: 'Two of three failed.' },
    ])
    const log = new EventLog()
    const result = await defineAgent({ model, tools: [ok, boom, slow] }).run({
      prompt: 'go',
      onEvent: log.onEvent,
    })
    expect(log.types.slice(0, 5)).toEqual([
      'run-start',
      'turn-start',
      'tool-start:ok',
      'tool-start:boom',
      'tool-start:slow',
    ])
    expect(log.types.slice(5, 8).sort()).toEqual([
      'tool-aborted:slow:timeout',
      'tool-failed:boom',
      'tool-resolved:ok',
    ])
    expect(log.types.slice(8)).toEqual(['turn-start', 'text-flush', 'run-done:final'])
    expect(log.of('tool-failed')[0]?.error).toMatchObject({ name: 'Error', message: 'kaput' })
    expect(log.of('tool-aborted')[0]?.record).toMatchObject({ status: 'failed', error: { code: 'timeout' } })
    // Every result reached the model before its next call; each failure is a message it can read.
    const toolMessages = model.calls[1]!.messages.filter((message) => message.role === 'tool')
    expect(toolMessages).toHaveLength(3)
    expect(toolMessages.find((m) => m.toolCallId === 'call_1_1')).toMatchObject({
      isError: true,
      content: expect.stringContaining('kaput'),
    })
    expect(toolMessages.find((m) => m.toolCallId === 'call_1_2')).toMatchObject({
      isError: true,
      content: expect.stringContaining('20 ms'),
    })
    expect(result.reason).toBe('final')
    expect(late).toBe(false) // the run did not wait for it
  })

  it('runs at most toolConcurrency calls of one turn at once', async () => {
    let running = 0
    let most = 0
    const work = defineModelTool({
      id: 'work',
      description: 'takes a while',
      inputSchema: {},
      execute: async () => {
        running++
        most = Math.max(most, running)
        await new Promise((resolve) => setTimeout(resolve, 5))
        running--
        return 'done'
      },
    })
    const calls = Array.from({ length: 6 }, () => ({ name: 'work' }))
    const model = createScriptedModel([{ toolCalls: calls }, { text: 'all done' }])
    const result = await defineAgent({ model, tools: [work], toolConcurrency: 2 }).run({ prompt: 'go' })
    expect(result.reason).toBe('final')
    expect(most).toBe(2)
    expect(model.calls[1]!.messages.filter((message) => message.role === 'tool')).toHaveLength(6)
  })

  describe('approvals', () => {
    function gated() {
      const { tool, runs } = counted('deploy')
      return { tool: defineAgentTool(tool, { approval: 'ask' }), runs }
    }

    it('approve', async () => {
      const { tool, runs } = gated()
      const model = createScriptedModel([
        { toolCalls: [{ name: 'deploy', input: { a: 1, b: 1 } }] },
        { text: 'Deployed.' },
      ])
      const log = new EventLog()
      const asked: string[] = []
      const result = await defineAgent({ model, tools: [tool] }).run({
        prompt: 'deploy',
        onEvent: log.onEvent,
        resolveApproval: (call) => {
          asked.push(`${call.toolId}:${call.waitingFor}:${call.reason}`)
          return { type: 'approve' }
        },
      })
      expect(log.types).toEqual([
        'run-start',
        'turn-start',
        'tool-start:deploy',
        'tool-awaiting-approval:deploy',
        'tool-approved:deploy:person',
        'tool-resolved:deploy',
        'turn-start',
        'text-flush',
        'run-done:final',
      ])
      expect(asked).toEqual(["deploy:approval:Calls to deploy need a person's approval."])
      expect(runs).toHaveLength(1)
      expect(log.of('tool-resolved')[0]?.record).toMatchObject({ approvedBy: 'person' })
      expect(result.reason).toBe('final')
    })

    it('reject, and reject with an instruction', async () => {
      for (const [resolution, reads] of [
        [
          { type: 'reject' } as const,
          /refused by the person reviewing it\. The person reviewing this call rejected it\./,
        ],
        [
          { type: 'reject', reason: 'Not today.', instruction: 'Deploy to staging.' } as const,
          /Not today\.\nInstruction from the person who refused it: Deploy to staging\./,
        ],
      ] as const) {
        const { tool, runs } = gated()
        const model = createScriptedModel([
          { toolCalls: [{ name: 'deploy', input: { a: 1, b: 1 } }] },
          { text: 'OK, I did not.' },
        ])
        const log = new EventLog()
        await defineAgent({ model, tools: [tool] }).run({
          prompt: 'deploy',
          onEvent: log.onEvent,
          resolveApproval: () => resolution,
        })
        expect(log.types).toEqual([
          'run-start',
          'turn-start',
          'tool-start:deploy',
          'tool-awaiting-approval:deploy',
          'tool-rejected:deploy:person',
          'turn-start',
          'text-flush',
          'run-done:final',
        ])
        expect(log.of('tool-rejected')[0]?.instruction).toBe(
          'instruction' in resolution ? resolution.instruction : undefined,
        )
        expect(runs).toHaveLength(0)
        expect(model.calls[1]!.messages.at(-1)).toMatchObject({
          role: 'tool',
          isError: true,
          content: expect.stringMatching(reads),
        })
      }
    })

    it('a refusal sentence the App sets', async () => {
      const { tool } = gated()
      const model = createScriptedModel([
        { toolCalls: [{ name: 'deploy', input: { a: 1, b: 1 } }] },
        { text: 'OK.' },
      ])
      await defineAgent({
        model,
        tools: [tool],
        refusal: ({ toolId, by, instruction }) =>
          `${toolId} refused by ${by}${instruction ? `; do this instead: ${instruction}` : ''}`,
      }).run({ prompt: 'deploy', resolveApproval: () => ({ type: 'reject', instruction: 'wait' }) })
      expect(model.calls[1]!.messages.at(-1)).toMatchObject({
        content: 'deploy refused by person; do this instead: wait',
        isError: true,
      })
    })

    it('a person refusing one call refuses the calls of the same step still waiting', async () => {
      const { tool, runs } = gated()
      const model = createScriptedModel([
        {
          toolCalls: [
            { name: 'deploy', input: { a: 1, b: 1 } },
            { name: 'deploy', input: { a: 2, b: 2 } },
          ],
        },
        { text: 'Stopped.' },
      ])
      const log = new EventLog()
      const second = deferred<{ type: 'approve' }>()
      await defineAgent({ model, tools: [tool] }).run({
        prompt: 'deploy both',
        onEvent: log.onEvent,
        resolveApproval: (call) =>
          call.toolCallId === 'call_1_0' ? { type: 'reject', reason: 'No.' } : second.promise,
      })
      expect(log.of('tool-rejected').map((event) => `${event.toolCallId}:${event.by}`)).toEqual([
        'call_1_0:person',
        'call_1_1:earlier-refusal',
      ])
      expect(runs).toHaveLength(0)
    })

    it('deny policy: refused without asking, the model reads why', async () => {
      const { tool, runs } = counted('drop_table')
      const model = createScriptedModel([
        { toolCalls: [{ name: 'drop_table', input: { a: 1, b: 2 } }] },
        { text: 'I cannot.' },
      ])
      const log = new EventLog()
      let asked = 0
      await defineAgent({
        model,
        tools: [
          defineAgentTool(tool, {
            approval: (call) => (call.input.a > 0 ? { type: 'deny', reason: 'Read-only today.' } : 'allow'),
          }),
        ],
      }).run({
        prompt: 'drop it',
        onEvent: log.onEvent,
        resolveApproval: () => {
          asked++
          return { type: 'approve' }
        },
      })
      expect(log.types).toEqual([
        'run-start',
        'turn-start',
        'tool-start:drop_table',
        'tool-rejected:drop_table:policy',
        'turn-start',
        'text-flush',
        'run-done:final',
      ])
      expect(log.of('tool-rejected')[0]?.reason).toBe('Read-only today.')
      expect(asked).toBe(0)
      expect(runs).toHaveLength(0)
    })

    it('without a resolver or deferral, the call is aborted and the run ends with an error', async () => {
      const { tool, runs } = gated()
      const model = createScriptedModel([{ toolCalls: [{ name: 'deploy', input: { a: 1, b: 1 } }] }])
      const log = new EventLog()
      const result = await defineAgent({ model, tools: [tool] }).run({
        prompt: 'deploy',
        onEvent: log.onEvent,
      })
      expect(log.types).toEqual([
        'run-start',
        'turn-start',
        'tool-start:deploy',
        'tool-awaiting-approval:deploy',
        'tool-aborted:deploy:no-resolver',
        'run-done:error',
      ])
      expect(result.reason).toBe('error')
      expect(result.reason === 'error' && InvalidStateError.isInstance(result.error)).toBe(true)
      expect(runs).toHaveLength(0)
      // The history still answers every call.
      expect(result.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'call_1_0', isError: true })
    })
  })

  describe('external tools and questions', () => {
    const openPage = defineExternalTool<{ url: string }, { title: string }>({
      id: 'open_page',
      description: 'Opens a page in the browser',
      inputSchema: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } },
      outputSchema: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } },
    })

    it('an external tool suspends the run and is resumed with its result', async () => {
      const model = createScriptedModel([
        { toolCalls: [{ name: 'open_page', input: { url: 'https://example.com' } }] },
        { text: 'The title is Example.' },
      ])
      const agent = defineAgent({ model, tools: [openPage] })
      const log = new EventLog()
      const first = await agent.run({ prompt: 'open it', defer: true, onEvent: log.onEvent })
      expect(log.types).toEqual(['run-start', 'turn-start', 'tool-start:open_page', 'run-suspended'])
      expect(first.reason).toBe('suspended')
      const pending = first.reason === 'suspended' ? first.pending : []
      expect(pending).toMatchObject([
        {
          toolCallId: 'call_1_0',
          toolId: 'open_page',
          waitingFor: 'external',
          input: { url: 'https://example.com' },
        },
      ])

      const later = new EventLog()
      const second = await agent.run({
        resume: JSON.parse(JSON.stringify(first.state)),
        outcomes: { call_1_0: { type: 'result', toolCallId: 'call_1_0', output: { title: 'Example' } } },
        onEvent: later.onEvent,
      })
      expect(later.types).toEqual([
        'run-start',
        'tool-resolved:open_page',
        'turn-start',
        'text-flush',
        'run-done:final',
      ])
      expect(second.reason === 'final' && second.answer).toBe('The title is Example.')
      expect(model.calls[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: '{"title":"Example"}' })
    })

    it("the host's failure, or a result that breaks the output schema, is a failure the model reads", async () => {
      for (const outcome of [
        { type: 'failure', toolCallId: 'call_1_0', message: 'The browser was closed.' } as const,
        { type: 'result', toolCallId: 'call_1_0', output: { heading: 'x' } } as const,
      ]) {
        const model = createScriptedModel([
          { toolCalls: [{ name: 'open_page', input: { url: 'u' } }] },
          { text: 'It failed.' },
        ])
        const agent = defineAgent({ model, tools: [openPage] })
        const first = await agent.run({ prompt: 'open it', defer: true })
        const log = new EventLog()
        await agent.run({ resume: first.state, outcomes: { call_1_0: outcome }, onEvent: log.onEvent })
        expect(log.types).toContain('tool-failed:open_page')
        expect(model.calls[1]!.messages.at(-1)).toMatchObject({ isError: true })
      }
    })

    it('an external tool without deferral is aborted with cause no-handler', async () => {
      const model = createScriptedModel([{ toolCalls: [{ name: 'open_page', input: { url: 'u' } }] }])
      const log = new EventLog()
      const result = await defineAgent({ model, tools: [openPage] }).run({
        prompt: 'open it',
        onEvent: log.onEvent,
      })
      expect(log.types).toEqual([
        'run-start',
        'turn-start',
        'tool-start:open_page',
        'tool-aborted:open_page:no-handler',
        'run-done:error',
      ])
      expect(result.reason).toBe('error')
    })

    const chooseAccount = defineQuestionTool<{ options: string[] }, { account: string }>({
      id: 'choose_account',
      description: 'Asks the user which account to use',
      inputSchema: {
        type: 'object',
        required: ['options'],
        properties: { options: { type: 'array', items: { type: 'string' } } },
      },
      answerSchema: {
        type: 'object',
        required: ['account'],
        additionalProperties: false,
        properties: { account: { type: 'string' } },
      },
      question: ({ options }) => `Which account: ${options.join(' or ')}?`,
    })

    it('a question to a person, answered in this process', async () => {
      const model = createScriptedModel([
        { toolCalls: [{ name: 'choose_account', input: { options: ['checking', 'savings'] } }] },
        { text: 'Using savings.' },
      ])
      const log = new EventLog()
      const result = await defineAgent({ model, tools: [chooseAccount] }).run({
        prompt: 'pay the bill',
        onEvent: log.onEvent,
        answerQuestion: (call) => {
          expect(call.question).toBe('Which account: checking or savings?')
          expect(call.answerSchema).toEqual(chooseAccount.answerSchema)
          return { type: 'answer', value: { account: 'savings' } }
        },
      })
      expect(log.types).toEqual([
        'run-start',
        'turn-start',
        'tool-start:choose_account',
        'tool-awaiting-answer:choose_account',
        'tool-resolved:choose_account',
        'turn-start',
        'text-flush',
        'run-done:final',
      ])
      expect(log.of('tool-resolved')[0]?.output).toEqual({ account: 'savings' })
      expect(result.reason).toBe('final')
    })

    it('a question that needs approval first: approved, then asked, then answered', async () => {
      const gatedQuestion = defineQuestionTool<{ topic: string }, string>({
        id: 'ask_boss',
        description: 'Asks the boss',
        inputSchema: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
        answerSchema: { type: 'string' },
        question: ({ topic }) => `What do you think about ${topic}?`,
        approval: 'ask',
      })
      const model = createScriptedModel([
        { toolCalls: [{ name: 'ask_boss', input: { topic: 'raises' } }] },
        { text: 'The boss said yes.' },
      ])
      const log = new EventLog()
      const asked: string[] = []
      const result = await defineAgent({ model, tools: [gatedQuestion] }).run({
        prompt: 'ask',
        onEvent: log.onEvent,
        resolveApproval: () => ({ type: 'approve' }),
        answerQuestion: (call) => {
          asked.push(call.question ?? '')
          return { type: 'answer', value: 'yes' }
        },
      })
      expect(log.types).toEqual([
        'run-start',
        'turn-start',
        'tool-start:ask_boss',
        'tool-awaiting-approval:ask_boss',
        'tool-approved:ask_boss:person',
        'tool-awaiting-answer:ask_boss',
        'tool-resolved:ask_boss',
        'turn-start',
        'text-flush',
        'run-done:final',
      ])
      expect(asked).toEqual(['What do you think about raises?'])
      expect(log.of('tool-resolved')[0]?.record).toMatchObject({ approvedBy: 'person', output: 'yes' })
      expect(result.reason).toBe('final')
    })

    it('a question suspends with deferral and is resumed with a typed answer; a wrong answer is refused', async () => {
      const model = createScriptedModel([
        { toolCalls: [{ name: 'choose_account', input: { options: ['a', 'b'] } }] },
        { text: 'Using b.' },
      ])
      const agent = defineAgent({ model, tools: [chooseAccount] })
      const first = await agent.run({ prompt: 'pay', defer: true })
      expect(first.reason === 'suspended' && first.pending[0]).toMatchObject({
        waitingFor: 'question',
        question: 'Which account: a or b?',
      })
      await expect(
        agent.run({
          resume: first.state,
          outcomes: { call_1_0: { type: 'answer', toolCallId: 'call_1_0', value: { account: 7 } } },
        }),
      ).rejects.toMatchObject({ code: 'invalid-input', details: { field: 'outcomes.call_1_0.value' } })
      const second = await agent.run({
        resume: first.state,
        outcomes: { call_1_0: { type: 'answer', toolCallId: 'call_1_0', value: { account: 'b' } } },
      })
      expect(second.reason === 'final' && second.answer).toBe('Using b.')
    })
  })

  describe('caps', () => {
    it('turn cap: the last turn’s tools run, then the run stops', async () => {
      const { tool, runs } = counted()
      const model = createScriptedModel([{ toolCalls: [add(1, 1)] }, { toolCalls: [add(2, 2)] }])
      const log = new EventLog()
      const result = await defineAgent({ model, tools: [tool], maxTurns: 2 }).run({
        prompt: 'loop',
        onEvent: log.onEvent,
      })
      expect(log.types).toEqual([
        'run-start',
        'turn-start',
        'tool-start:add',
        'tool-resolved:add',
        'turn-start',
        'tool-start:add',
        'tool-resolved:add',
        'turn-limit-exceeded:global',
        'run-done:turn-limit',
      ])
      expect(log.of('turn-limit-exceeded')[0]).toMatchObject({ limit: 2 })
      expect(runs).toHaveLength(2)
      expect(result.reason).toBe('turn-limit')
      expect(result.turns).toBe(2)
    })

    it('per-tool turn cap: a call beyond it is refused and the model reads why', async () => {
      const { tool, runs } = counted()
      const model = createScriptedModel([
        { toolCalls: [add(1, 1), add(1, 2)] },
        { toolCalls: [add(2, 2)] },
        { text: 'Enough.' },
      ])
      const log = new EventLog()
      const result = await defineAgent({ model, tools: [defineAgentTool(tool, { maxTurns: 1 })] }).run({
        prompt: 'loop',
        onEvent: log.onEvent,
      })
      expect(log.types).toEqual([
        'run-start',
        'turn-start',
        'tool-start:add',
        'tool-start:add',
        'tool-resolved:add',
        'tool-resolved:add',
        'turn-start',
        'turn-limit-exceeded:tool',
        'tool-start:add',
        'tool-rejected:add:policy',
        'turn-start',
        'text-flush',
        'run-done:final',
      ])
      expect(log.of('turn-limit-exceeded')[0]).toMatchObject({ scope: 'tool', toolId: 'add', limit: 1 })
      expect(runs).toHaveLength(2) // two calls in one turn count as one turn
      expect(model.calls[2]!.messages.at(-1)).toMatchObject({
        content: expect.stringContaining('at most 1 turn'),
      })
      expect(result.reason).toBe('final')
    })

    it('token cap, checked before a call by estimate', async () => {
      const model = createScriptedModel([{ text: 'never' }])
      const log = new EventLog()
      const result = await defineAgent({ model, maxTokens: 5 }).run({
        prompt: 'x'.repeat(200),
        onEvent: log.onEvent,
      })
      expect(log.types).toEqual(['run-start', 'token-limit-exceeded', 'run-done:token-limit'])
      expect(log.of('token-limit-exceeded')[0]).toMatchObject({ limit: 5, used: 0, estimate: 54 })
      expect(model.calls).toHaveLength(0)
      expect(result.reason).toBe('token-limit')
    })

    it('token cap, checked after a call by usage', async () => {
      const { tool, runs } = counted()
      const model = createScriptedModel([
        { toolCalls: [add(1, 1)], usage: { inputTokens: 900, outputTokens: 200 } },
        { text: 'never' },
      ])
      const log = new EventLog()
      const result = await defineAgent({ model, tools: [tool], maxTokens: 1000 }).run({
        prompt: 'go',
        onEvent: log.onEvent,
      })
      expect(log.types).toEqual([
        'run-start',
        'turn-start',
        'tool-start:add',
        'tool-resolved:add',
        'token-limit-exceeded',
        'run-done:token-limit',
      ])
      expect(log.of('token-limit-exceeded')[0]).toMatchObject({ limit: 1000, used: 1100 })
      expect(runs).toHaveLength(1)
      expect(result.usage.totalTokens).toBe(1100)
    })
  })

  describe('stopping', () => {
    it('stop mid-stream: no partial reply enters the history', async () => {
      const model = createScriptedModel([{ text: 'one two three four five six' }], { delayMs: 15 })
      const controller = new AbortController()
      const log = new EventLog()
      const result = await defineAgent({ model }).run(
        {
          prompt: 'count',
          onEvent: (event) => {
            log.onEvent(event)
            if (event.type === 'text-delta' && event.text === 'two ') controller.abort()
          },
        },
        { signal: controller.signal },
      )
      expect(log.all).toEqual([
        'run-start',
        'turn-start',
        'text-delta',
        'text-delta',
        'run-aborted',
        'run-done:stopped',
      ])
      expect(result.reason).toBe('stopped')
      expect(result.partialText).toBe('one two ')
      expect(result.messages).toEqual([{ role: 'user', content: 'count' }])
    })

    it('stop mid-tool: the call is aborted and the history still answers it', async () => {
      const started = deferred()
      const hang = defineModelTool({
        id: 'hang',
        description: 'waits for its signal',
        inputSchema: {},
        execute: (_input, { signal }) =>
          new Promise((_resolve, reject) => {
            started.resolve()
            signal.addEventListener('abort', () => reject(signal.reason))
          }),
      })
      const model = createScriptedModel([{ toolCalls: [{ name: 'hang' }] }, { text: 'never' }])
      const controller = new AbortController()
      const log = new EventLog()
      const running = defineAgent({ model, tools: [hang] }).run(
        { prompt: 'go', onEvent: log.onEvent },
        { signal: controller.signal },
      )
      await started.promise
      controller.abort()
      const result = await running
      expect(log.types).toEqual([
        'run-start',
        'turn-start',
        'tool-start:hang',
        'tool-aborted:hang:stopped',
        'run-aborted',
        'run-done:stopped',
      ])
      expect(result.reason).toBe('stopped')
      expect(result.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'call_1_0', isError: true })
      expect(model.calls).toHaveLength(1)
    })

    it('a model call that takes too long is a timeout error, not a stop', async () => {
      const model = createScriptedModel([{ text: 'slow answer' }], { delayMs: 200 })
      const result = await defineAgent({ model, modelTimeoutMs: 30 }).run({ prompt: 'hi' })
      expect(result.reason).toBe('error')
      expect(result.reason === 'error' && TimeoutError.isInstance(result.error)).toBe(true)
    })
  })

  describe('AnswerFlow', () => {
    it('retry, then accept', async () => {
      const model = createScriptedModel([{ text: 'hello' }, { text: 'HELLO' }])
      const flow = defineAnswerFlow({
        decide: ({ text }) =>
          text === text.toUpperCase()
            ? { type: 'accept', value: text }
            : { type: 'retry', feedback: 'Shout it.' },
      })
      const log = new EventLog()
      const result = await defineAgent({ model, answer: flow }).run({ prompt: 'greet', onEvent: log.onEvent })
      expect(log.types).toEqual([
        'run-start',
        'turn-start',
        'text-flush',
        'answer-retried',
        'turn-start',
        'text-flush',
        'run-done:final',
      ])
      expect(result.reason === 'final' && result.answer).toBe('HELLO')
      expect(model.calls[1]!.messages.slice(-2)).toEqual([
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'Shout it.' },
      ])
      expect(result.state.answerRetries).toEqual([{ text: 'hello', feedback: 'Shout it.' }])
    })

    it('an accepted undefined value is an answer, not "go on"', async () => {
      const model = createScriptedModel([{ text: 'nothing to report' }])
      const result = await defineAgent({
        model,
        answer: defineAnswerFlow({ decide: () => ({ type: 'accept', value: undefined }) }),
      }).run({
        prompt: 'anything?',
      })
      expect(result.reason).toBe('final')
      expect(result.reason === 'final' && result.answer).toBeUndefined()
      expect(model.calls).toHaveLength(1)
    })

    it('fail', async () => {
      const model = createScriptedModel([{ text: 'I refuse.' }])
      const refusal = new Error('the model refused')
      const log = new EventLog()
      const result = await defineAgent({
        model,
        answer: defineAnswerFlow({ decide: () => ({ type: 'fail', error: refusal }) }),
      }).run({
        prompt: 'do it',
        onEvent: log.onEvent,
      })
      expect(log.types).toEqual(['run-start', 'turn-start', 'text-flush', 'run-done:error'])
      expect(result.reason === 'error' && result.error).toBe(refusal)
      expect(log.of('run-done')[0]?.error).toBe(refusal)
      expect(result.text).toBe('I refuse.')
    })

    it('a control that is not one of the three is an error', async () => {
      const model = createScriptedModel([{ text: 'x' }])
      const result = await defineAgent({
        model,
        answer: defineAnswerFlow({ decide: () => undefined as never }),
      }).run({ prompt: 'x' })
      expect(result.reason === 'error' && result.error).toMatchObject({
        code: 'invalid-output',
        details: { hook: 'answer.decide' },
      })
    })

    it('structured answers: the models kit corrections, then its typed error', async () => {
      const schema = {
        type: 'object',
        required: ['city', 'tempC'],
        properties: { city: { type: 'string' }, tempC: { type: 'number' } },
      } as const
      const model = createScriptedModel([
        { text: '```json\n{"city": "Lyon", "tempC": "warm"}\n```' },
        { text: '{"city": "Lyon", "tempC": 21}' },
      ])
      const agent = defineAgent({
        model,
        answer: structuredAnswer<{ city: string; tempC: number }>({ name: 'Weather', schema }),
      })
      const result = await agent.run({ prompt: 'Weather in Lyon?' })
      expect(result.reason === 'final' && result.answer).toEqual({ city: 'Lyon', tempC: 21 })
      expect(model.calls[0]!.messages[0]).toMatchObject({
        role: 'system',
        content: expect.stringContaining('"Weather"'),
      })
      expect(model.calls[1]!.messages.at(-1)).toMatchObject({
        role: 'user',
        content: expect.stringContaining('/tempC'),
      })

      const stubborn = createScriptedModel([{ text: '{"city": 1}' }, { text: '{"city": 2}' }])
      const failed = await defineAgent({
        model: stubborn,
        answer: structuredAnswer({ name: 'Weather', schema, maxCorrections: 1 }),
      }).run({ prompt: 'x' })
      expect(failed.reason).toBe('error')
      const error = failed.reason === 'error' ? failed.error : undefined
      expect(StructuredOutputError.isInstance(error)).toBe(true)
      expect(
        StructuredOutputError.isInstance(error) && error.attempts.map((attempt) => attempt.text),
      ).toEqual(['{"city": 1}', '{"city": 2}'])
    })

    it('structured answers in json-schema mode ask for the response format', async () => {
      const model = createScriptedModel([{ text: '{"ok": true}' }])
      await defineAgent({
        model,
        answer: structuredAnswer({
          name: 'Ok',
          schema: { type: 'object', properties: { ok: { type: 'boolean' } } },
          mode: 'json-schema',
        }),
      }).run({ prompt: 'ok?' })
      expect(model.calls[0]!.responseFormat).toMatchObject({ type: 'json_schema', name: 'Ok' })
    })
  })
})

describe('onEvent is synchronous', () => {
  it('an async listener (from untyped code) makes run reject with RejectedThenableError, as the guide says', async () => {
    const model = createScriptedModel([{ text: 'Hello there' }])
    const listener = async () => {}
    const error = await defineAgent({ model })
      .run({ prompt: 'Hi', onEvent: listener as never })
      .catch((e: unknown) => e)
    expect(RejectedThenableError.isInstance(error)).toBe(true)
    expect((error as RejectedThenableError).details).toMatchObject({ hook: 'request.onEvent' })
  })

  it('agent.stream is the way to await per event', async () => {
    const model = createScriptedModel([{ text: 'Hello there' }])
    const stream = defineAgent({ model }).stream({ prompt: 'Hi' })
    const seen: string[] = []
    for await (const event of stream) {
      await new Promise((resolve) => setTimeout(resolve, 0))
      seen.push(event.type)
    }
    expect(seen.at(0)).toBe('run-start')
    expect(seen.at(-1)).toBe('run-done')
    expect((await stream.result).text).toBe('Hello there')
  })
})
