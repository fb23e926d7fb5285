/**
 * The SQLite store of knowledge publications (better-sqlite3): the embedded default for Apps and
 * examples, next to `@agent-core/kits/durable/sqlite`. One database keeps documents and their
 * revisions, the passages of the published revisions and their vectors (float32 BLOBs keyed by passage
 * hash and by the embedder's identity and dimensions), so a published corpus comes back after a restart
 * without re-embedding, and a new embedding model re-embeds instead of mixing vectors. The App opens the
 * better-sqlite3 Database (the optional peer that `durable/sqlite` also runs on) and passes it in; this
 * subpath loads no third-party package itself.
 *
 * @example
 * ```ts
 * import { mkdtempSync } from 'node:fs'
 * import { tmpdir } from 'node:os'
 * import { join } from 'node:path'
 * import Database from 'better-sqlite3'
 * import { Knowledge } from '@agent-core/kits/knowledge'
 * import { createSqliteKnowledgeStore } from '@agent-core/kits/knowledge/sqlite'
 *
 * const file = join(mkdtempSync(join(tmpdir(), 'knowledge-')), 'knowledge.db')
 * const database = new Database(file)
 * database.pragma('journal_mode = WAL')
 * const docs = Knowledge.defineKnowledgePublication({ id: 'docs', store: createSqliteKnowledgeStore(database) })
 * await docs.publish({ materials: [{ id: 'a.md', text: '# A\n\nHello.\n' }] })
 * database.close()
 * // A later process opens the same file and finds the corpus.
 * const reopened = new Database(file)
 * const again = Knowledge.defineKnowledgePublication({ id: 'docs', store: createSqliteKnowledgeStore(reopened) })
 * console.log((await again.list()).length) // 1
 * reopened.close()
 * ```
 *
 * @module
 */
export {
  createSqliteKnowledgeStore,
  type SqliteKnowledgeDatabase,
  SqliteKnowledgeStore,
  type SqliteKnowledgeStoreOptions,
} from './sqlite-knowledge-store.js'
