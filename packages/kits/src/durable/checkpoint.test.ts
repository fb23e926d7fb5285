import { AgentCoreError, InvalidStateError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { defineDurableTask } from './durable-task.js'
import { isTrail, recordOf, trailStep } from './internal/testing/fixtures.js'
import { createMemoryDurableStore } from './memory-store.js'

function task(revision = '2', withReconcile = true) {
  return defineDurableTask({
    id: 'orders',
    revision,
    isState: isTrail,
    steps: [
      trailStep('a'),
      trailStep('b'),
      { ...trailStep('c', 'reconcile'), ...(withReconcile ? { reconcile: (s) => s } : {}) },
    ],
  })
}

const valid = {
  version: 2,
  definitionId: 'orders',
  revision: '2',
  nextStepIndex: 1,
  attemptCount: 1,
  maxAttempts: 3,
  deadlineAtMs: null,
  status: 'running',
  state: { trail: ['a'] },
}

/** Stores raw text as the task's checkpoint, runs the task and expects a refusal with nothing written. */
async function expectRefused(text: string, reason: string | undefined) {
  const store = createMemoryDurableStore()
  store.records.set('t', { text, version: 5 })
  let ran = 0
  const counting = defineDurableTask({
    id: 'orders',
    revision: '2',
    isState: isTrail,
    steps: ['a', 'b', 'c'].map((id) => trailStep(id, 'safe', () => void ran++)),
  })
  const error = await counting.run({ taskId: 't', store, input: { trail: [] } }).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(InvalidStateError.isInstance(error), String(error)).toBe(true)
  if (reason !== undefined) expect((error as InvalidStateError).details.reason).toBe(reason)
  expect(recordOf(store, 't')).toEqual({ text, version: 5 })
  expect(ran).toBe(0)
}

describe('stored checkpoint refusals', () => {
  it('accepts the valid baseline', async () => {
    const store = createMemoryDurableStore()
    store.records.set('t', { text: JSON.stringify(valid), version: 5 })
    expect(await task().run({ taskId: 't', store })).toEqual({ trail: ['a', 'b', 'c'] })
  })

  it('refuses a checkpoint written by revision 1 under revision 2', async () => {
    await expectRefused(JSON.stringify({ ...valid, revision: '1' }), 'revision-mismatch')
  })

  it('refuses truncated JSON as corrupt instead of starting a fresh task', async () => {
    await expectRefused(JSON.stringify(valid).slice(0, 40), 'corrupt')
  })

  it.each([
    ['an unknown status', { status: 'paused' }, 'unknown-status'],
    ['an index past the end', { nextStepIndex: 4 }, 'bad-index'],
    ['a running index at the end', { nextStepIndex: 3 }, 'bad-index'],
    ['a completed index before the end', { status: 'completed', nextStepIndex: 2 }, 'bad-index'],
    ['a negative index', { nextStepIndex: -1 }, 'bad-index'],
    ['format version 1', { version: 1 }, 'unknown-version'],
    ['format version 3', { version: 3 }, 'unknown-version'],
    ['a string format version', { version: '2' }, 'unknown-version'],
    ['another definition', { definitionId: 'invoices' }, 'foreign-definition'],
    ['a negative attempt count', { attemptCount: -1 }, 'bad-count'],
    ['a fractional attempt count', { attemptCount: 0.5 }, 'bad-count'],
    ['more attempts than allowed', { attemptCount: 4 }, 'bad-count'],
    ['zero allowed attempts', { maxAttempts: 0, attemptCount: 0 }, 'bad-count'],
    ['a negative deadline', { deadlineAtMs: -5 }, 'bad-deadline'],
    ['a string deadline', { deadlineAtMs: '2030' }, 'bad-deadline'],
    ['a state isState rejects', { state: { trail: 'a' } }, 'bad-state'],
    ['an unknown field', { owner: 'x' }, 'unknown-field'],
    [
      'a negative model budget',
      { modelBudget: { maxCalls: -1, reservedCalls: 0, maxCallsPerAttempt: 1 } },
      'bad-model-budget',
    ],
    [
      'an over-reserved model budget',
      { modelBudget: { maxCalls: 2, reservedCalls: 3, maxCallsPerAttempt: 1 } },
      'bad-model-budget',
    ],
  ])('refuses %s', async (_name, patch, reason) => {
    await expectRefused(JSON.stringify({ ...valid, ...patch }), reason)
  })

  it('refuses a checkpoint with no state', async () => {
    const { state: _state, ...withoutState } = valid
    await expectRefused(JSON.stringify(withoutState), 'bad-state')
  })

  it.each([['null'], ['[]'], ['"checkpoint"'], ['42']])('refuses %s as not an object', async (text) => {
    await expectRefused(text, 'not-an-object')
  })

  it('refuses to reconcile a step without reconcile, with nothing written', async () => {
    const store = createMemoryDurableStore()
    const text = JSON.stringify({ ...valid, nextStepIndex: 2, state: { trail: ['a', 'b'] } })
    store.records.set('t', { text, version: 5 })
    await expect(task('2', false).run({ taskId: 't', store })).rejects.toSatisfy(
      (error) => InvalidStateError.isInstance(error) && error.details.reason === 'reconcile-missing',
    )
    expect(recordOf(store, 't')).toEqual({ text, version: 5 })
  })

  it('never writes on refusal and only refuses with InvalidStateError, whatever a field holds', async () => {
    const fields = Object.keys(valid)
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...fields), fc.jsonValue(), async (field, value) => {
        const store = createMemoryDurableStore()
        const text = JSON.stringify({ ...valid, [field]: value })
        store.records.set('t', { text, version: 5 })
        const outcome = await task()
          .run({ taskId: 't', store })
          .then(
            () => 'ran',
            (error: unknown) => error,
          )
        if (outcome === 'ran') return
        expect(AgentCoreError.isInstance(outcome) && outcome.code, String(outcome)).toBe('invalid-state')
        expect(recordOf(store, 't')).toEqual({ text, version: 5 })
      }),
      { seed: 20261129, numRuns: 300 },
    )
  })
})
