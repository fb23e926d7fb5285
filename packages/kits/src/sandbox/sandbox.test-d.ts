import { defineModelTool, type ModelTool } from '@agent-core/core/tools'
import { createScriptedModel, defineAgent } from '@agent-core/kits/loop'
import {
  defineToolLifecycle,
  type JsonValue,
  type PendingToolCall,
  type ToolLifecycle,
  ToolLifecycleRegistry,
} from '@agent-core/kits/tools'
import { describe, expectTypeOf, it } from 'vitest'
import {
  type CodeTool,
  type CodeToolInput,
  type CodeToolOutput,
  defineCodeTool,
  describeTools,
  executeSandbox,
  type SandboxErrorInfo,
  type SandboxLimits,
  type SandboxResult,
} from './index.js'

const lookup = defineModelTool<{ orderId: string }, { total: number }, { userId: string }>({
  id: 'lookup',
  description: 'Finds an order',
  inputSchema: { type: 'object' },
  execute: () => ({ total: 1 }),
})
const refund = defineToolLifecycle(
  defineModelTool<{ amount: number }, string, { userId: string }>({
    id: 'refund',
    description: 'Refunds',
    inputSchema: { type: 'object' },
    execute: ({ amount }) => `refunded ${amount}`,
  }),
)

describe('sandbox types', () => {
  it('makes a code tool that is a core ModelTool and its own lifecycle, for any App', () => {
    const runCode = defineCodeTool({ tools: [lookup, refund] })
    expectTypeOf(runCode).toEqualTypeOf<CodeTool<{ userId: string }>>()
    expectTypeOf(runCode).toMatchTypeOf<ModelTool<CodeToolInput, CodeToolOutput, { userId: string }>>()
    expectTypeOf(runCode).toMatchTypeOf<ToolLifecycle<CodeToolInput, CodeToolOutput, { userId: string }>>()
    defineAgent<string, { userId: string }>({ model: createScriptedModel([]), tools: [runCode, lookup] })
    ToolLifecycleRegistry.create<{ userId: string }>([runCode])
    // @ts-expect-error: the tools are required
    defineCodeTool({})
    // @ts-expect-error: limits are numbers
    defineCodeTool({ tools: [], limits: { cpuTimeMs: '1s' } })
  })

  it('narrows a result by its status', async () => {
    const result = await executeSandbox('return 1', [lookup, refund], {
      limits: { cpuTimeMs: 10 } satisfies SandboxLimits,
    })
    expectTypeOf(result).toEqualTypeOf<SandboxResult>()
    if (result.status === 'completed') expectTypeOf(result.value).toEqualTypeOf<JsonValue | undefined>()
    if (result.status === 'failed') expectTypeOf(result.error).toEqualTypeOf<SandboxErrorInfo>()
    if (result.status === 'suspended')
      expectTypeOf(result.waiting).toEqualTypeOf<readonly PendingToolCall[]>()
    // @ts-expect-error: only a completed result has a value
    result.value
    expectTypeOf(describeTools([lookup])).toEqualTypeOf<string>()
  })
})
