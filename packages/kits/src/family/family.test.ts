import {
  AttemptBudget,
  BudgetExhaustedError,
  DuplicateIdError,
  InvalidInputError,
  InvalidStateError,
  MemoryDiagnosticSink,
  UnknownIdError,
} from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { describe, expect, it } from 'vitest'
import {
  defineAgentFamily,
  type FamilyBranch,
  FamilyChildError,
  FamilyGrantError,
  type FamilyResult,
} from './index.js'
import { echoModel, namedTool, sleep } from './testing/fixtures.js'

const search = namedTool('search')
const readPage = namedTool('read-page')
const publish = namedTool('publish')

function values(result: FamilyResult): unknown[] {
  return result.children.map((child) => (child.status === 'done' ? child.value : child.status))
}

describe('defineAgentFamily: spawning children', () => {
  it('runs agent children with the tools they were granted and fans their answers in by declaration order', async () => {
    const model = echoModel({
      prefix: 'done: ',
      delayMs: (request) => (request.messages.at(-1)?.content === 'slow' ? 30 : 0),
    })
    const family = defineAgentFamily({
      tools: [search, readPage, publish],
      scopes: ['web', 'wiki'],
      members: [{ id: 'researcher', agent: { model, system: 'Research.' } }],
    })
    const result = await family.run({
      children: [
        { member: 'researcher', prompt: 'slow', tools: ['search', 'read-page'], scopes: ['web'] },
        { member: 'researcher', prompt: 'fast', tools: ['search'] },
        { id: 'bare', member: 'researcher', prompt: 'none' },
      ],
    })
    expect(values(result)).toEqual(['done: slow', 'done: fast', 'done: none'])
    expect(result.children.map((child) => child.id)).toEqual(['researcher', 'researcher-2', 'bare'])
    expect(result.children[0]?.grant).toEqual({
      childId: 'researcher',
      path: ['researcher'],
      member: 'researcher',
      tools: ['search', 'read-page'],
      scopes: ['web'],
      attempts: undefined,
      tokens: undefined,
    })
    // Each child's model was offered exactly its grant, never the parent's other tools.
    const offered = new Map(
      model.requests.map((request) => [
        request.messages.at(-1)?.content,
        (request.tools ?? []).map((tool) => tool.name),
      ]),
    )
    expect(offered.get('slow')).toEqual(['search', 'read-page'])
    expect(offered.get('fast')).toEqual(['search'])
    expect(offered.get('none')).toEqual([])
    expect(result.usage.totalTokens).toBe(30)
    expect(result.failed).toBe(0)
    expect(result.stopped).toBe(false)
  })

  it('refuses a tool or scope the parent lacks, naming it, before anything is taken', async () => {
    const family = defineAgentFamily({
      tools: [search],
      scopes: ['web'],
      members: [{ id: 'a', agent: { model: echoModel() } }],
    })
    const attemptBudget = new AttemptBudget(5)
    const tool = await family
      .run(
        {
          children: [
            { member: 'a', prompt: 'x', attempts: 1 },
            { member: 'a', prompt: 'y', tools: ['search', 'publish'], attempts: 1 },
          ],
        },
        { attemptBudget },
      )
      .catch((error: unknown) => error)
    expect(FamilyGrantError.isInstance(tool)).toBe(true)
    expect((tool as FamilyGrantError).details).toEqual({
      field: 'request.children[1].tools[1]',
      id: 'publish',
      kind: 'tool',
      childId: 'a-2',
      held: ['search'],
    })
    expect((tool as Error).message).toMatch(/asks for tool "publish".*holds: "search"/)
    const scope = await family
      .run({ children: [{ member: 'a', prompt: 'x', scopes: ['billing'], attempts: 1 }] }, { attemptBudget })
      .catch((error: unknown) => error)
    expect(FamilyGrantError.isInstance(scope)).toBe(true)
    expect((scope as FamilyGrantError).details.kind).toBe('scope')
    expect((scope as FamilyGrantError).details.id).toBe('billing')
    expect(attemptBudget.used).toBe(0)
  })

  it('never lets a grandchild gain a tool its own parent lacks, even one the root holds', async () => {
    const leaf = { id: 'leaf', agent: { model: echoModel() } }
    const family = defineAgentFamily({
      tools: [search, publish],
      members: [
        leaf,
        {
          id: 'lead',
          run: (branch: FamilyBranch) =>
            branch.spawn({ children: [{ member: 'leaf', prompt: 'go', tools: ['publish'] }] }),
        },
      ],
    })
    const result = await family.run({ children: [{ member: 'lead', tools: ['search'] }] })
    const lead = result.children[0]
    expect(lead?.status).toBe('failed')
    const error = lead?.status === 'failed' ? lead.error : undefined
    expect(FamilyGrantError.isInstance(error)).toBe(true)
    expect((error as FamilyGrantError).details).toMatchObject({
      id: 'publish',
      kind: 'tool',
      held: ['search'],
      childId: 'leaf',
    })
  })

  it('checks members, ids and the child request strictly', async () => {
    const family = defineAgentFamily({
      members: [
        { id: 'a', agent: { model: echoModel() } },
        { id: 'f', run: () => 1 },
      ],
    })
    await expect(family.run({ children: [{ member: 'nobody', prompt: 'x' }] })).rejects.toSatisfy((error) =>
      UnknownIdError.isInstance(error),
    )
    await expect(
      family.run({
        children: [
          { id: 'x', member: 'a', prompt: 'p' },
          { id: 'x', member: 'f' },
        ],
      }),
    ).rejects.toSatisfy((error) => DuplicateIdError.isInstance(error))
    await expect(family.run({ children: [{ member: 'a' }] })).rejects.toThrow(/prompt is needed/)
    await expect(family.run({ children: [{ member: 'a', prompt: 'p', input: 1 }] })).rejects.toThrow(
      /is for run members/,
    )
    await expect(family.run({ children: [{ member: 'f', prompt: 'p' }] })).rejects.toThrow(
      /is for agent members/,
    )
    await expect(
      family.run({ children: [{ member: 'a', messages: [{ role: 'robot', content: 'x' }] as never }] }),
    ).rejects.toSatisfy(
      (error) =>
        InvalidInputError.isInstance(error) && /children\[0\]\.messages/.test((error as Error).message),
    )
    await expect(
      family.run({ children: [{ member: 'a', prompt: 'p', tools: 'search' as never }] }),
    ).rejects.toThrow(InvalidInputError)
    await expect(
      family.run({ children: [{ member: 'a', prompt: 'p', colour: 'red' } as never] }),
    ).rejects.toThrow(/colour is not a known field/)
    expect((await family.run({ children: [] })).children).toEqual([])
  })
})

