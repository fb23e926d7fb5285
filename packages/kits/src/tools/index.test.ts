import { AgentCoreError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppError, garbage, typed } from '../testing/garbage.js'
import {
  assertDecision,
  assertToolCallState,
  defineToolLifecycle,
  signToolCall,
  ToolCallJournal,
  ToolLifecycleRegistry,
  unwrapToolOutcome,
  verifyToolCallSignature,
} from './index.js'

/** Awaits `call`; whatever it throws or rejects with must be an AgentCoreError (or the App's own error). */
async function typedAsync(call: () => unknown): Promise<unknown> {
  try {
    return await call()
  } catch (error) {
    if (!(error instanceof AppError)) {
      expect(AgentCoreError.isInstance(error), `expected an AgentCoreError, got ${String(error)}`).toBe(true)
    }
    return undefined
  }
}

const echo = defineModelTool({
  id: 'echo',
  description: 'Echoes',
  inputSchema: {},
  execute: (input) => input,
})
const loose = (value: unknown) => value as never

describe('tools with garbage input', () => {
  it('only ever throws typed errors from registration and the standalone checks', () => {
    fc.assert(
      fc.property(garbage, garbage, garbage, garbage, (a, b, c, d) => {
        typed(() => ToolLifecycleRegistry.create(loose(a)))
        typed(() => ToolLifecycleRegistry.create(loose([a])))
        typed(() =>
          ToolLifecycleRegistry.create(
            loose([{ id: 'echo', tool: echo, inspect: a, receiver: b, timeoutMs: c }]),
          ),
        )
        typed(() => ToolLifecycleRegistry.create(loose([{ id: a, tool: b }])))
        typed(
          () =>
            new ToolLifecycleRegistry(loose({ templates: a, timeoutMs: b, decisionKeys: c, idPattern: d })),
        )
        typed(() => new ToolLifecycleRegistry(loose(a)))
        typed(() => defineToolLifecycle(loose(a), loose(b)))
        typed(() => defineToolLifecycle(echo, loose(b)))
        typed(() => assertDecision(a))
        typed(() => assertDecision({ type: 'reject', toolCallId: a, by: b, reason: c, instruction: d }))
        typed(() => assertToolCallState(a))
        typed(() =>
          assertToolCallState({
            status: 'pending',
            toolCallId: a,
            invocationId: 'i',
            toolId: 't',
            input: b,
            waitingFor: 'approval',
            reason: c,
          }),
        )
        typed(() => unwrapToolOutcome(loose(a)))
        typed(() => new ToolCallJournal(loose(a)))
        const journal = new ToolCallJournal()
        typed(() => journal.record(loose(a)))
        typed(() => journal.get(loose(a)))
        typed(() => journal.find(loose(a)))
      }),
      { numRuns: 400 },
    )
  })

  it('resolves to an outcome, or rejects with a typed error, whatever the request, hooks or tool do', async () => {
    await fc.assert(
      fc.asyncProperty(garbage, garbage, garbage, garbage, async (a, b, c, d) => {
        const tool = defineModelTool({
          id: 'any',
          description: 'Returns garbage',
          inputSchema: {},
          execute: () => a,
        })
        const tools = ToolLifecycleRegistry.create([
          {
            id: 'any',
            tool,
            inspect: () => b as undefined,
            authorize: () => c as undefined,
            template: () => d as undefined,
            finalize: () => a as undefined,
          },
        ])
        const outcome = await typedAsync(() =>
          tools.run({ toolCallId: 'c', toolId: 'any', input: {}, timeoutMs: 20 }, {}),
        )
        expect(outcome === undefined || typeof (outcome as { status?: unknown }).status === 'string').toBe(
          true,
        )
        await typedAsync(() => tools.run(loose(a), loose(b), loose(c)))
        await typedAsync(() =>
          tools.run(
            { toolCallId: 'c', toolId: 'any', input: a, arguments: b, runId: c, timeoutMs: d } as never,
            {},
          ),
        )
        await typedAsync(() => tools.resume(loose(a), loose(b), loose(c), loose(d)))
        await typedAsync(() => signToolCall(loose(a), loose(b)))
        await typedAsync(() => verifyToolCallSignature(loose(a), b, loose(c)))
        await typedAsync(() =>
          verifyToolCallSignature(
            { toolCallId: 'c', invocationId: 'i', toolId: 't', input: null },
            a,
            loose([b]),
          ),
        )
      }),
      { numRuns: 150 },
    )
  })
})
