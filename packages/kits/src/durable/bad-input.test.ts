import { AgentCoreError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { deepGarbage } from '../testing/garbage.js'
import { createMemoryDurableStore, type DurableStore, defineDurableTask } from './index.js'
import { createPostgresDurableStore } from './postgres/index.js'
import { createSqliteDurableStore } from './sqlite/index.js'

/** A thenable that settles at once, so no call under test can hang on it. */
const settlingThenable = { then: (resolve: (value: unknown) => void) => resolve(true) }

/** Anything a caller could pass by mistake, including NaN, sparse arrays, thenables and odd objects. */
const garbage: fc.Arbitrary<unknown> = deepGarbage(
  [
    0,
    Number.MAX_SAFE_INTEGER,
    settlingThenable,
    () => settlingThenable,
    () => Number.NaN,
    new AbortController().signal,
  ],
  fc.sparseArray(fc.anything(), { maxLength: 4 }),
)

/** The valid value, or garbage in its place. */
function maybe<T>(valid: T): fc.Arbitrary<unknown> {
  // Mostly valid, so that calls get past the first check and reach the deeper ones.
  return fc.oneof({ arbitrary: fc.constant(valid), weight: 3 }, { arbitrary: garbage, weight: 1 })
}

/** Calls `run`; a throw or rejection must be an agent-core error. */
async function expectTypedOrSuccess(run: () => unknown): Promise<void> {
  try {
    await run()
  } catch (error) {
    if (!AgentCoreError.isInstance(error)) {
      throw new Error(`expected an AgentCoreError, got ${String(error)}`, { cause: error })
    }
    expect(AgentCoreError.isInstance(error)).toBe(true)
  }
}

// biome-ignore lint/suspicious/noExplicitAny: garbage is passed through the public API on purpose
type Loose = any

/** A state guard that accepts any object, and steps that pass the state on unchanged. */
const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null
const passOn = { id: 'pass', replayPolicy: 'safe' as const, run: (state: object) => state }

const definition = fc.record({
  id: maybe('fuzz'),
  revision: maybe('1'),
  steps: fc.oneof(
    maybe([passOn]),
    fc.array(
      fc.record({ id: maybe('s'), replayPolicy: maybe('safe'), run: maybe(passOn.run), reconcile: garbage }),
      { maxLength: 3 },
    ),
  ),
  isState: maybe(isObject),
  authorize: maybe(undefined),
})

const options = fc.oneof(
  garbage,
  fc.record(
    {
      store: garbage,
      now: maybe(() => 1_000),
      maxAttempts: maybe(2),
      timeoutMs: maybe(1_000),
      modelBudget: fc.oneof(maybe({ maxCalls: 3, maxCallsPerAttempt: 1 }), fc.record({ maxCalls: garbage })),
    },
    { requiredKeys: [] },
  ),
)

const context = fc.oneof(
  garbage,
  fc.record(
    { signal: garbage, now: maybe(() => 1_000), diagnostics: garbage, app: garbage, attemptBudget: garbage },
    { requiredKeys: [] },
  ),
)

/** A checkpoint of task "fuzz" revision "1" with one step, each field valid or garbage. */
const storedCheckpoint = fc.oneof(
  garbage,
  fc.record(
    {
      version: maybe(2),
      definitionId: maybe('fuzz'),
      revision: maybe('1'),
      nextStepIndex: maybe(0),
      attemptCount: maybe(1),
      maxAttempts: maybe(3),
      deadlineAtMs: maybe(null),
      status: maybe('running'),
      state: maybe({ n: 1 }),
      modelBudget: fc.oneof(
        garbage,
        fc.record({ maxCalls: maybe(3), reservedCalls: maybe(1), maxCallsPerAttempt: maybe(1) }),
      ),
      extra: garbage,
    },
    { requiredKeys: ['version', 'definitionId', 'revision', 'nextStepIndex', 'status'] },
  ),
)

function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined'
  } catch {
    return '{"truncated'
  }
}

/** A store whose methods answer garbage, but always call the operation of exclusive. */
function garbageStore(loaded: unknown, saved: unknown): DurableStore {
  return {
    exclusive: (_taskId, operation) => operation({ taskId: 't', ownerId: 'o' }),
    load: async () => loaded as Loose,
    save: async () => saved as Loose,
  }
}

