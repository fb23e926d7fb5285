import { InvalidDefinitionError, InvalidOutputError, MemoryDiagnosticSink } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { describe, expect, it } from 'vitest'
import {
  type AgentEvent,
  AgentRunError,
  ask,
  assertAgentRunState,
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  GuardrailTrippedError,
  type InputGuardrail,
  structuredAnswer,
} from './index.js'

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => {
    resolve = r
  })
  return { promise, resolve }
}

const noSecrets: InputGuardrail = {
  name: 'no-secrets',
  check: ({ text }) => ({ tripped: /password/i.test(text), info: { rule: 'password' } }),
}

describe('input guardrails', () => {
  it('pass: the run answers, with guardrail-start and guardrail-end events', async () => {
    const model = createScriptedModel([{ text: 'Hi!' }])
    const events: AgentEvent[] = []
    const agent = defineAgent({ model, inputGuardrails: [noSecrets] })
    const result = await agent.run({ prompt: 'Hello', onEvent: (event) => void events.push(event) })
    expect(result.reason).toBe('final')
    expect(events.filter((e) => e.type.startsWith('guardrail'))).toEqual([
      { type: 'guardrail-start', guardrail: 'no-secrets', kind: 'input' },
      {
        type: 'guardrail-end',
        guardrail: 'no-secrets',
        kind: 'input',
        tripped: false,
        info: { rule: 'password' },
      },
    ])
  })

  it('trip (mode before): no model call is made; the result and the state name the guardrail', async () => {
    const model = createScriptedModel([{ text: 'never' }])
    const agent = defineAgent({ model, inputGuardrails: [{ ...noSecrets, mode: 'before' }] })
    const result = await agent.run({ prompt: 'my password is hunter2' })
    expect(result.reason).toBe('guardrail')
    if (result.reason !== 'guardrail') return
    expect(result.guardrail).toEqual({ guardrail: 'no-secrets', kind: 'input', info: { rule: 'password' } })
    expect(model.calls).toHaveLength(0)
    expect(result.turns).toBe(0)
    expect(result.state.reason).toBe('guardrail')
    expect(result.state.guardrail).toEqual(result.guardrail)
    const json = JSON.parse(JSON.stringify(result.state))
    expect(() => assertAgentRunState(json)).not.toThrow()
  })

  it('parallel: the first model request starts before a passing guardrail resolves', async () => {
    const order: string[] = []
    const modelStarted = deferred()
    const model = createScriptedModel([
      () => {
        order.push('model-request')
        modelStarted.resolve()
        return { text: 'Hi!' }
      },
    ])
    const agent = defineAgent({
      model,
      inputGuardrails: [
        {
          name: 'slow',
          check: async () => {
            // Resolves only once the model request started: the run would deadlock if it waited first.
            await modelStarted.promise
            order.push('guardrail-resolved')
            return false
          },
        },
      ],
    })
    const result = await agent.run({ prompt: 'Hello' })
    expect(result.reason).toBe('final')
    expect(order).toEqual(['model-request', 'guardrail-resolved'])
  })

  it('parallel trip aborts the model call in flight and discards its reply', async () => {
    const modelStarted = deferred()
    let aborted: unknown
    const model = createScriptedModel([
      (_request, context) => {
        modelStarted.resolve()
        return new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => {
            aborted = context.signal.reason
            reject(context.signal.reason)
          })
        })
      },
    ])
    const agent = defineAgent({
      model,
      inputGuardrails: [
        {
          name: 'slow-trip',
          check: async () => {
            await modelStarted.promise
            return { tripped: true, info: 'nope' }
          },
        },
      ],
    })
    const result = await agent.run({ prompt: 'Hello' })
    expect(result.reason).toBe('guardrail')
    if (result.reason !== 'guardrail') return
    expect(result.guardrail).toEqual({ guardrail: 'slow-trip', kind: 'input', info: 'nope' })
    expect(GuardrailTrippedError.isInstance(aborted)).toBe(true)
    if (GuardrailTrippedError.isInstance(aborted)) expect(aborted.details.guardrail).toBe('slow-trip')
    expect(result.messages.map((m) => m.role)).toEqual(['user'])
  })

  it('parallel trip after the reply arrived: the reply is discarded and no tool runs', async () => {
    const release = deferred()
    let ran = 0
    const tool = defineModelTool({
      id: 'side-effect',
      description: 'Does something',
      inputSchema: {},
      execute: () => {
        ran++
        return 'done'
      },
    })
    const model = createScriptedModel([
      () => {
        release.resolve()
        return { toolCalls: [{ name: 'side-effect' }] }
      },
    ])
    const agent = defineAgent({
      model,
      tools: [tool],
      inputGuardrails: [
        {
          name: 'late',
          check: async () => {
            await release.promise
            return true
          },
        },
      ],
    })
    const result = await agent.run({ prompt: 'Do it' })
    expect(result.reason).toBe('guardrail')
    expect(ran).toBe(0)
    expect(result.messages.map((m) => m.role)).toEqual(['user'])
  })

  it('a model failure waits for the parallel guardrails: no guardrail event comes after run-done', async () => {
    const modelFailed = deferred()
    const events: string[] = []
    const agent = defineAgent({
      model: createScriptedModel([
        () => {
          modelFailed.resolve()
          return { error: new Error('provider down') }
        },
      ]),
      inputGuardrails: [
        {
          name: 'slow',
          check: async () => {
            await modelFailed.promise
            await new Promise((resolve) => setImmediate(resolve))
            return false
          },
        },
      ],
    })
    const result = await agent.run({ prompt: 'Hi', onEvent: (event) => void events.push(event.type) })
    expect(result.reason).toBe('error')
    expect(events.indexOf('guardrail-end')).toBeLessThan(events.indexOf('run-done'))
    expect(events.at(-1)).toBe('run-done')
  })

  it('a resumed run does not run its input guardrails again', async () => {
    let checks = 0
    const refund = defineAgentTool(
      defineModelTool({ id: 'refund', description: 'Refunds', inputSchema: {}, execute: () => 'ok' }),
      { approval: 'ask' },
    )
    const model = createScriptedModel([{ toolCalls: [{ id: 'c1', name: 'refund' }] }, { text: 'Refunded.' }])
    const agent = defineAgent({
      model,
      tools: [refund],
      inputGuardrails: [
        {
          name: 'count',
          check: () => {
            checks++
            return false
          },
        },
      ],
    })
    const first = await agent.run({ prompt: 'Refund', defer: true })
    expect(first.reason).toBe('suspended')
    const saved = JSON.parse(JSON.stringify(first.state))
    const resumed = await agent.run({
      resume: saved,
      outcomes: { c1: { type: 'approve', toolCallId: 'c1', by: 'person' } },
    })
    expect(resumed.reason).toBe('final')
    expect(checks).toBe(1)
  })

  it('a guardrail check that throws ends the run with reason error', async () => {
    const agent = defineAgent({
      model: createScriptedModel([{ text: 'x' }]),
      inputGuardrails: [{ name: 'bad', mode: 'before', check: () => 'yes' as never }],
    })
    const result = await agent.run({ prompt: 'Hello' })
    expect(result.reason).toBe('error')
    if (result.reason === 'error') expect(InvalidOutputError.isInstance(result.error)).toBe(true)
  })

  it('each guardrail is a diagnostics span', async () => {
    const memory = new MemoryDiagnosticSink()
    const agent = defineAgent({ model: createScriptedModel([{ text: 'Hi' }]), inputGuardrails: [noSecrets] })
    await agent.run({ prompt: 'Hello' }, { diagnostics: memory.sink })
    const kinds = memory.events.map((event) => event.kind)
    expect(kinds).toContain('guardrail-start')
    expect(kinds).toContain('guardrail-end')
  })
})

