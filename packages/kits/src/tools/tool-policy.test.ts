import { InvalidDefinitionError, InvalidInputError, UnknownIdError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  ApprovalRequiredError,
  assertToolPolicy,
  defineToolLifecycle,
  isToolPermitted,
  type ToolCallOutcome,
  ToolLifecycleRegistry,
  type ToolPolicy,
} from './index.js'

const ran: string[] = []
const tool = (id: string) =>
  defineModelTool({
    id,
    description: id,
    inputSchema: {},
    execute: () => {
      ran.push(id)
      return `${id} ran`
    },
  })
const registry = (toolPolicy?: ToolPolicy) =>
  ToolLifecycleRegistry.create(
    ['search', 'read', 'shell'].map((id) => ({ id, tool: tool(id) })),
    toolPolicy === undefined ? {} : { toolPolicy },
  )

/** What a caller (the model) can see of an outcome: status, phase and text. */
const seen = (outcome: ToolCallOutcome) => ({
  status: outcome.status,
  phase: outcome.status === 'failed' ? outcome.record.phase : undefined,
  content:
    outcome.status === 'pending'
      ? undefined
      : outcome.message.content.replaceAll(/\b(shell|nope)\b/g, '<name>'),
})

describe('tool policy', () => {
  it('deny wins, an empty allow means all that is not denied', () => {
    expect(isToolPermitted('a', { allow: ['a'], deny: ['a'] })).toBe(false)
    expect(isToolPermitted('a', { allow: [] })).toBe(true)
    expect(isToolPermitted('a', {})).toBe(true)
    expect(isToolPermitted('b', { allow: ['a'] })).toBe(false)
    expect(isToolPermitted('a', { deny: ['b'] }, { allow: ['a'] }, undefined)).toBe(true)
    expect(isToolPermitted('a', { deny: [] }, { deny: ['a'] })).toBe(false)
  })

  it('property: matches the reference set model', () => {
    const name = fc.constantFrom('a', 'b', 'c', 'd')
    const policy = fc.record({
      allow: fc.option(fc.array(name), { nil: undefined }),
      deny: fc.option(fc.array(name), { nil: undefined }),
    })
    fc.assert(
      fc.property(name, fc.array(policy, { maxLength: 3 }), (id, policies) => {
        const expected = policies.every(
          (p) => !(p.deny ?? []).includes(id) && ((p.allow ?? []).length === 0 || p.allow!.includes(id)),
        )
        expect(isToolPermitted(id, ...policies)).toBe(expected)
      }),
    )
  })

  it('a denied name gets exactly the answer of an unknown one, which names only permitted tools', async () => {
    ran.length = 0
    const tools = registry({ deny: ['shell'] })
    const denied = await tools.run({ toolCallId: 'c1', toolId: 'shell', input: {} }, {})
    const unknown = await tools.run({ toolCallId: 'c1', toolId: 'nope', input: {} }, {})
    expect(seen(denied)).toEqual(seen(unknown))
    expect(seen(denied)).toEqual({
      status: 'failed',
      phase: 'select',
      content:
        'The call to <name> failed: No tool "<name>" is available. The tools available are: "search", "read".',
    })
    if (denied.status !== 'failed' || unknown.status !== 'failed') throw new Error('expected failures')
    expect(UnknownIdError.isInstance(denied.error)).toBe(true)
    expect(denied.record.error).toEqual({
      ...unknown.record.error,
      message: unknown.record.error.message.replace('nope', 'shell'),
    })
    expect(ran).toEqual([])
    expect(tools.permittedIds()).toEqual(['search', 'read'])
  })

  it('is checked before any hook of the tool, and a run policy narrows the registry one', async () => {
    const inspected: string[] = []
    const tools = ToolLifecycleRegistry.create(
      [
        defineToolLifecycle(tool('search'), { inspect: (call) => void inspected.push(call.toolId) }),
        defineToolLifecycle(tool('shell'), { authorize: () => void inspected.push('authorize shell') }),
      ],
      { toolPolicy: { allow: ['search', 'shell'] } },
    )
    const outcome = await tools.run(
      { toolCallId: 'c', toolId: 'shell', input: {} },
      {},
      { toolPolicy: { deny: ['shell'] } },
    )
    expect(outcome.status).toBe('failed')
    // `inspect` is a global check that runs for every call that was selected: never for a hidden tool.
    expect(inspected).toEqual([])
    expect(tools.permittedIds({ deny: ['shell'] })).toEqual(['search'])
    expect((await tools.run({ toolCallId: 'd', toolId: 'shell', input: {} }, {})).status).toBe('completed')
  })

  it('hides a denied tool on resume too (the policy changed since the call was saved)', async () => {
    const tools = ToolLifecycleRegistry.create([
      defineToolLifecycle(tool('shell'), {
        authorize() {
          throw new ApprovalRequiredError('Shell needs a person.')
        },
      }),
    ])
    const first = await tools.run({ toolCallId: 'c', toolId: 'shell', input: {} }, {})
    if (first.status !== 'pending') throw new Error('expected pending')
    const stored = JSON.parse(JSON.stringify(first.record))
    const resumed = await tools.resume(
      stored,
      { type: 'approve', toolCallId: 'c', by: 'person' },
      {},
      { toolPolicy: { deny: ['shell'] } },
    )
    expect(resumed.status === 'failed' && resumed.record.phase).toBe('select')
    expect(resumed.status === 'failed' && resumed.message.content).toMatch(
      /No tool "shell" is available\. The tools available are: \(none\)/,
    )
  })

  it('refuses malformed policies with typed errors', async () => {
    for (const bad of [null, [], 'deny', { allow: 'a' }, { deny: [''] }, { deny: [3] }, { block: ['a'] }])
      expect(() => assertToolPolicy(bad, 'p')).toThrow(InvalidInputError)
    expect(() => registry({ allow: 'search' } as never)).toThrow(InvalidDefinitionError)
    expect(() => registry().permittedIds({ deny: [1] } as never)).toThrow(InvalidInputError)
    await expect(
      registry().run({ toolCallId: 'c', toolId: 'search', input: {} }, {}, {
        toolPolicy: { allow: {} },
      } as never),
    ).rejects.toThrow(/options\.toolPolicy\.allow/)
    expect(assertToolPolicy({ allow: ['a'] })).toEqual({ allow: ['a'] })
  })
})
