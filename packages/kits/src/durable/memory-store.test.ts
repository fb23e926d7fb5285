import { ConflictError, InvalidInputError, InvalidStateError } from '@agent-core/core'
import { describeDurableStoreConformance } from '@agent-core/kits/durable/testing'
import { describe, expect, it } from 'vitest'
import { contractStore } from './internal/testing/fixtures.js'
import { createMemoryDurableStore, MemoryDurableStore } from './memory-store.js'

describeDurableStoreConformance({
  describe,
  it,
  name: 'memory store',
  open: async () => {
    const store = createMemoryDurableStore()
    return {
      store,
      writeRaw: async (taskId, text) => {
        store.records.set(taskId, { text, version: (store.records.get(taskId)?.version ?? 0) + 1 })
      },
    }
  },
  fencing: true,
  reportsLeaseWaits: true,
  listing: true,
  honoursSignal: true,
})

describeDurableStoreConformance({
  describe,
  it,
  name: 'contract-shaped App store (exclusive, load and save only)',
  open: async () => {
    const store = contractStore()
    return { store, writeRaw: async (taskId, text) => void store.rows.set(taskId, text) }
  },
})

describe('memory store options', () => {
  it('refuses a leaseMs that is not a positive safe integer', () => {
    for (const leaseMs of [0, -1, 1.5, Number.NaN, '10', 2 ** 60]) {
      expect(() => new MemoryDurableStore({ leaseMs: leaseMs as number })).toThrow(InvalidInputError)
    }
    expect(() => new MemoryDurableStore(null as never)).toThrow(InvalidInputError)
  })

  it('refuses a stored fencing version of 0 or below as a corrupt record', async () => {
    const store = createMemoryDurableStore()
    for (const version of [0, -1, 1.5]) {
      store.records.set('t', { text: '{"version":2}', version })
      await expect(store.load('t')).rejects.toSatisfy(
        (error) => InvalidStateError.isInstance(error) && error.details.reason === 'corrupt',
      )
      await expect(store.fencing.load('t')).rejects.toSatisfy((error) => InvalidStateError.isInstance(error))
    }
  })

  it('aborts the lease signal when the lease lapses, and reports the takeover', async () => {
    const store = createMemoryDurableStore({ leaseMs: 20 })
    let holderSignal: AbortSignal | undefined
    let releaseHolder!: () => void
    const paused = new Promise<void>((resolve) => {
      releaseHolder = resolve
    })
    let entered!: () => void
    const inside = new Promise<void>((resolve) => {
      entered = resolve
    })
    const holder = store.exclusive('t', async (lease) => {
      holderSignal = lease.signal
      entered()
      await paused
    })
    await inside
    const takeover = await store.exclusive('t', async (lease) => lease.takenOver)
    expect(holderSignal?.aborted).toBe(true)
    expect(ConflictError.isInstance(holderSignal?.reason)).toBe(true)
    expect((holderSignal?.reason as ConflictError | undefined)?.details.reason).toBe('lease-lost')
    expect(takeover).toMatchObject({
      reason: 'expired',
      previous: { ownerId: expect.stringMatching(/^memory:/) },
    })
    releaseHolder()
    await holder
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
