import { InvalidInputError } from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { createMemoryDurableStore, MemoryDurableStore } from './memory-store.js'
import { describeDurableStoreConformance } from './testing/conformance.js'

describeDurableStoreConformance('memory store', async () => {
  const store = createMemoryDurableStore()
  return {
    store,
    writeRaw: async (taskId, text) => {
      store.records.set(taskId, { text, version: (store.records.get(taskId)?.version ?? 0) + 1 })
    },
    close: async () => {},
  }
})

describe('memory store options', () => {
  it('refuses a leaseMs that is not a positive safe integer', () => {
    for (const leaseMs of [0, -1, 1.5, Number.NaN, '10', 2 ** 60]) {
      expect(() => new MemoryDurableStore({ leaseMs: leaseMs as number })).toThrow(InvalidInputError)
    }
    expect(() => new MemoryDurableStore(null as never)).toThrow(InvalidInputError)
  })

  it('lets a waiter take over a lease that lapsed while its holder was paused', async () => {
    const store = createMemoryDurableStore({ leaseMs: 20 })
    let releaseHolder!: () => void
    const holderPaused = new Promise<void>((resolve) => {
      releaseHolder = resolve
    })
    let holderEntered!: () => void
    const entered = new Promise<void>((resolve) => {
      holderEntered = resolve
    })
    const holder = store.exclusive('t', async (lease) => {
      holderEntered()
      await holderPaused
      return lease.ownerId
    })
    await entered
    const takeover = await store.exclusive('t', async (lease) => lease.ownerId)
    releaseHolder()
    const holderId = await holder
    expect(takeover).not.toBe(holderId)
    expect(await store.exclusive('t', async () => 'free')).toBe('free')
  })
})