describe('durable kit: garbage input (property)', () => {
  it('defineDurableTask, run and inspect reject garbage only with AgentCoreError', async () => {
    await fc.assert(
      fc.asyncProperty(
        definition,
        options,
        fc.record(
          {
            taskId: maybe('t'),
            input: maybe({ n: 1 }),
            maxAttempts: maybe(2),
            timeoutMs: garbage,
            deadlineAtMs: garbage,
            modelBudget: garbage,
          },
          { requiredKeys: [] },
        ),
        context,
        async (def, opts, request, ctx) => {
          await expectTypedOrSuccess(async () => {
            const task = defineDurableTask(def as Loose, opts as Loose)
            const store = createMemoryDurableStore()
            await expectTypedOrSuccess(() =>
              task.run({ store, ...(request as object) } as Loose, ctx as Loose),
            )
            await expectTypedOrSuccess(() =>
              task.inspect({ store, ...(request as object) } as Loose, ctx as Loose),
            )
            await expectTypedOrSuccess(() => task.run(request as Loose, ctx as Loose))
          })
        },
      ),
      { numRuns: 300 },
    )
  })

  it('run and inspect refuse wrong stored checkpoint shapes and garbage store answers with AgentCoreError', async () => {
    const task = defineDurableTask({ id: 'fuzz', revision: '1', isState: isObject, steps: [passOn] })
    await fc.assert(
      fc.asyncProperty(storedCheckpoint, garbage, garbage, async (checkpoint, loaded, saved) => {
        const store = createMemoryDurableStore()
        store.records.set('t', { text: jsonText(checkpoint), version: 1 })
        await expectTypedOrSuccess(() => task.inspect({ taskId: 't', store }))
        await expectTypedOrSuccess(() => task.run({ taskId: 't', store }))
        const odd = garbageStore({ checkpoint, version: 1 }, saved)
        await expectTypedOrSuccess(() => task.run({ taskId: 't', store: odd }))
        await expectTypedOrSuccess(() => task.run({ taskId: 't', store: garbageStore(loaded, saved) }))
        await expectTypedOrSuccess(() =>
          task.run({ taskId: 'new', store: garbageStore(undefined, saved), input: {} }),
        )
      }),
      { numRuns: 300 },
    )
  })

  it('the memory, SQLite and PostgreSQL stores reject garbage only with AgentCoreError', async () => {
    const memory = createMemoryDurableStore()
    const sqlite = createSqliteDurableStore(':memory:')
    const notAString = garbage.filter((value) => typeof value !== 'string')
    try {
      await fc.assert(
        fc.asyncProperty(garbage, garbage, garbage, notAString, async (a, b, c, source) => {
          await expectTypedOrSuccess(() => createMemoryDurableStore(a as Loose))
          await expectTypedOrSuccess(() => createSqliteDurableStore(source as Loose, b as Loose))
          await expectTypedOrSuccess(() => createSqliteDurableStore(':memory:', b as Loose).close())
          await expectTypedOrSuccess(() =>
            createPostgresDurableStore({ pool: a, tableName: b, createTable: c } as Loose),
          )
          await expectTypedOrSuccess(() => createPostgresDurableStore(a as Loose))
          for (const store of [memory, sqlite]) {
            await expectTypedOrSuccess(() => store.load(a as Loose))
            await expectTypedOrSuccess(() => store.save(a as Loose, b as Loose))
            await expectTypedOrSuccess(() => store.fencing.load(a as Loose))
            await expectTypedOrSuccess(() => store.fencing.save(a as Loose, b as Loose, c as Loose))
            await expectTypedOrSuccess(() =>
              store.fencing.save('t', b as Loose, { expectedVersion: c } as Loose),
            )
            await expectTypedOrSuccess(() => store.list(a as Loose))
            await expectTypedOrSuccess(() => store.list({ status: a, limit: b, after: c } as Loose))
            await expectTypedOrSuccess(() => store.exclusive('t', async () => 1, { onWait: a } as Loose))
            await expectTypedOrSuccess(() => store.exclusive(a as Loose, async () => 1, b as Loose))
            await expectTypedOrSuccess(() => store.exclusive('t', b as Loose, c as Loose))
          }
        }),
        { numRuns: 300 },
      )
    } finally {
      sqlite.close()
    }
  })
})
