import { InvalidInputError } from '@agent-core/core'
import type { DurableStatus, DurableStore, DurableTaskListing } from '@agent-core/kits/durable'
import { assert } from './assert.js'
import type { ConformanceSuite } from './conformance.js'
import { rawWriter } from './contract-tests.js'
import { rejectsWith, sampleCheckpoint } from './support.js'

function listerOf(store: DurableStore): DurableTaskListing {
  const list = (store as Partial<DurableTaskListing>).list
  assert.equal(typeof list, 'function', 'the store has no list method')
  return store as DurableStore & DurableTaskListing
}

async function saveAs(store: DurableStore, taskId: string, status: DurableStatus, definitionId: string) {
  const nextStepIndex = status === 'completed' ? 1 : 0
  await store.save(taskId, sampleCheckpoint(taskId, { status, definitionId, nextStepIndex }))
}

/** `list`: tasks by status, so an App can find what a crash left unfinished. */
export function registerListingTests(suite: ConformanceSuite): void {
  suite.test('lists tasks by status and definition, ordered by task id', async ({ store }) => {
    const lister = listerOf(store)
    await saveAs(store, 'b', 'running', 'first')
    await saveAs(store, 'a', 'completed', 'first')
    await saveAs(store, 'c', 'failed', 'second')
    await saveAs(store, 'd', 'expired', 'second')
    await saveAs(store, 'e', 'running', 'second')
    const running = await lister.list({ status: 'running' })
    assert.deepEqual(
      running.map(({ taskId, status, definitionId }) => ({ taskId, status, definitionId })),
      [
        { taskId: 'b', status: 'running', definitionId: 'first' },
        { taskId: 'e', status: 'running', definitionId: 'second' },
      ],
    )
    for (const task of running) {
      assert.ok(
        Number.isSafeInteger(task.updatedAtMs) && task.updatedAtMs > 0,
        `updatedAtMs ${task.updatedAtMs}`,
      )
    }
    const ids = async (request?: Parameters<DurableTaskListing['list']>[0]) =>
      (await lister.list(request)).map((task) => task.taskId)
    assert.deepEqual(await ids({ status: ['failed', 'expired'] }), ['c', 'd'])
    assert.deepEqual(await ids(), ['a', 'b', 'c', 'd', 'e'])
    assert.deepEqual(await ids({ status: 'running', definitionId: 'second' }), ['e'])
    assert.deepEqual(await ids({ definitionId: 'first' }), ['a', 'b'])
  })

  suite.test('pages with after and limit', async ({ store }) => {
    const lister = listerOf(store)
    const all = Array.from({ length: 12 }, (_, i) => `t-${String(i).padStart(2, '0')}`)
    for (const taskId of [...all].reverse()) await saveAs(store, taskId, 'running', 'paged')
    const pages: string[][] = []
    let after: string | undefined
    for (;;) {
      const page = await lister.list({
        status: 'running',
        limit: 5,
        ...(after === undefined ? {} : { after }),
      })
      if (page.length === 0) break
      pages.push(page.map((task) => task.taskId))
      after = page.at(-1)?.taskId
    }
    assert.deepEqual(pages, [all.slice(0, 5), all.slice(5, 10), all.slice(10)])
  })

  suite.test('follows a task from running to completed', async ({ store }) => {
    const lister = listerOf(store)
    await saveAs(store, 'moving', 'running', 'moves')
    assert.deepEqual(
      (await lister.list({ status: 'running' })).map((task) => task.taskId),
      ['moving'],
    )
    await saveAs(store, 'moving', 'completed', 'moves')
    assert.deepEqual(await lister.list({ status: 'running' }), [])
    assert.deepEqual(
      (await lister.list({ status: 'completed' })).map((task) => task.taskId),
      ['moving'],
    )
  })

  if (suite.options.rawRecords !== false) {
    suite.test('never lists a record that is not a readable checkpoint', async (harness) => {
      const lister = listerOf(harness.store)
      const writeRaw = rawWriter(harness)
      await writeRaw('truncated', '{"version":2,"status":"running"')
      await writeRaw('no-definition', '{"status":"running"}')
      await writeRaw('odd-status', '{"status":"paused","definitionId":"x"}')
      await saveAs(harness.store, 'fine', 'running', 'x')
      assert.deepEqual(
        (await lister.list()).map((task) => task.taskId),
        ['fine'],
      )
    })
  }

  suite.test('refuses bad requests with InvalidInputError', async ({ store }) => {
    const lister = listerOf(store)
    const bad: unknown[] = [
      null,
      'running',
      { status: 'paused' },
      { status: ['running', 7] },
      { limit: 0 },
      { limit: 10_001 },
      { limit: 1.5 },
      { limit: Number.NaN },
      { after: 5 },
      { definitionId: '' },
    ]
    for (const request of bad) {
      await rejectsWith(
        () => lister.list(request as never),
        InvalidInputError,
        `list(${JSON.stringify(request)})`,
      )
    }
  })
}
