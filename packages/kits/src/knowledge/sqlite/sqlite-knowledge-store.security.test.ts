/**
 * A damaged SQLite knowledge file is refused or answers as the sound one (issue 32): of 51 damaged files
 * a black-box pass found 3 that loaded without an error and answered differently. This property test
 * damages copies of a published file (random bytes anywhere, and bytes inside the passages' text, the
 * vectors, the keys and the checksums) and asserts that every load either refuses with
 * `KnowledgeStoreError` or answers exactly as the undamaged file does.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Knowledge, KnowledgeStoreError } from '../index.js'
import { countingEmbedder } from '../testing/store-conformance.js'
import { toBlob } from './float32-blob.js'
import { createSqliteKnowledgeStore } from './index.js'

const folder = mkdtempSync(join(tmpdir(), 'knowledge-damage-'))
const original = join(folder, 'sound.db')
afterAll(() => rmSync(folder, { recursive: true, force: true }))

const MATERIALS = [
  {
    id: 'otters.md',
    text: '# Otters\n\nSea otters hold hands while they sleep so that they do not drift apart.\n\n## Food\n\nThey eat urchins, crabs and clams, cracking shells with stones.',
  },
  {
    id: 'bread.md',
    text: '# Bread\n\nA loaf bakes for forty minutes at two hundred degrees.\n\n## Crust\n\nSteam in the first minutes gives a crisp crust.',
  },
  { id: 'tides.md', text: '# Tides\n\nThe moon pulls the sea; high tide comes about every twelve hours.' },
  {
    id: 'kelp.md',
    text: '# Kelp\n\nKelp forests shelter otters and fish. Otters wrap themselves in kelp to stay in place.',
  },
]
const QUERIES = ['otters sleep', 'bread crust', 'high tide moon', 'kelp forests', 'crabs']

/** Everything a reader of the publication can observe: documents, passages and ranked hits. */
async function answers(file: string): Promise<string> {
  const database = new Database(file)
  try {
    const publication = Knowledge.defineKnowledgePublication({
      id: 'docs',
      store: createSqliteKnowledgeStore(database),
      embedder: countingEmbedder(),
    })
    await publication.load()
    const documents = await publication.list()
    const hits = []
    for (const query of QUERIES) hits.push(await publication.search({ query, limit: 4 }))
    const passages = []
    for (const hit of hits.flat()) passages.push(await publication.passage(hit.id))
    return JSON.stringify({ documents, hits, passages })
  } finally {
    database.close()
  }
}

type Outcome = { refused: true } | { refused: false; same: boolean }

async function outcomeOf(file: string, sound: string): Promise<Outcome> {
  try {
    return { refused: false, same: (await answers(file)) === sound }
  } catch (error) {
    if (KnowledgeStoreError.isInstance(error)) return { refused: true }
    throw error
  }
}

let sound = ''
let bytes: Buffer
/** Offsets of the file that hold row data the answers depend on (text, vectors, keys, checksums). */
let dataOffsets: number[] = []

beforeAll(async () => {
  const database = new Database(original)
  const publication = Knowledge.defineKnowledgePublication({
    id: 'docs',
    store: createSqliteKnowledgeStore(database),
    embedder: countingEmbedder(),
  })
  await publication.publish({ materials: MATERIALS })
  const checksums = database
    .prepare(
      `SELECT checksum FROM agent_core_knowledge_passages UNION ALL SELECT checksum FROM agent_core_knowledge_embeddings
       UNION ALL SELECT checksum FROM agent_core_knowledge_documents UNION ALL SELECT digest FROM agent_core_knowledge_manifest`,
    )
    .pluck()
    .all() as string[]
  const vectors = database
    .prepare('SELECT vector FROM agent_core_knowledge_embeddings')
    .pluck()
    .all() as Buffer[]
  database.close()
  sound = await answers(original)
  bytes = readFileSync(original)
  const needles: Buffer[] = [
    ...['hold hands', 'forty minutes', 'twelve hours', 'shelter otters', 'otters.md', 'kelp.md', 'Food'].map(
      (text) => Buffer.from(text),
    ),
    ...checksums.map((text) => Buffer.from(text)),
    ...vectors,
  ]
  for (const needle of needles) {
    for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1))
      for (let i = 0; i < needle.length; i++) dataOffsets.push(at + i)
  }
  dataOffsets = [...new Set(dataOffsets)]
  expect(dataOffsets.length).toBeGreaterThan(100)
})

