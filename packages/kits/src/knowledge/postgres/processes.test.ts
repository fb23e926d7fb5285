/**
 * Eight processes publish into one PostgreSQL knowledge base at once (embedded PostgreSQL): no passage is
 * lost or duplicated, every document ends at the revision its writes made, the shared document that all
 * of them raced on holds exactly the passages of the last writer, and every vector a passage needs is
 * there once.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type pg from 'pg'
import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  type EmbeddedPostgresServer,
  startEmbeddedPostgres,
} from '../../durable/postgres/testing/embedded.js'
import { Knowledge } from '../index.js'
import { PostgresKnowledgeIndex, PostgresKnowledgeStore } from './index.js'

const WRITERS = 8
const DOCUMENTS = 12
const publisherFile = fileURLToPath(new URL('./testing/publisher.ts', import.meta.url))

let server: EmbeddedPostgresServer | undefined
let pool: pg.Pool

beforeAll(async () => {
  server = await startEmbeddedPostgres({ database: 'knowledge_processes' })
  pool = server.createPool({ max: 3 })
}, 120_000)

afterAll(async () => {
  await server?.stop()
})

function publisher(
  writer: number,
  connectionString: string,
): Promise<{ writer: string; conflicts: number; sharedRevision: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@agent-core/source', publisherFile],
      {
        env: {
          ...process.env,
          DATABASE_URL: connectionString,
          TABLE_PREFIX: 'kb',
          WRITER_ID: String(writer),
          DOCUMENTS: String(DOCUMENTS),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.stderr.on('data', (chunk) => (err += chunk))
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`publisher ${writer} exited with ${code}: ${err}`))
      else resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}'))
    })
  })
}

it('8 publishing processes lose and duplicate no passage', async () => {
  const store = new PostgresKnowledgeStore(pool, { tablePrefix: 'kb' })
  await store.createSchema()
  const results = await Promise.all(
    Array.from({ length: WRITERS }, (_, i) => publisher(i, server!.connectionString)),
  )
  // The shared document was published once by each writer: its revisions are 1..8, each taken once.
  expect(results.map((r) => r.sharedRevision).sort((a, b) => a - b)).toEqual(
    Array.from({ length: WRITERS }, (_, i) => i + 1),
  )
  const last = results.find((r) => r.sharedRevision === WRITERS)!
  const contents = await store.load(
    { publicationId: 'shared', space: { identity: 'letters', dimensions: 4 } },
    { signal: new AbortController().signal },
  )
  expect(contents.documents.length).toBe(WRITERS * DOCUMENTS + 1)
  const ids = contents.passages.map((p) => p.id)
  expect(new Set(ids).size).toBe(ids.length)
  for (let w = 0; w < WRITERS; w++) {
    for (let n = 0; n < DOCUMENTS; n++) {
      const id = `w${w}/doc-${n}.md`
      expect(contents.documents.find((d) => d.id === id)).toMatchObject({ revision: 1, passageCount: 3 })
      expect(ids.filter((p) => p.startsWith(`${id}@`)).sort()).toEqual([
        `${id}@1#1`,
        `${id}@1#2`,
        `${id}@1#3`,
      ])
    }
  }
  const shared = contents.passages.filter((p) => p.documentId === 'shared.md')
  expect(shared.map((p) => [p.id, p.text])).toEqual([
    [`shared.md@${WRITERS}#1`, `Shared, as writer ${last.writer} wrote it.`],
  ])
  expect(contents.passages.length).toBe(WRITERS * DOCUMENTS * 3 + 1)
  // Every passage has its vector, and no vector is left without a passage.
  expect(new Set(contents.passages.map((p) => p.hash))).toEqual(new Set(contents.vectors.keys()))
  // A reader in this process sees all of it, and a publication reloads it without embedding.
  const index = new PostgresKnowledgeIndex({ store, publicationId: 'shared' })
  expect(
    (await index.search({ query: `writer ${last.writer}`, limit: 1, mode: 'text' }))[0]?.document.documentId,
  ).toBeDefined()
  const reader = Knowledge.defineKnowledgePublication({ id: 'shared', store })
  expect((await reader.load()).passages).toBe(WRITERS * DOCUMENTS * 3 + 1)
}, 600_000)