describe('defineAgentFamily: budget shares', () => {
  it('takes every attempt share from the parent at spawn, at once, and never gives it back', async () => {
    const attemptBudget = new AttemptBudget(10)
    attemptBudget.take({ label: 'the parent planned' })
    let seenAtStart: number | undefined
    const family = defineAgentFamily({
      members: [
        { id: 'agent', agent: { model: echoModel() } },
        {
          id: 'probe',
          run: (branch: FamilyBranch) => {
            seenAtStart = attemptBudget.used
            return branch.attemptBudget?.remaining
          },
        },
      ],
      concurrency: 1,
    })
    const result = await family.run(
      {
        children: [
          { member: 'probe', attempts: 2 },
          { member: 'agent', prompt: 'one call', attempts: 4 },
        ],
      },
      { attemptBudget },
    )
    // Both shares were taken before the first child ran.
    expect(seenAtStart).toBe(7)
    expect(result.attempts).toBe(6)
    expect(values(result)).toEqual([2, 'one call'])
    expect(result.children.map((child) => child.attemptsUsed)).toEqual([0, 1])
    // Unused share stays spent: the parent has 3 left, not 8.
    expect(attemptBudget.used).toBe(7)
  })

  it('refuses shares that overdraw the parent, naming the child, and takes nothing', async () => {
    const attemptBudget = new AttemptBudget(5)
    const family = defineAgentFamily({ members: [{ id: 'a', agent: { model: echoModel() } }] })
    const error = await family
      .run(
        {
          children: [
            { member: 'a', prompt: 'x', attempts: 3 },
            { id: 'big', member: 'a', prompt: 'y', attempts: 3 },
          ],
        },
        { attemptBudget },
      )
      .catch((caught: unknown) => caught)
    expect(BudgetExhaustedError.isInstance(error)).toBe(true)
    expect((error as BudgetExhaustedError).details).toMatchObject({
      limit: 5,
      used: 0,
      requested: 6,
      field: 'request.children[1].attempts',
      label: 'child "big" attempts share',
    })
    expect(attemptBudget.used).toBe(0)
    const missing = await family
      .run({ children: [{ member: 'a', prompt: 'x' }] }, { attemptBudget })
      .catch((e: unknown) => e)
    expect(InvalidInputError.isInstance(missing)).toBe(true)
    expect((missing as InvalidInputError).details.field).toBe('request.children[0].attempts')
  })

  it('a child that needs more attempts than its share fails alone; its siblings are reported with it', async () => {
    const attemptBudget = new AttemptBudget(10)
    const family = defineAgentFamily({
      tools: [search],
      members: [
        {
          id: 'looper',
          agent: {
            // Calls the tool forever: every turn takes an attempt from the child's own budget.
            model: {
              identity: 'looper',
              generate: async () => ({
                message: {
                  role: 'assistant',
                  content: '',
                  toolCalls: [{ id: `c${Math.random()}`, name: 'search', arguments: '{}' }],
                },
                finishReason: 'tool-calls',
                usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
              }),
            },
            maxTurns: 50,
          },
        },
        { id: 'echo', agent: { model: echoModel() } },
      ],
    })
    const result = await family.run(
      {
        children: [
          { member: 'echo', prompt: 'first', attempts: 1 },
          { member: 'looper', prompt: 'loop', tools: ['search'], attempts: 3 },
          { member: 'echo', prompt: 'third', attempts: 1 },
        ],
      },
      { attemptBudget },
    )
    expect(result.children.map((child) => child.status)).toEqual(['done', 'failed', 'done'])
    const looper = result.children[1]
    expect(looper?.attemptsUsed).toBe(3)
    expect(looper?.status === 'failed' && BudgetExhaustedError.isInstance(looper.error)).toBe(true)
    expect(result.failed).toBe(1)
    expect(attemptBudget.used).toBe(5)
  })

  it('grants token shares out of the parent token budget; an agent child stops at its share', async () => {
    const family = defineAgentFamily({
      tools: [search],
      members: [
        {
          id: 'spender',
          agent: {
            model: {
              identity: 'spender',
              generate: async () => ({
                message: {
                  role: 'assistant',
                  content: '',
                  toolCalls: [{ id: `c${Math.random()}`, name: 'search', arguments: '{}' }],
                },
                finishReason: 'tool-calls',
                usage: { inputTokens: 30, outputTokens: 10, totalTokens: 40 },
              }),
            },
            maxTurns: 100,
            estimateTokens: () => 0,
          },
        },
      ],
    })
    const result = await family.run({
      maxTokens: 500,
      children: [{ member: 'spender', prompt: 'spend', tools: ['search'], tokens: 100 }],
    })
    const child = result.children[0]
    expect(result.tokens).toBe(100)
    expect(child?.status).toBe('failed')
    expect(child?.status === 'failed' && FamilyChildError.isInstance(child.error)).toBe(true)
    expect(child?.run?.reason).toBe('token-limit')
    expect(child?.usage.totalTokens).toBe(120) // three calls of 40: the third starts at 80 < 100
    // Alike children share one built agent per token share: each still stops at its own share.
    const two = await family.run({
      maxTokens: 500,
      children: [
        { member: 'spender', prompt: 'a', tools: ['search'], tokens: 100 },
        { member: 'spender', prompt: 'b', tools: ['search'], tokens: 200 },
        { member: 'spender', prompt: 'c', tools: ['search'], tokens: 100 },
      ],
    })
    expect(two.children.map((report) => report.usage.totalTokens)).toEqual([120, 200, 120])
    await expect(
      family.run({
        maxTokens: 150,
        children: [
          { member: 'spender', prompt: 's', tokens: 100 },
          { member: 'spender', prompt: 't', tokens: 51 },
        ],
      }),
    ).rejects.toSatisfy(
      (error) => BudgetExhaustedError.isInstance(error) && /token budget/.test((error as Error).message),
    )
    await expect(
      family.run({ maxTokens: 150, children: [{ member: 'spender', prompt: 's' }] }),
    ).rejects.toThrow(/tokens is required/)
    await expect(family.run({ children: [{ member: 'spender', prompt: 's', tokens: 0 }] })).rejects.toThrow(
      /tokens must be a safe integer of at least 1/,
    )
  })

  it('a member agent with its own maxTokens keeps the lower cap', async () => {
    const model = echoModel({ tokensPerCall: 10 })
    const family = defineAgentFamily({
      members: [{ id: 'capped', agent: { model, maxTokens: 5, estimateTokens: () => 6 } }],
    })
    const result = await family.run({
      maxTokens: 100,
      children: [{ member: 'capped', prompt: 'x', tokens: 50 }],
    })
    expect(result.children[0]?.run?.reason).toBe('token-limit')
    expect(model.requests).toHaveLength(0)
  })
})

