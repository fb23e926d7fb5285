// A plain Node ESM program (no TypeScript, no bundler) using the built @agent-core/core:
// a tool catalog on the shared Registry, JSON-Schema-checked tool calls with core-allocated invocation ids,
// a shared AttemptBudget, scoped diagnostics and typed errors you can branch on.
import {
  AttemptBudget,
  BudgetExhaustedError,
  childContext,
  createOperationContext,
  InvalidInputError,
  MemoryDiagnosticSink,
  Registry,
} from '@agent-core/core'
import { defineModelTool, invokeModelTool } from '@agent-core/core/tools'

const tools = Registry.create(
  [
    defineModelTool({
      id: 'convert_temperature',
      description: 'Converts a temperature between Celsius and Fahrenheit',
      inputSchema: {
        type: 'object',
        required: ['value', 'to'],
        additionalProperties: false,
        properties: { value: { type: 'number' }, to: { enum: ['C', 'F'] } },
      },
      outputSchema: { type: 'number' },
      execute: ({ value, to }) => (to === 'F' ? (value * 9) / 5 + 32 : ((value - 32) * 5) / 9),
    }),
    defineModelTool({
      id: 'word_count',
      description: 'Counts the words of a text',
      inputSchema: {
        type: 'object',
        required: ['text'],
        properties: { text: { type: 'string', minLength: 1 } },
      },
      execute: ({ text }) => text.trim().split(/\s+/).length,
    }),
  ],
  { kind: 'tool', idPattern: /^[a-z_]+$/ },
)

const memory = new MemoryDiagnosticSink()
const context = createOperationContext({
  app: { userId: 'demo-user' },
  attemptBudget: new AttemptBudget(3),
  diagnostics: memory.sink,
})
const scoped = childContext(context, 'quickstart')

// What a model might ask for: three good calls, one with bad arguments, one past the budget.
const requests = [
  { tool: 'convert_temperature', input: { value: 100, to: 'F' } },
  { tool: 'word_count', input: { text: 'agent-core is a kit of optional building blocks' } },
  { tool: 'convert_temperature', input: { value: 'hot', to: 'C' } },
  { tool: 'convert_temperature', input: { value: 212, to: 'C' } },
  { tool: 'word_count', input: { text: 'one too many' } },
]

console.log(`tools: ${tools.ids().join(', ')}`)
for (const { tool, input } of requests) {
  try {
    context.attemptBudget.take({ signal: context.signal, label: tool })
    const { output, invocationId } = await invokeModelTool(tools.require(tool), input, scoped)
    console.log(`  ${tool}(${JSON.stringify(input)}) = ${output}   [${invocationId.slice(0, 12)}…]`)
  } catch (error) {
    if (InvalidInputError.isInstance(error) || BudgetExhaustedError.isInstance(error)) {
      console.log(`  ${tool}: refused (${error.code}): ${error.message}`)
    } else throw error
  }
}
console.log(`attempts used: ${context.attemptBudget.used}/${context.attemptBudget.limit}`)
console.log(`diagnostics: ${memory.kinds().join(', ')} (scope ${memory.events[0]?.scope.join('/')})`)