describe('output guardrails', () => {
  it('pass and trip on the final answer; ask throws AgentRunError naming the guardrail', async () => {
    const guard = {
      name: 'no-keys',
      check: ({ text }: { text: string }) => ({ tripped: text.includes('sk-'), info: { found: 'key' } }),
    }
    const ok = defineAgent({ model: createScriptedModel([{ text: 'Fine.' }]), outputGuardrails: [guard] })
    expect(await ask(ok, 'Hi')).toBe('Fine.')
    const leaky = defineAgent({
      model: createScriptedModel([{ text: 'Your key is sk-123' }]),
      outputGuardrails: [guard],
    })
    const error = await ask(leaky, 'Key?').catch((caught: unknown) => caught)
    expect(AgentRunError.isInstance(error)).toBe(true)
    if (!AgentRunError.isInstance(error)) return
    expect(error.details.reason).toBe('guardrail')
    expect(error.details.guardrail).toEqual({ guardrail: 'no-keys', kind: 'output', info: { found: 'key' } })
    expect(error.message).toContain('no-keys')
  })

  it('sees the structured answer', async () => {
    const seen: unknown[] = []
    const agent = defineAgent({
      model: createScriptedModel([{ text: '{"n":3}' }]),
      answer: structuredAnswer({
        schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      }),
      outputGuardrails: [
        {
          name: 'small',
          check: ({ answer }) => {
            seen.push(answer)
            return (answer as { n: number }).n > 2
          },
        },
      ],
    })
    const result = await agent.run({ prompt: 'n?' })
    expect(seen).toEqual([{ n: 3 }])
    expect(result.reason).toBe('guardrail')
  })
})

