import { type DurableStep, defineDurableTask } from '@agent-core/kits/durable'
import { assert } from './assert.js'
import type { ConformanceSuite } from './conformance.js'
import { yieldTurns } from './support.js'

interface Trail {
  readonly trail: readonly string[]
}

const isTrail = (value: unknown): value is Trail =>
  typeof value === 'object' &&
  value !== null &&
  Array.isArray((value as Trail).trail) &&
  (value as Trail).trail.every((item) => typeof item === 'string')

/** A step that appends its id; `before` runs first (to count runs or fail). */
function step(id: string, before: () => void | Promise<void> = () => {}): DurableStep<Trail> {
  return {
    id,
    replayPolicy: 'safe',
    run: async (state) => {
      await before()
      return { trail: [...state.trail, id] }
    },
  }
}

/** Real durable tasks through the store: what the task runner needs from it. */
export function registerRunnerTests(suite: ConformanceSuite): void {
  suite.test('runs a task to completion, then returns it without running a step again', async ({ store }) => {
    const runs: string[] = []
    const task = defineDurableTask({
      id: 'conformance-complete',
      revision: '1',
      isState: isTrail,
      steps: ['a', 'b', 'c'].map((id) => step(id, () => void runs.push(id))),
    })
    assert.deepEqual(await task.run({ taskId: 'complete', store, input: { trail: [] } }), {
      trail: ['a', 'b', 'c'],
    })
    assert.deepEqual(await task.run({ taskId: 'complete', store }), { trail: ['a', 'b', 'c'] })
    assert.deepEqual(runs, ['a', 'b', 'c'])
    const checkpoint = await task.inspect({ taskId: 'complete', store })
    assert.equal(checkpoint?.status, 'completed')
    assert.equal(checkpoint?.nextStepIndex, 3)
  })

  suite.test('resumes after a failed step without repeating the saved ones', async ({ store }) => {
    const runs: string[] = []
    let fail = true
    const task = defineDurableTask({
      id: 'conformance-resume',
      revision: '1',
      isState: isTrail,
      steps: [
        step('a', () => void runs.push('a')),
        step('b', () => {
          runs.push('b')
          if (fail) throw new Error('b failed')
        }),
      ],
    })
    await assert.rejects(task.run({ taskId: 'resume', store, input: { trail: [] } }), /b failed/)
    fail = false
    assert.deepEqual(await task.run({ taskId: 'resume', store }), { trail: ['a', 'b'] })
    assert.deepEqual(runs, ['a', 'b', 'b'])
    assert.equal((await task.inspect({ taskId: 'resume', store }))?.attemptCount, 2)
  })

  suite.test('re-enters a step at its last progress save', async ({ store }) => {
    const processed: string[] = []
    const resumed: boolean[] = []
    let failAfter = 2
    const task = defineDurableTask({
      id: 'conformance-progress',
      revision: '1',
      isState: isTrail,
      steps: [
        {
          id: 'items',
          replayPolicy: 'safe',
          run: async (state, context) => {
            resumed.push(context.resuming)
            let current = state
            for (const item of ['x', 'y', 'z', 'w'].filter((i) => !state.trail.includes(i))) {
              if (failAfter-- === 0) throw new Error('interrupted')
              processed.push(item)
              current = { trail: [...current.trail, item] }
              await context.checkpoint(current)
            }
            return current
          },
        },
      ],
    })
    await assert.rejects(task.run({ taskId: 'progress', store, input: { trail: [] } }), /interrupted/)
    failAfter = Number.POSITIVE_INFINITY
    assert.deepEqual(await task.run({ taskId: 'progress', store }), { trail: ['x', 'y', 'z', 'w'] })
    assert.deepEqual(processed, ['x', 'y', 'z', 'w'])
    assert.deepEqual(resumed, [false, true])
  })

  suite.test('two runs of one task at once, through two peers, run every step once', async (harness) => {
    const peer = await suite.peer(harness)
    const runs: string[] = []
    const task = defineDurableTask({
      id: 'conformance-race',
      revision: '1',
      isState: isTrail,
      steps: ['a', 'b', 'c'].map((id) =>
        step(id, async () => {
          runs.push(id)
          await yieldTurns(1)
        }),
      ),
    })
    const results = await Promise.all([
      task.run({ taskId: 'race', store: harness.store, input: { trail: [] } }),
      task.run({ taskId: 'race', store: peer, input: { trail: [] } }),
    ])
    assert.deepEqual(results, [{ trail: ['a', 'b', 'c'] }, { trail: ['a', 'b', 'c'] }])
    assert.deepEqual(runs, ['a', 'b', 'c'])
  })
}
