import {
  AbortedError,
  ConflictError,
  createOperationContext,
  DuplicateIdError,
  InvalidDefinitionError,
  InvalidIdError,
  InvalidInputError,
  InvalidOutputError,
  MemoryDiagnosticSink,
  RegistrySealedError,
  RejectedThenableError,
  TimeoutError,
  UnauthorizedError,
  UnknownIdError,
} from '@agent-core/core'
import { defineModelTool, type ModelTool } from '@agent-core/core/tools'
import { describe, expect, it } from 'vitest'
import {
  ApprovalRequiredError,
  defineToolLifecycle,
  type PendingToolCall,
  ToolCallFailedError,
  ToolCallJournal,
  type ToolLifecycle,
  ToolLifecycleRegistry,
  ToolRejectedError,
  unwrapToolOutcome,
} from './index.js'

const addTool = defineModelTool<{ a: number; b: number }, number>({
  id: 'add',
  description: 'Adds two numbers',
  inputSchema: {
    type: 'object',
    required: ['a', 'b'],
    additionalProperties: false,
    properties: { a: { type: 'number' }, b: { type: 'number' } },
  },
  execute: ({ a, b }) => a + b,
})

function toolReturning(id: string, execute: ModelTool['execute']): ModelTool {
  return defineModelTool({ id, description: id, inputSchema: { type: 'object' }, execute })
}

const add = (input: unknown = { a: 1, b: 2 }, toolCallId = 'call_1') => ({ toolCallId, toolId: 'add', input })
const approve = (toolCallId: string) => ({ type: 'approve' as const, toolCallId, by: 'person' as const })

describe('registration', () => {
  it('follows the core registry contract, created at once or staged', () => {
    const lifecycle = defineToolLifecycle(addTool)
    const created = ToolLifecycleRegistry.create([lifecycle])
    const staged = new ToolLifecycleRegistry().registerAll([lifecycle])
    expect(staged.sealed).toBe(false)
    staged.seal()
    for (const tools of [created, staged]) {
      expect(tools.sealed).toBe(true)
      expect(tools.size).toBe(1)
      expect(tools.ids()).toEqual(['add'])
      expect(tools.has('add')).toBe(true)
      expect(tools.get('nope')).toBeUndefined()
      expect(tools.require('add')).toBe(lifecycle)
      expect(tools.entries()).toEqual([['add', lifecycle]])
      expect(tools.values()).toEqual([lifecycle])
      expect(tools.tools()).toEqual([addTool])
      expect(() => tools.require('nope')).toThrow(UnknownIdError)
      expect(() => tools.register(lifecycle)).toThrow(RegistrySealedError)
    }
    expect(() => ToolLifecycleRegistry.create([lifecycle, lifecycle])).toThrow(DuplicateIdError)
  })

  it('refuses a lifecycle whose id is not its tool id, naming both', () => {
    expect(() => ToolLifecycleRegistry.create([{ id: 'sum', tool: addTool }])).toThrow(
      /Tool lifecycle "sum": id must equal its tool's id "add"/,
    )
  })

  it('checks ids with core TOOL_ID_PATTERN unless the policy says otherwise', () => {
    expect(() => ToolLifecycleRegistry.create([{ id: 'has space', tool: addTool }])).toThrow(InvalidIdError)
  })

  it('checks every field of a lifecycle when it is registered', () => {
    const bad: [Partial<ToolLifecycle>, RegExp][] = [
      [{ tool: undefined }, /tool must be a core ModelTool/],
      [{ tool: { id: 'add' } as unknown as ModelTool }, /needs a description/],
      [{ inspect: 'yes' as unknown as undefined }, /inspect must be a function/],
      [{ finalize: 1 as unknown as undefined }, /finalize must be a function/],
      [{ receiver: 'me' as unknown as object }, /receiver must be an object/],
      [{ timeoutMs: 0 }, /timeoutMs must be a safe integer from 1/],
      [{ timeoutMs: Number.NaN }, /timeoutMs must be a safe integer from 1/],
    ]
    for (const [fields, message] of bad) {
      expect(() =>
        ToolLifecycleRegistry.create([{ id: 'add', tool: addTool, ...fields } as ToolLifecycle]),
      ).toThrow(message)
    }
    try {
      ToolLifecycleRegistry.create([{ id: 'add', tool: addTool, authorize: 3 } as unknown as ToolLifecycle])
    } catch (error) {
      expect(InvalidDefinitionError.isInstance(error) && error.details).toMatchObject({
        id: 'add',
        field: 'authorize',
        received: 'the number 3',
      })
    }
  })

  it('runs the policy assertDefinition after its own checks, and checks the policy itself', () => {
    const seen: string[] = []
    ToolLifecycleRegistry.create([defineToolLifecycle(addTool)], {
      assertDefinition(definition) {
        seen.push(definition.id)
      },
    })
    expect(seen).toEqual(['add'])
    expect(() => new ToolLifecycleRegistry({ timeoutMs: -1 })).toThrow(InvalidDefinitionError)
    expect(() => new ToolLifecycleRegistry({ templates: [42 as never] })).toThrow(/templates\[0\]/)
    expect(() => new ToolLifecycleRegistry({ decisionKeys: ['short'] })).toThrow(/at least 16/)
    expect(() => new ToolLifecycleRegistry({ decisionKeys: [] })).toThrow(InvalidDefinitionError)
    expect(() => new ToolLifecycleRegistry(null as never)).toThrow(InvalidDefinitionError)
  })
})