describe('defineAgentFamily: concurrency, failures, cancellation', () => {
  it('never runs more children of one spawn at once than the limit', async () => {
    let running = 0
    let peak = 0
    const family = defineAgentFamily({
      concurrency: 3,
      members: [
        {
          id: 'work',
          run: async (branch: FamilyBranch, context) => {
            running++
            peak = Math.max(peak, running)
            await sleep(Number(branch.input), context.signal)
            running--
            return branch.input
          },
        },
      ],
    })
    const delays = [5, 1, 8, 2, 0, 6, 3, 1, 4]
    const result = await family.run({ children: delays.map((delay) => ({ member: 'work', input: delay })) })
    expect(values(result)).toEqual(delays)
    expect(peak).toBe(3)
    peak = 0
    await family.run({ concurrency: 1, children: delays.map((delay) => ({ member: 'work', input: delay })) })
    expect(peak).toBe(1)
  })

  it('reports a failure beside the others; failFast stops the siblings instead', async () => {
    const family = defineAgentFamily({
      concurrency: 2,
      members: [
        {
          id: 'work',
          run: async (branch: FamilyBranch, context) => {
            const { fail, delay } = branch.input as { fail: boolean; delay: number }
            await sleep(delay, context.signal)
            if (fail) throw new Error(`child ${delay} broke`)
            return delay
          },
        },
      ],
    })
    const children = [
      { member: 'work', input: { fail: false, delay: 20 } },
      { member: 'work', input: { fail: true, delay: 1 } },
      { member: 'work', input: { fail: false, delay: 2 } },
      { member: 'work', input: { fail: false, delay: 3 } },
    ]
    const all = await family.run({ children })
    expect(all.children.map((child) => child.status)).toEqual(['done', 'failed', 'done', 'done'])
    expect(all.children[1]?.status === 'failed' && (all.children[1].error as Error).message).toBe(
      'child 1 broke',
    )
    expect(all.failed).toBe(1)

    const fast = await family.run({ children, failFast: true })
    expect(fast.children.map((child) => child.status)).toEqual(['stopped', 'failed', 'stopped', 'stopped'])
    expect(fast.children.map((child) => (child.status === 'stopped' ? child.started : undefined))).toEqual([
      true,
      undefined,
      false,
      false,
    ])
    expect(fast.stopped).toBe(false) // the parent was not cancelled
  })

  it('cancelling the parent stops every child, running or waiting, and reports it', async () => {
    const controller = new AbortController()
    const attemptBudget = new AttemptBudget(20)
    const started: string[] = []
    const family = defineAgentFamily({
      concurrency: 2,
      members: [
        { id: 'agent', agent: { model: echoModel({ delayMs: () => 10_000 }) } },
        {
          id: 'wait',
          run: async (branch: FamilyBranch, context) => {
            started.push(branch.grant.childId)
            await sleep(10_000, context.signal)
          },
        },
      ],
    })
    const pending = family.run(
      {
        children: [
          { member: 'agent', prompt: 'long', attempts: 2 },
          { member: 'wait', attempts: 2 },
          { member: 'wait', attempts: 2 },
        ],
      },
      { attemptBudget, signal: controller.signal },
    )
    await sleep(20, new AbortController().signal)
    controller.abort(new Error('user left'))
    const result = await pending
    expect(result.stopped).toBe(true)
    expect(
      result.children.map((child) => [child.status, child.status === 'stopped' && child.started]),
    ).toEqual([
      ['stopped', true],
      ['stopped', true],
      ['stopped', false],
    ])
    expect(result.children[0]?.run?.reason).toBe('stopped')
    expect(started).toEqual(['wait'])
    expect(attemptBudget.used).toBe(6) // shares taken at spawn stay taken

    // A parent cancelled before the spawn takes nothing and starts nothing.
    const none = await family.run(
      { children: [{ member: 'wait', attempts: 2 }] },
      { attemptBudget, signal: controller.signal },
    )
    expect(none.children.map((child) => child.status)).toEqual(['stopped'])
    expect(attemptBudget.used).toBe(6)
  })

  it('a child that ends stops what it left running; its branch spawns no more', async () => {
    let leaked: Promise<FamilyResult> | undefined
    let kept: FamilyBranch | undefined
    const family = defineAgentFamily({
      members: [
        { id: 'slow', run: (_branch: FamilyBranch, context) => sleep(10_000, context.signal) },
        {
          id: 'careless',
          run: (branch: FamilyBranch) => {
            kept = branch
            leaked = branch.spawn({ children: [{ member: 'slow' }] })
            return 'returned early'
          },
        },
      ],
    })
    const result = await family.run({ children: [{ member: 'careless' }] })
    expect(values(result)).toEqual(['returned early'])
    const orphan = await leaked
    expect(orphan?.children[0]?.status).toBe('stopped')
    await expect(kept?.spawn({ children: [{ member: 'slow' }] })).rejects.toSatisfy((error) =>
      InvalidStateError.isInstance(error),
    )
  })
})