describe('a damaged SQLite knowledge file', () => {
  let run = 0
  const damage = (edits: readonly { at: number; xor: number }[]): string => {
    const copy = Buffer.from(bytes)
    for (const { at, xor } of edits) copy[at] = (copy[at] as number) ^ xor
    const file = join(folder, `damaged-${run++}.db`)
    writeFileSync(file, copy)
    return file
  }
  const tally = { refused: 0, same: 0 }

  it('is refused with KnowledgeStoreError or answers identically: bytes inside the rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ index: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }), {
          minLength: 1,
          maxLength: 3,
        }),
        async (picks) => {
          const file = damage(
            picks.map(({ index, xor }) => ({ at: dataOffsets[index % dataOffsets.length] as number, xor })),
          )
          const outcome = await outcomeOf(file, sound)
          if (outcome.refused) tally.refused += 1
          else tally.same += 1
          expect(outcome.refused || outcome.same).toBe(true)
          rmSync(file, { force: true })
        },
      ),
      { numRuns: 60 },
    )
    // Damage inside the rows is caught: nearly all of it is refused.
    expect(tally.refused).toBeGreaterThan(30)
  }, 120_000)

  it('is refused with KnowledgeStoreError or answers identically: bytes anywhere in the file', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            at: fc.integer({ min: 0, max: bytes.length - 1 }),
            xor: fc.integer({ min: 1, max: 255 }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (edits) => {
          const file = damage(edits)
          const outcome = await outcomeOf(file, sound)
          expect(outcome.refused || outcome.same).toBe(true)
          rmSync(file, { force: true })
        },
      ),
      { numRuns: 60 },
    )
  }, 120_000)

  it('is refused when a row is edited, added or removed through SQL (the checksums, not SQLite, catch it)', async () => {
    const edits = [
      `UPDATE agent_core_knowledge_passages SET text = replace(text, 'forty', 'four') WHERE text LIKE '%forty%'`,
      `UPDATE agent_core_knowledge_embeddings SET vector = ? WHERE rowid = (SELECT min(rowid) FROM agent_core_knowledge_embeddings)`,
      `DELETE FROM agent_core_knowledge_passages WHERE text LIKE '%twelve hours%'`,
      `DELETE FROM agent_core_knowledge_embeddings WHERE rowid = (SELECT max(rowid) FROM agent_core_knowledge_embeddings)`,
      `UPDATE agent_core_knowledge_documents SET title = 'Forged' WHERE document_id = 'bread.md'`,
      `UPDATE agent_core_knowledge_manifest SET rows = rows + 1 WHERE part = 'passages'`,
      `INSERT INTO agent_core_knowledge_passages SELECT publication_id, document_id, number + 100, passage_id || 'x', revision, heading_path, text, start, "end", start_line, end_line, hash, checksum FROM agent_core_knowledge_passages LIMIT 1`,
    ]
    for (const [index, sql] of edits.entries()) {
      const file = join(folder, `edited-${index}.db`)
      copyFileSync(original, file)
      const database = new Database(file)
      const statement = database.prepare(sql)
      if (sql.includes('?')) statement.run(toBlob(new Float32Array([9, 9, 9])))
      else statement.run()
      database.close()
      const outcome = await outcomeOf(file, sound)
      expect(outcome, sql).toEqual({ refused: true })
    }
  })

  it('upgrades a version 1 file: its rows get checksums, and a later edit is refused', async () => {
    const file = join(folder, 'v1.db')
    copyFileSync(original, file)
    const database = new Database(file)
    for (const table of ['documents', 'passages', 'embeddings'])
      database.exec(`UPDATE agent_core_knowledge_${table} SET checksum = NULL`)
    database.exec(
      'DROP TABLE agent_core_knowledge_manifest; DELETE FROM agent_core_knowledge_schema; INSERT INTO agent_core_knowledge_schema VALUES (1)',
    )
    database.close()
    expect(await answers(file)).toBe(sound)
    const reopened = new Database(file)
    expect(reopened.prepare('SELECT max(version) FROM agent_core_knowledge_schema').pluck().get()).toBe(2)
    expect(
      reopened
        .prepare(`UPDATE agent_core_knowledge_passages SET text = 'forged' WHERE text LIKE '%forty%'`)
        .run().changes,
    ).toBe(1)
    reopened.close()
    expect(await outcomeOf(file, sound)).toEqual({ refused: true })
  })
})