describe('an agent as a guardrail', () => {
  const judgeFor = (verdict: string) =>
    defineAgent({
      model: createScriptedModel([{ text: verdict }]),
      answer: structuredAnswer({
        schema: {
          type: 'object',
          properties: { tripped: { type: 'boolean' }, info: { type: 'string' } },
          required: ['tripped'],
        },
      }),
    })

  it('trips with the agent answer and reads the checked text as its prompt', async () => {
    const judge = judgeFor('{"tripped":true,"info":"off-topic"}')
    const agent = defineAgent({
      model: createScriptedModel([{ text: 'never kept' }]),
      inputGuardrails: [{ name: 'topic', check: judge }],
    })
    const result = await agent.run({ prompt: 'Tell me a joke' })
    expect(result.reason).toBe('guardrail')
    if (result.reason === 'guardrail') expect(result.guardrail.info).toBe('off-topic')
  })

  it('passes', async () => {
    const agent = defineAgent({
      model: createScriptedModel([{ text: 'Sure.' }]),
      outputGuardrails: [{ name: 'judge', check: judgeFor('{"tripped":false}') }],
    })
    expect(await ask(agent, 'Hi')).toBe('Sure.')
  })
})

describe('bad guardrail definitions', () => {
  const model = createScriptedModel([])
  const cases: [string, unknown][] = [
    ['not an array', { name: 'x', check: () => false }],
    ['no name', [{ check: () => false }]],
    ['empty name', [{ name: '', check: () => false }]],
    ['check not a function or agent', [{ name: 'x', check: 'yes' }]],
    ['bad mode', [{ name: 'x', check: () => false, mode: 'later' }]],
    ['unknown field', [{ name: 'x', check: () => false, when: 'always' }]],
    [
      'duplicate names',
      [
        { name: 'x', check: () => false },
        { name: 'x', check: () => true },
      ],
    ],
  ]
  for (const [what, value] of cases) {
    it(`refuses ${what}`, () => {
      expect(() => defineAgent({ model, inputGuardrails: value as never })).toThrow(InvalidDefinitionError)
    })
  }
  it('refuses a mode on an output guardrail', () => {
    expect(() =>
      defineAgent({ model, outputGuardrails: [{ name: 'x', check: () => false, mode: 'before' }] as never }),
    ).toThrow(/not a field of an output guardrail/)
  })
})