describe('defineAgentFamily: scopes, app and spans', () => {
  it("hands the child's scopes to its tools through childApp", async () => {
    const seen: unknown[] = []
    const lookup = defineModelTool<unknown, string>({
      id: 'lookup',
      description: 'Looks something up',
      inputSchema: {},
      execute: (_input, context) => {
        seen.push(context.app)
        return 'ok'
      },
    })
    let calls = 0
    const family = defineAgentFamily<{ user: string; scopes?: readonly string[] }>({
      tools: [lookup],
      scopes: ['billing', 'support'],
      childApp: (grant, app) => ({ ...app, scopes: grant.scopes }),
      members: [
        {
          id: 'helper',
          agent: {
            model: {
              identity: 'one-call',
              generate: async () =>
                calls++ % 2 === 0
                  ? {
                      message: {
                        role: 'assistant',
                        content: '',
                        toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{}' }],
                      },
                      finishReason: 'tool-calls',
                      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
                    }
                  : {
                      message: { role: 'assistant', content: 'done' },
                      finishReason: 'stop',
                      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
                    },
            },
          },
        },
      ],
    })
    const result = await family.run(
      { children: [{ member: 'helper', prompt: 'go', tools: ['lookup'], scopes: ['support'] }] },
      { app: { user: 'u1' } },
    )
    expect(values(result)).toEqual(['done'])
    expect(seen).toEqual([{ user: 'u1', scopes: ['support'] }])
  })

  it('opens a family-run span per spawn and a family-child span per child, each ended once', async () => {
    const memory = new MemoryDiagnosticSink()
    const family = defineAgentFamily({
      members: [
        { id: 'echo', agent: { model: echoModel() } },
        { id: 'broken', run: () => Promise.reject(new Error('nope')) },
        {
          id: 'lead',
          run: async (branch: FamilyBranch) =>
            values(await branch.spawn({ children: [{ member: 'echo', prompt: 'deep' }] })),
        },
      ],
    })
    const result = await family.run(
      { children: [{ member: 'lead' }, { member: 'broken' }] },
      { diagnostics: memory.sink },
    )
    expect(values(result)).toEqual([['deep'], 'failed'])
    const starts = memory.events.filter((event) => event.kind.endsWith('-start'))
    const ends = memory.events.filter((event) => event.kind.endsWith('-end'))
    expect(new Set(starts.map((event) => event.spanId)).size).toBe(starts.length)
    expect(ends.map((event) => event.spanId).sort()).toEqual(starts.map((event) => event.spanId).sort())
    const runs = memory.ofKind('family-run-start')
    const children = memory.ofKind('family-child-start')
    expect(runs.map((event) => event.data.path ?? '')).toEqual(['', 'lead'])
    const child = (id: string) => children.find((event) => event.data.childId === id)
    expect(children.map((event) => event.data.childId).sort()).toEqual(['broken', 'echo', 'lead'])
    // The nested spawn hangs under the lead child's span, the deep child under that spawn.
    expect(runs[1]?.parentSpanId).toBe(child('lead')?.spanId)
    expect(child('echo')?.parentSpanId).toBe(runs[1]?.spanId)
    const endOf = (id: string) =>
      memory.events.find((event) => event.kind === 'family-child-end' && event.spanId === child(id)?.spanId)
        ?.data
    expect(endOf('lead')?.outcome).toBe('ok')
    expect(endOf('broken')).toMatchObject({ outcome: 'error', status: 'failed', errorMessage: 'nope' })
    expect(endOf('echo')).toMatchObject({ outcome: 'ok', totalTokens: 10 })
    // The deep child's agent run is a span inside its family-child span.
    const run = memory.ofKind('run-start')[0]
    expect(run?.parentSpanId).toBe(child('echo')?.spanId)
    expect(memory.events[0]?.scope).toEqual(['family'])
  })
})
