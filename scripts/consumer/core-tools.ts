import assert from 'node:assert/strict'
import { createOperationContext, InvalidInputError } from '@agent-core/core'
import { defineModelTool, invokeModelTool } from '@agent-core/core/tools'

const add = defineModelTool<{ a: number; b: number }, number>({
  id: 'add',
  description: 'Adds two numbers',
  inputSchema: {
    type: 'object',
    required: ['a', 'b'],
    properties: { a: { type: 'number' }, b: { type: 'number' } },
  },
  execute: ({ a, b }) => a + b,
})
const { output } = await invokeModelTool(add, { a: 1, b: 2 }, createOperationContext())
assert.equal(output, 3)
await assert.rejects(invokeModelTool(add, { a: 'one' }, createOperationContext()), (error) =>
  InvalidInputError.isInstance(error),
)
