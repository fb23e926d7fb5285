import { createOperationContext, InvalidInputError } from '@agent-core/core'
import { createScriptedModel as fromLoop } from '@agent-core/kits/loop'
import { createScriptedModel } from '@agent-core/kits/loop/testing'
import { describe, expect, it } from 'vitest'

describe('the deprecated createScriptedModel of the loop entry', () => {
  it('is the testing subpath function: it checks its script synchronously and answers', async () => {
    expect(fromLoop).toBe(createScriptedModel)
    expect(() => fromLoop([{ text: 1 } as never])).toThrow(InvalidInputError)
    const model = fromLoop([{ text: 'Hi.' }])
    const reply = await model.generate(
      { messages: [{ role: 'user', content: 'Hello' }] },
      createOperationContext(),
    )
    expect(reply.message.content).toBe('Hi.')
    model.assertDone()
  })
})
