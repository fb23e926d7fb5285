/**
 * One publishing process of the multi-process test (`processes.test.ts`). Run as
 * `node --import tsx --conditions=@agent-core/source publisher.ts` with the environment:
 *
 * - `DATABASE_URL`: the shared database; `TABLE_PREFIX`: the knowledge tables;
 * - `WRITER_ID`: this writer's number; `DOCUMENTS`: how many documents of its own it publishes.
 *
 * Each writer publishes its own documents (`w<id>/doc-<n>.md`, three passages each, small batches so
 * that they take many transactions) through a publication that shares the publication id with every
 * other writer, then publishes its own version of the shared document `shared.md`, retrying on
 * `ConflictError` (another writer got there first: the publication reloads and tries again). Prints one
 * JSON summary line.
 */
import { ConflictError } from '@agent-core/core'
import { Knowledge } from '@agent-core/kits/knowledge'
import pg from 'pg'
import { PostgresKnowledgeStore } from '../index.js'

const env = (name: string): string => {
  const value = process.env[name]
  if (!value) throw new Error(`publisher: ${name} is not set`)
  return value
}

const writer = env('WRITER_ID')
const documents = Number(env('DOCUMENTS'))
const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 2 })
pool.on('error', () => {})
const store = new PostgresKnowledgeStore(pool, { tablePrefix: env('TABLE_PREFIX') })
const embedder = {
  identity: 'letters',
  dimensions: 4,
  async embed(texts: readonly string[]) {
    return texts.map((text) => [
      text.length % 7,
      text.charCodeAt(0) % 5,
      1,
      (text.charCodeAt(text.length - 1) % 3) + 0.5,
    ])
  },
}
const publication = Knowledge.defineKnowledgePublication({
  id: 'shared',
  store,
  embedder,
  passagesPerBatch: 4,
})
const text = (n: number) =>
  `# Doc ${n} of writer ${writer}\n\nFirst part ${writer}-${n}.\n\n## Two\n\nSecond part ${writer}-${n}.\n\n## Three\n\nThird part ${writer}-${n}.\n`
let conflicts = 0
try {
  const materials = Array.from({ length: documents }, (_, n) => ({
    id: `w${writer}/doc-${n}.md`,
    text: text(n),
  }))
  for (let i = 0; i < materials.length; i += 5) {
    for (;;) {
      try {
        await publication.publish({ materials: materials.slice(i, i + 5) })
        break
      } catch (error) {
        if (!ConflictError.isInstance(error)) throw error
        conflicts++
      }
    }
  }
  let sharedRevision = 0
  for (;;) {
    try {
      const receipt = await publication.publish({
        materials: [{ id: 'shared.md', text: `Shared, as writer ${writer} wrote it.` }],
      })
      sharedRevision = receipt.published[0]?.revision ?? 0
      break
    } catch (error) {
      if (!ConflictError.isInstance(error)) throw error
      conflicts++
    }
  }
  process.stdout.write(`${JSON.stringify({ writer, conflicts, sharedRevision })}\n`)
} finally {
  await pool.end()
}