describe('receivers', () => {
  it('calls every hook on the receiver, so private state of a class instance works', async () => {
    class Budget {
      #left = 1
      authorize(): void {
        if (this.#left <= 0) throw new ToolRejectedError('No calls left in this budget.')
        this.#left--
      }
    }
    const tools = ToolLifecycleRegistry.create([defineToolLifecycle(addTool, new Budget())])
    expect((await tools.run(add(), {})).status).toBe('completed')
    const second = await tools.run(add(undefined, 'call_2'), {})
    expect(second.status === 'rejected' && second.rejection.reason).toBe('No calls left in this budget.')
  })

  it('uses an explicit receiver instead of the block', async () => {
    const owner = { calls: 0 }
    const tools = ToolLifecycleRegistry.create([
      {
        id: 'add',
        tool: addTool,
        receiver: owner,
        inspect(this: typeof owner) {
          this.calls++
        },
      },
    ])
    await tools.run(add(), {})
    expect(owner.calls).toBe(1)
  })
})

describe('hook contracts', () => {
  it('refuses a Promise from a synchronous hook and consumes its rejection', async () => {
    const tools = ToolLifecycleRegistry.create([
      { id: 'add', tool: addTool, inspect: (() => Promise.reject(new Error('late'))) as () => void },
    ])
    const outcome = await tools.run(add(), {})
    expect(outcome.status === 'failed' && RejectedThenableError.isInstance(outcome.error)).toBe(true)
    expect(outcome.status === 'failed' && outcome.phase).toBe('inspect')
  })

  it('refuses a value returned by a hook that must return nothing', async () => {
    const tools = ToolLifecycleRegistry.create([
      { id: 'add', tool: addTool, authorize: (() => true) as () => void },
    ])
    const outcome = await tools.run(add(), {})
    expect(outcome.status === 'failed' && InvalidOutputError.isInstance(outcome.error)).toBe(true)
    expect(outcome.status === 'failed' && String((outcome.error as Error).message)).toMatch(
      /authorize must return nothing/,
    )
  })

  it('lets only authorize ask for approval', async () => {
    const tools = ToolLifecycleRegistry.create([
      {
        id: 'add',
        tool: addTool,
        inspect() {
          throw new ApprovalRequiredError('Ask someone.')
        },
      },
    ])
    const outcome = await tools.run(add(), {})
    expect(outcome.status).toBe('failed')
    expect(outcome.status === 'failed' && String((outcome.error as Error).message)).toMatch(
      /only authorize may ask/,
    )
  })

  it('treats core UnauthorizedError as a refusal by policy, and keeps who refused and the instruction', async () => {
    const core = ToolLifecycleRegistry.create([
      {
        id: 'add',
        tool: addTool,
        authorize() {
          throw new UnauthorizedError('Adding is for admins.')
        },
      },
    ])
    const first = await core.run(add(), {})
    expect(first.status === 'rejected' && first.rejection).toEqual({
      reason: 'Adding is for admins.',
      by: 'policy',
    })
    const person = ToolLifecycleRegistry.create([
      {
        id: 'add',
        tool: addTool,
        authorize() {
          throw new ToolRejectedError('Refused.', {
            details: { by: 'person', instruction: 'Subtract instead.' },
          })
        },
      },
    ])
    const second = await person.run(add(), {})
    expect(second.status === 'rejected' && second.rejection).toEqual({
      reason: 'Refused.',
      by: 'person',
      instruction: 'Subtract instead.',
    })
    const wrongBy = ToolLifecycleRegistry.create([
      {
        id: 'add',
        tool: addTool,
        authorize() {
          throw new ToolRejectedError('Refused.', { details: { by: 'robot' as never } })
        },
      },
    ])
    const third = await wrongBy.run(add(), {})
    expect(third.status === 'failed' && InvalidOutputError.isInstance(third.error)).toBe(true)
  })
})

describe('protocol and execution', () => {
  const tools = ToolLifecycleRegistry.create([defineToolLifecycle(addTool)])

  it('fails a call to an unknown tool before any hook, naming the known tools', async () => {
    const outcome = await tools.run({ toolCallId: 'c', toolId: 'multiply', input: {} }, {})
    expect(outcome.status === 'failed' && outcome.phase).toBe('select')
    expect(outcome.status === 'failed' && UnknownIdError.isInstance(outcome.error)).toBe(true)
    expect(outcome.status === 'failed' && outcome.message.content).toMatch(/No tool "multiply".*"add"/)
  })

  it('parses raw arguments, and fails malformed JSON in the protocol phase keeping the text', async () => {
    const ok = await tools.run({ toolCallId: 'c1', toolId: 'add', arguments: '{"a":2,"b":3}' }, {})
    expect(ok.status === 'completed' && ok.output).toBe(5)
    const bad = await tools.run({ toolCallId: 'c2', toolId: 'add', arguments: '{"a":2,' }, {})
    expect(bad.status === 'failed' && bad.phase).toBe('protocol')
    expect(bad.record).toMatchObject({ arguments: '{"a":2,' })
    expect(bad.record).not.toHaveProperty('input')
  })

  it("checks the input against the tool's schema, reporting every issue", async () => {
    const outcome = await tools.run(add({ a: 'one', c: 1 }), {})
    expect(outcome.status === 'failed' && outcome.phase).toBe('protocol')
    const error = outcome.status === 'failed' ? outcome.error : undefined
    expect(InvalidInputError.isInstance(error) && error.details.issues?.length).toBeGreaterThanOrEqual(3)
  })

  it('refuses a malformed request by throwing (it is the caller, not the model, that is wrong)', async () => {
    await expect(tools.run({ toolCallId: '', toolId: 'add', input: {} }, {})).rejects.toThrow(/toolCallId/)
    await expect(
      tools.run({ toolCallId: 'c', toolId: 'add', input: {}, arguments: '{}' }, {}),
    ).rejects.toThrow(/cannot be given together/)
    await expect(tools.run({ toolCallId: 'c', toolId: 'add', input: new Date() }, {})).rejects.toThrow(
      /plain JSON/,
    )
    await expect(tools.run({ toolCallId: 'c', toolId: 'add' }, {})).rejects.toThrow(/input is missing/)
    await expect(tools.run(add(), { signal: 'no' as never })).rejects.toThrow(InvalidInputError)
    await expect(tools.run(add(), {}, { journal: {} as never })).rejects.toThrow(/ToolCallJournal/)
  })

  it('requires JSON output, and stores no output for undefined', async () => {
    const dated = ToolLifecycleRegistry.create([defineToolLifecycle(toolReturning('now', () => new Date()))])
    const outcome = await dated.run({ toolCallId: 'c', toolId: 'now', input: {} }, {})
    expect(outcome.status === 'failed' && outcome.phase).toBe('execute')
    expect(outcome.status === 'failed' && InvalidOutputError.isInstance(outcome.error)).toBe(true)
    const nothing = ToolLifecycleRegistry.create([
      defineToolLifecycle(toolReturning('noop', () => undefined)),
    ])
    const done = await nothing.run({ toolCallId: 'c', toolId: 'noop', input: {} }, {})
    expect(done.status).toBe('completed')
    expect(done.record).not.toHaveProperty('output')
    expect(done.status === 'completed' && done.message.content).toBe('null')
  })

  it('keeps the tool output as the tool returned it and stores a frozen copy', async () => {
    const shared = { items: [1, 2] }
    const tools = ToolLifecycleRegistry.create([defineToolLifecycle(toolReturning('list', () => shared))])
    const outcome = await tools.run({ toolCallId: 'c', toolId: 'list', input: {} }, {})
    expect(outcome.status === 'completed' && outcome.output).toBe(shared)
    shared.items.push(3)
    expect(outcome.record).toMatchObject({ output: { items: [1, 2] } })
    expect(Object.isFrozen(outcome.record)).toBe(true)
  })

  it('times out a tool that ignores its signal, request limit over lifecycle limit over registry limit', async () => {
    const hang = toolReturning('hang', () => new Promise(() => {}))
    const slowDefault = ToolLifecycleRegistry.create([defineToolLifecycle(hang)], { timeoutMs: 10 })
    const first = await slowDefault.run({ toolCallId: 'c', toolId: 'hang', input: {} }, {})
    expect(first.status === 'failed' && TimeoutError.isInstance(first.error)).toBe(true)
    const perTool = ToolLifecycleRegistry.create([defineToolLifecycle(hang, { timeoutMs: 10 })], {
      timeoutMs: 600_000,
    })
    const second = await perTool.run({ toolCallId: 'c', toolId: 'hang', input: {} }, {})
    expect(second.status === 'failed' && second.phase).toBe('execute')
    const perRequest = ToolLifecycleRegistry.create([defineToolLifecycle(hang, { timeoutMs: 600_000 })])
    const third = await perRequest.run({ toolCallId: 'c', toolId: 'hang', input: {}, timeoutMs: 10 }, {})
    expect(third.status === 'failed' && TimeoutError.isInstance(third.error)).toBe(true)
    expect(third.status === 'failed' && third.record.error.code).toBe('timeout')
  })

  it('stops waiting when the run is cancelled, and passes the signal to the tool', async () => {
    let seen: AbortSignal | undefined
    const tools = ToolLifecycleRegistry.create([
      defineToolLifecycle(
        toolReturning('wait', (_input, context) => {
          seen = context.signal
          return new Promise(() => {})
        }),
      ),
    ])
    const controller = new AbortController()
    const running = tools.run({ toolCallId: 'c', toolId: 'wait', input: {} }, { signal: controller.signal })
    await new Promise((resolve) => setTimeout(resolve, 5))
    controller.abort()
    const outcome = await running
    expect(outcome.status === 'failed' && AbortedError.isInstance(outcome.error)).toBe(true)
    expect(seen?.aborted).toBe(true)
    const early = await tools.run(
      { toolCallId: 'c2', toolId: 'wait', input: {} },
      { signal: controller.signal },
    )
    expect(early.status === 'failed' && early.phase).toBe('inspect')
  })
})

describe('templates', () => {
  it("asks the tool's template, then the registry's providers in order, then the default", async () => {
    const asked: string[] = []
    class Polite {
      readonly #prefix = 'Result: '
      template(input: { status: string; output?: unknown }) {
        asked.push('object')
        return input.status === 'completed' && { content: `${this.#prefix}${String(input.output)}` }
      }
    }
    const tools = ToolLifecycleRegistry.create(
      [
        {
          id: 'add',
          tool: addTool,
          template() {
            asked.push('tool')
            return null
          },
        },
      ],
      {
        templates: [
          () => {
            asked.push('function')
            return 0
          },
          new Polite(),
        ],
      },
    )
    const outcome = await tools.run(add(), {})
    expect(asked).toEqual(['tool', 'function', 'object'])
    expect(outcome.status === 'completed' && outcome.message).toEqual({
      role: 'tool',
      toolCallId: 'call_1',
      content: 'Result: 3',
      isError: false,
    })
    const failed = await tools.run(add({ a: 'x', b: 1 }, 'call_2'), {})
    expect(failed.status === 'failed' && failed.message.isError).toBe(true)
    expect(failed.status === 'failed' && failed.message.content).toMatch(/^The call to add failed/)
  })

  it('refuses a template answer that is neither falsy nor a template', async () => {
    for (const answer of [
      true,
      'text',
      { content: 3 },
      { content: 'x', isError: 'no' },
      Promise.resolve(null),
    ]) {
      const tools = ToolLifecycleRegistry.create([
        { id: 'add', tool: addTool, template: () => answer as never },
      ])
      const outcome = await tools.run(add(), {})
      expect(outcome.status === 'failed' && outcome.phase).toBe('render')
      expect(outcome.status === 'failed' && outcome.message.content).toMatch(/^The call to add failed/)
    }
  })
})

describe('approvals', () => {
  const keys = ['current-key-of-32-characters-aaaa', 'previous-key-of-32-characters-bbb']
  const gated = (policy = {}) =>
    ToolLifecycleRegistry.create(
      [
        defineToolLifecycle(addTool, {
          authorize(call) {
            if (call.input.a > 10) throw new ApprovalRequiredError('Big numbers need a look.')
          },
        }),
      ],
      policy,
    )

  it('produces a plain-JSON pending call with the invocation id core allocated', async () => {
    const tools = gated()
    const outcome = await tools.run({ ...add({ a: 11, b: 1 }), runId: 'run_7' }, {})
    expect(outcome.status).toBe('pending')
    expect(outcome.record).toEqual({
      status: 'pending',
      toolCallId: 'call_1',
      invocationId: outcome.invocationId,
      toolId: 'add',
      input: { a: 11, b: 1 },
      runId: 'run_7',
      waitingFor: 'approval',
      reason: 'Big numbers need a look.',
    })
    expect(outcome.invocationId).toMatch(/^inv_/)
    expect(JSON.parse(JSON.stringify(outcome.record))).toEqual(outcome.record)
  })

  it('lets a running tool ask for approval: the call waits, and runs again with its invocation id once approved', async () => {
    const runs: { invocationId: string; approved: boolean }[] = []
    const approvals = new Set<string>()
    const step = defineModelTool<{ amount: number }, string>({
      id: 'step',
      description: 'Finds out only while it runs that it needs a person',
      inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
      execute: ({ amount }, { invocationId }) => {
        const approved = approvals.has(invocationId)
        runs.push({ invocationId, approved })
        if (amount > 10 && !approved) throw new ApprovalRequiredError(`Moving ${amount} needs a person.`)
        return `moved ${amount}`
      },
    })
    const finalized: string[] = []
    const tools = ToolLifecycleRegistry.create([
      defineToolLifecycle(step, {
        resume(call) {
          approvals.add(call.invocationId)
        },
        complete() {
          finalized.push('complete')
        },
        finalize(outcome) {
          finalized.push(outcome.status)
        },
      }),
    ])
    const first = await tools.run({ toolCallId: 'call_1', toolId: 'step', input: { amount: 50 } }, {})
    expect(first.status).toBe('pending')
    expect(first.status === 'pending' && first.record.reason).toBe('Moving 50 needs a person.')
    const done = await tools.resume(first.record, approve('call_1'), {})
    expect(done.status === 'completed' && done.output).toBe('moved 50')
    expect(runs).toEqual([
      { invocationId: first.invocationId, approved: false },
      { invocationId: first.invocationId, approved: true },
    ])
    expect(finalized).toEqual(['pending', 'complete', 'completed'])

    const second = await tools.run({ toolCallId: 'call_2', toolId: 'step', input: { amount: 70 } }, {})
    const refused = await tools.resume(
      second.record as PendingToolCall,
      { type: 'reject', toolCallId: 'call_2', by: 'person', reason: 'Not today.' },
      {},
    )
    expect(refused.status).toBe('rejected')
    expect(runs).toHaveLength(3)
  })

  it('signs pending calls and refuses unsigned, forged or moved decisions', async () => {
    const tools = gated({ decisionKeys: keys })
    const first = await tools.run({ ...add({ a: 11, b: 1 }), runId: 'run_1' }, {})
    const second = await tools.run({ ...add({ a: 12, b: 1 }, 'call_2'), runId: 'run_1' }, {})
    const pending = first.record as PendingToolCall
    const other = second.record as PendingToolCall
    expect(pending.signature).toMatch(/^v1\./)
    await expect(tools.resume(pending, approve('call_1'), {})).rejects.toThrow(UnauthorizedError)
    await expect(
      tools.resume(pending, { ...approve('call_1'), signature: other.signature }, {}),
    ).rejects.toThrow(/does not match the call/)
    await expect(
      tools.resume(
        { ...pending, runId: 'run_2' },
        { ...approve('call_1'), signature: pending.signature },
        {},
      ),
    ).rejects.toThrow(UnauthorizedError)
    const ok = await tools.resume(pending, { ...approve('call_1'), signature: pending.signature }, {})
    expect(ok.status === 'completed' && ok.output).toBe(12)
  })

  it('verifies with any listed key, so keys can be rotated', async () => {
    const old = gated({ decisionKeys: [keys[1]] })
    const pending = (await old.run(add({ a: 11, b: 1 }), {})).record as PendingToolCall
    const rotated = gated({ decisionKeys: keys })
    const outcome = await rotated.resume(pending, { ...approve('call_1'), signature: pending.signature }, {})
    expect(outcome.status).toBe('completed')
  })

  it('refuses a signed decision where no keys are configured', async () => {
    const tools = gated()
    const pending = (await tools.run(add({ a: 11, b: 1 }), {})).record as PendingToolCall
    await expect(tools.resume(pending, { ...approve('call_1'), signature: 'v1.abc' }, {})).rejects.toThrow(
      /no decisionKeys/,
    )
  })

  it('refuses a decision for another call and a decision that contradicts what already happened', async () => {
    const tools = gated()
    const pending = (await tools.run(add({ a: 11, b: 1 }), {})).record as PendingToolCall
    await expect(tools.resume(pending, approve('call_9'), {})).rejects.toThrow(/answers tool call "call_9"/)
    const done = await tools.resume(pending, approve('call_1'), {})
    const reject = { type: 'reject' as const, toolCallId: 'call_1', by: 'person' as const, reason: 'No.' }
    await expect(tools.resume(done.record, reject, {})).rejects.toThrow(ConflictError)
    const replay = await tools.resume(done.record, approve('call_1'), {})
    expect(replay).toMatchObject({ status: 'completed', replayed: true, output: 12 })
  })

  it('replays a failed record with a typed error carrying the original code', async () => {
    const tools = gated()
    const failed = await tools.run(add({ a: 'x', b: 1 }), {})
    const replay = await tools.resume(failed.record, approve('call_1'), {})
    expect(replay.status === 'failed' && ToolCallFailedError.isInstance(replay.error)).toBe(true)
    expect(replay.status === 'failed' && (replay.error as ToolCallFailedError).details).toMatchObject({
      phase: 'protocol',
      errorCode: 'invalid-input',
    })
  })

  it('fails a resumed call whose tool is no longer registered', async () => {
    const pending = (await gated().run(add({ a: 11, b: 1 }), {})).record as PendingToolCall
    const empty = ToolLifecycleRegistry.create([])
    const outcome = await empty.resume(pending, approve('call_1'), {})
    expect(outcome.status === 'failed' && outcome.phase).toBe('select')
  })

  it('unwraps outcomes into values and typed errors', async () => {
    const tools = gated()
    expect(unwrapToolOutcome(await tools.run(add(), {}))).toBe(3)
    try {
      unwrapToolOutcome(await tools.run(add({ a: 11, b: 1 }), {}))
      expect.unreachable()
    } catch (error) {
      expect(ApprovalRequiredError.isInstance(error) && error.details.pending?.status).toBe('pending')
    }
    const pending = (await tools.run(add({ a: 11, b: 1 }, 'call_2'), {})).record as PendingToolCall
    const rejected = await tools.resume(
      pending,
      { type: 'reject', toolCallId: 'call_2', by: 'person', reason: 'No.', instruction: 'Ask again.' },
      {},
    )
    expect(() => unwrapToolOutcome(rejected)).toThrow(ToolRejectedError)
    const failed = await tools.run(add({ a: 'x', b: 1 }, 'call_3'), {})
    expect(() => unwrapToolOutcome(failed)).toThrow(InvalidInputError)
    expect(() => unwrapToolOutcome(null as never)).toThrow(InvalidInputError)
  })
})

describe('journal', () => {
  function counting() {
    let runs = 0
    const tool = toolReturning('count', async () => {
      runs++
      await new Promise((resolve) => setTimeout(resolve, 1))
      return runs
    })
    return { tools: ToolLifecycleRegistry.create([defineToolLifecycle(tool)]), runs: () => runs }
  }
  const call = (toolCallId = 'c1', input: unknown = { n: 1 }) => ({ toolCallId, toolId: 'count', input })

  it('answers a repeated tool-call id from the journal, and runs concurrent duplicates once', async () => {
    const { tools, runs } = counting()
    const journal = new ToolCallJournal()
    const [a, b] = await Promise.all([tools.run(call(), {}, { journal }), tools.run(call(), {}, { journal })])
    expect(runs()).toBe(1)
    expect(a.invocationId).toBe(b.invocationId)
    expect([a.replayed, b.replayed]).toEqual([false, true])
    const later = await tools.run(call(), {}, { journal })
    expect(later).toMatchObject({ status: 'completed', replayed: true, output: 1 })
    expect(runs()).toBe(1)
    await expect(tools.run(call('c1', { n: 2 }), {}, { journal })).rejects.toThrow(ConflictError)
    expect(journal.size).toBe(1)
  })

  it('survives JSON: a restored journal replays settled calls without running them', async () => {
    const { tools, runs } = counting()
    const journal = new ToolCallJournal()
    await tools.run(call(), {}, { journal })
    const restored = new ToolCallJournal(JSON.parse(JSON.stringify(journal)))
    const outcome = await tools.run(call(), {}, { journal: restored })
    expect(outcome.replayed).toBe(true)
    expect(runs()).toBe(1)
  })

  it('keeps a pending call pending, records its settlement, and resumes concurrent duplicates once', async () => {
    let runs = 0
    const tools = ToolLifecycleRegistry.create([
      defineToolLifecycle(
        toolReturning('pay', () => {
          runs++
          return 'paid'
        }),
        {
          authorize() {
            throw new ApprovalRequiredError('Payments need a person.')
          },
        },
      ),
    ])
    const journal = new ToolCallJournal()
    const request = { toolCallId: 'p1', toolId: 'pay', input: {} }
    const pending = await tools.run(request, {}, { journal })
    expect(journal.pending()).toHaveLength(1)
    const again = await tools.run(request, {}, { journal })
    expect(again).toMatchObject({ status: 'pending', replayed: true })
    const decision = approve('p1')
    const [first, second] = await Promise.all([
      tools.resume(pending.record, decision, {}, { journal }),
      tools.resume(pending.record, decision, {}, { journal }),
    ])
    expect(runs).toBe(1)
    expect([first.status, second.status]).toEqual(['completed', 'completed'])
    expect(journal.records()).toHaveLength(1)
    const third = await tools.resume(pending.record, decision, {}, { journal })
    expect(third.replayed).toBe(true)
    expect(runs).toBe(1)
  })

  it('refuses states that disagree', () => {
    const base = {
      toolCallId: 'c',
      invocationId: 'i1',
      toolId: 't',
      input: {},
      message: { role: 'tool', toolCallId: 'c', content: '1', isError: false },
    } as const
    const journal = new ToolCallJournal([{ ...base, status: 'completed', output: 1 }])
    expect(() => journal.record({ ...base, status: 'completed', output: 2 })).toThrow(ConflictError)
    expect(() => journal.record({ ...base, invocationId: 'i2', status: 'completed' })).toThrow(
      /already recorded under invocation "i1"/,
    )
    expect(() => new ToolCallJournal([{ status: 'done' } as never])).toThrow(/states\[0\]\.status/)
    expect(() => new ToolCallJournal(5 as never)).toThrow(InvalidInputError)
  })
})

describe('diagnostics', () => {
  it('makes each pass one span with its phases as events inside, also for parallel calls', async () => {
    const sink = new MemoryDiagnosticSink()
    const tools = ToolLifecycleRegistry.create([defineToolLifecycle(addTool)])
    const context = createOperationContext({ diagnostics: sink.sink })
    await Promise.all([tools.run(add(), context), tools.run(add(undefined, 'call_2'), context)])
    const starts = sink.ofKind('tool-call-start')
    const ends = sink.ofKind('tool-call-end')
    expect(starts).toHaveLength(2)
    expect(ends).toHaveLength(2)
    for (const start of starts) {
      const spanId = start.spanId
      expect(ends.filter((end) => end.spanId === spanId)).toHaveLength(1)
      const inside = sink.events.filter((event) => event.parentSpanId === spanId)
      expect(inside.filter((e) => e.kind === 'phase-enter').map((e) => e.data.phase)).toEqual([
        'select',
        'protocol',
        'inspect',
        'authorize',
        'execute',
        'complete',
        'render',
        'finalize',
      ])
      // The execution is a span inside the pass; core's invocation events are inside it.
      const execution = inside.filter((e) => e.kind === 'tool-execution-start')
      expect(execution).toHaveLength(1)
      const executionId = execution[0]!.spanId
      expect(
        sink.events.filter((e) => e.kind === 'tool-execution-end' && e.spanId === executionId),
      ).toHaveLength(1)
      const ran = sink.events.filter((event) => event.parentSpanId === executionId)
      expect(ran.map((e) => e.kind)).toContain('tool-invocation-finish')
    }
    expect(new Set(starts.map((s) => s.spanId)).size).toBe(2)
  })

  it('ends the span with the outcome of the call', async () => {
    const sink = new MemoryDiagnosticSink()
    const hang = toolReturning('hang', () => new Promise(() => {}))
    const tools = ToolLifecycleRegistry.create([defineToolLifecycle(addTool), defineToolLifecycle(hang)])
    const context = createOperationContext({ diagnostics: sink.sink })
    await tools.run(add(), context)
    await tools.run(add({ a: 'x', b: 1 }, 'c2'), context)
    await tools.run({ toolCallId: 'c3', toolId: 'hang', input: {}, timeoutMs: 5 }, context)
    expect(sink.ofKind('tool-call-end').map((e) => [e.data.outcome, e.data.status])).toEqual([
      ['ok', 'completed'],
      ['error', 'failed'],
      ['timeout', 'failed'],
    ])
  })
})