describe('tool guardrails', () => {
  const remove = defineModelTool<{ path: string }, string>({
    id: 'remove',
    description: 'Deletes a file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    execute: ({ path }) => `removed ${path}`,
  })
  const tmpOnly = {
    name: 'tmp-only',
    tools: ['remove'],
    input: ({ input }: { input: unknown }) =>
      (input as { path: string }).path.startsWith('/tmp/')
        ? undefined
        : ({ type: 'refuse', message: 'Only files under /tmp/ may be removed.' } as const),
  }

  it('input pass: the tool runs', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'remove', input: { path: '/tmp/a' } }] },
      { text: 'Done.' },
    ])
    const result = await defineAgent({ model, tools: [remove], toolGuardrails: [tmpOnly] }).run({
      prompt: 'rm',
    })
    expect(result.reason).toBe('final')
    expect(model.calls[1]!.messages.at(-1)!.content).toContain('removed /tmp/a')
  })

  it('input refuse: the tool does not run and the model reads the message', async () => {
    let ran = false
    const spy = defineModelTool<{ path: string }, string>({
      ...remove,
      execute: () => {
        ran = true
        return 'removed'
      },
    })
    const model = createScriptedModel([
      { toolCalls: [{ name: 'remove', input: { path: '/etc/passwd' } }] },
      { text: 'I may not.' },
    ])
    const events: AgentEvent[] = []
    const result = await defineAgent({ model, tools: [spy], toolGuardrails: [tmpOnly] }).run({
      prompt: 'rm',
      onEvent: (event) => void events.push(event),
    })
    expect(result.reason).toBe('final')
    expect(ran).toBe(false)
    const toolMessage = model.calls[1]!.messages.at(-1)!
    expect(toolMessage.role).toBe('tool')
    expect(toolMessage.content).toContain('Only files under /tmp/ may be removed.')
    const failed = events.find((event) => event.type === 'tool-failed')
    expect(failed?.type === 'tool-failed' && failed.error.code).toBe('tool-guardrail')
  })

  it('input stop: the run ends with reason guardrail after the step; no further model call', async () => {
    const model = createScriptedModel([{ toolCalls: [{ name: 'remove', input: { path: '/' } }] }])
    const agent = defineAgent({
      model,
      tools: [remove],
      toolGuardrails: [{ name: 'root', input: () => ({ type: 'stop', info: { path: '/' } }) }],
    })
    const result = await agent.run({ prompt: 'rm -rf' })
    expect(result.reason).toBe('guardrail')
    if (result.reason !== 'guardrail') return
    expect(result.guardrail).toEqual({
      guardrail: 'root',
      kind: 'tool-input',
      info: { path: '/' },
      toolId: 'remove',
    })
    expect(model.calls).toHaveLength(1)
    expect(() => assertAgentRunState(JSON.parse(JSON.stringify(result.state)))).not.toThrow()
  })

  it('output replace: the model reads the replacement', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'remove', input: { path: '/tmp/a' } }] },
      { text: 'ok' },
    ])
    const agent = defineAgent({
      model,
      tools: [remove],
      toolGuardrails: [{ name: 'redact', output: () => ({ type: 'replace', output: '[redacted]' }) }],
    })
    await agent.run({ prompt: 'rm' })
    const content = model.calls[1]!.messages.at(-1)!.content
    expect(content).toContain('[redacted]')
    expect(content).not.toContain('removed')
  })

  it('output refuse: the output is dropped and the call fails with the message', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'remove', input: { path: '/tmp/a' } }] },
      { text: 'ok' },
    ])
    const agent = defineAgent({
      model,
      tools: [remove],
      toolGuardrails: [
        { name: 'hide', output: () => ({ type: 'refuse', message: 'The result is withheld.' }) },
      ],
    })
    await agent.run({ prompt: 'rm' })
    const content = model.calls[1]!.messages.at(-1)!.content
    expect(content).toContain('The result is withheld.')
    expect(content).not.toContain('removed /tmp/a')
  })

  it('a bad answer from a tool guardrail fails the call with InvalidOutputError', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'remove', input: { path: '/tmp/a' } }] },
      { text: 'ok' },
    ])
    const events: AgentEvent[] = []
    const agent = defineAgent({
      model,
      tools: [remove],
      toolGuardrails: [{ name: 'odd', input: () => 'yes' as never }],
    })
    await agent.run({ prompt: 'rm', onEvent: (event) => void events.push(event) })
    const failed = events.find((event) => event.type === 'tool-failed')
    expect(failed?.type === 'tool-failed' && failed.error.name).toBe('InvalidOutputError')
  })

  it('refuses bad definitions', () => {
    const model = createScriptedModel([])
    const bad: unknown[] = [
      'x',
      [{ name: 'a' }],
      [{ name: 'a', input: 3 }],
      [{ name: 'a', input: () => undefined, tools: ['nope'] }],
      [{ name: 'a', input: () => undefined, tools: 'remove' }],
      [{ name: 'a', input: () => undefined, extra: 1 }],
      [
        { name: 'a', input: () => undefined },
        { name: 'a', output: () => undefined },
      ],
    ]
    for (const value of bad) {
      expect(() => defineAgent({ model, tools: [remove], toolGuardrails: value as never })).toThrow(
        InvalidDefinitionError,
      )
    }
  })
})
