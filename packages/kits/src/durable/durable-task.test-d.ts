import type { OperationContext } from '@agent-core/core'
import { describe, expectTypeOf, it } from 'vitest'
import { type DurableStepContext, defineDurableTask } from './durable-task.js'
import { createMemoryDurableStore } from './memory-store.js'
import type { CheckpointV2 } from './store.js'

interface Job {
  readonly id: string
  readonly done: boolean
}
const isJob = (value: unknown): value is Job => typeof value === 'object' && value !== null

describe('defineDurableTask types', () => {
  it('infers the state from isState and the App from the context', () => {
    const task = defineDurableTask<Job, { user: string }>({
      id: 'job',
      revision: '1',
      isState: isJob,
      steps: [
        {
          id: 'finish',
          replayPolicy: 'safe',
          run: (state, context) => {
            expectTypeOf(state).toEqualTypeOf<Job>()
            expectTypeOf(context).toEqualTypeOf<DurableStepContext<{ user: string }, Job>>()
            expectTypeOf(context.checkpoint).parameter(0).toEqualTypeOf<Job>()
            expectTypeOf(context.resuming).toBeBoolean()
            expectTypeOf(context.app.user).toBeString()
            expectTypeOf(context.maxModelCalls).toEqualTypeOf<number | undefined>()
            return { ...state, done: true }
          },
        },
      ],
      authorize: (checkpoint, context) => {
        expectTypeOf(checkpoint).toEqualTypeOf<Readonly<CheckpointV2<Job>>>()
        expectTypeOf(context).toEqualTypeOf<OperationContext<{ user: string }>>()
      },
    })
    const store = createMemoryDurableStore()
    expectTypeOf(task.run({ taskId: 't', store, input: { id: '1', done: false } })).toEqualTypeOf<
      Promise<Job>
    >()
    expectTypeOf(task.inspect({ taskId: 't', store })).toEqualTypeOf<Promise<CheckpointV2<Job> | undefined>>()
  })

  it('rejects a step that returns another type and an unknown replay policy', () => {
    defineDurableTask({
      id: 'bad',
      revision: '1',
      isState: isJob,
      // @ts-expect-error: a step must return the state
      steps: [{ id: 'x', replayPolicy: 'safe', run: () => 42 }],
    })
    defineDurableTask({
      id: 'bad',
      revision: '1',
      isState: isJob,
      // @ts-expect-error: only 'safe' and 'reconcile'
      steps: [{ id: 'x', replayPolicy: 'always', run: (state: Job) => state }],
    })
    // @ts-expect-error: the input must be a state
    defineDurableTask({ id: 'j', revision: '1', isState: isJob, steps: [] }).run({ taskId: 't', input: 5 })
  })
})
