import assert from 'node:assert/strict'
import { AttemptBudget, createOperationContext, InvalidInputError, Registry } from '@agent-core/core'

const tools = Registry.create([{ id: 'search' }, { id: 'label' }], { kind: 'tool' })
assert.deepEqual(tools.ids(), ['search', 'label'])

const budget = new AttemptBudget(1)
const context = createOperationContext({ app: { user: 'u1' }, attemptBudget: budget })
context.attemptBudget?.take()
assert.equal(budget.remaining, 0)
assert.throws(
  () => createOperationContext({ now: 5 as never }),
  (error) => InvalidInputError.isInstance(error),
)
