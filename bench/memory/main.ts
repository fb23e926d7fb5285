/**
 * Session appends on SQLite: appending a run to a 10,000-message session must cost what the run adds, not
 * what the session holds. Run with `pnpm bench memory`.
 *
 * One SQLite file (WAL, `synchronous = NORMAL`), two sessions of 100 and 10,000 messages. Each sample
 * appends one run (4 messages: the prompt, a tool call, its result, the answer) with a revision check, as
 * `runSession` does; samples alternate between the sessions so both see the same machine. Printed per
 * round (three rounds): the median append time on each session and their ratio (target: at most 1.5, i.e.
 * flat in the history), the cost of a 40-message run on the big session against a 4-message one (it grows
 * with the new messages), and the peer a naive store would be: the whole history as one JSON document,
 * read, extended and written back per append (a ratio that grows with the history).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChatMessage } from '@agent-core/core'
import { createSqliteSessionStore } from '@agent-core/kits/memory/sqlite'
import Database from 'better-sqlite3'

const BIG = 10_000
const SMALL = 100
const SAMPLES = Number(process.env.MEMORY_SAMPLES ?? 300)
const ROUNDS = 3
const TARGET = 1.5

function run(n: number, size = 4): ChatMessage[] {
  const messages: ChatMessage[] = [
    {
      role: 'user',
      content: `Question ${n}: what does the report say about the budget for the next quarter?`,
    },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `c${n}`, name: 'search', arguments: '{"query":"budget next quarter"}' }],
    },
    {
      role: 'tool',
      toolCallId: `c${n}`,
      content: 'The budget grows by 4% to 1.2M, mostly for hiring in support and security.',
    },
    {
      role: 'assistant',
      content: 'The budget grows by 4% next quarter, to 1.2M; most of it goes to hiring.',
    },
  ]
  return Array.from({ length: size }, (_, k) => messages[k % 4]!)
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}
const range = (values: number[], digits = 3) =>
  `${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)}`

/** The naive peer: the whole session as one JSON document, rewritten on every append. */
function naiveStore(database: Database.Database) {
  database.exec('CREATE TABLE IF NOT EXISTS naive (id TEXT PRIMARY KEY, revision INTEGER, body TEXT)')
  const get = database.prepare('SELECT revision, body FROM naive WHERE id = ?')
  const put = database.prepare('INSERT OR REPLACE INTO naive (id, revision, body) VALUES (?, ?, ?)')
  const append = database
    .transaction((id: string, messages: ChatMessage[]) => {
      const row = get.get(id) as { revision: number; body: string } | undefined
      const all = row ? (JSON.parse(row.body) as ChatMessage[]) : []
      all.push(...messages)
      put.run(id, (row?.revision ?? 0) + 1, JSON.stringify(all))
    })
    .immediate.bind(null) as unknown as (id: string, messages: ChatMessage[]) => void
  const reset = (id: string, messages: ChatMessage[]) => void put.run(id, 1, JSON.stringify(messages))
  return { append, reset }
}

const folder = mkdtempSync(join(tmpdir(), 'bench-memory-'))
try {
  const database = new Database(join(folder, 'sessions.db'))
  database.pragma('journal_mode = WAL')
  database.pragma('synchronous = NORMAL')
  const store = createSqliteSessionStore(database)
  const naive = naiveStore(database)
  const fill = (size: number) => Array.from({ length: size / 4 }, (_, n) => run(n)).flat()
  await store.append('big', { messages: fill(BIG) })
  await store.append('small', { messages: fill(SMALL) })
  const revisions = new Map([
    ['big', 1],
    ['small', 1],
  ])
  const timed = async (id: string, size = 4) => {
    const start = process.hrtime.bigint()
    const write = await store.append(id, {
      messages: run(revisions.get(id)!, size),
      expectedRevision: revisions.get(id),
    })
    const ms = Number(process.hrtime.bigint() - start) / 1e6
    revisions.set(id, write.revision)
    return ms
  }
  const timedNaive = (id: string) => {
    const start = process.hrtime.bigint()
    naive.append(id, run(0))
    return Number(process.hrtime.bigint() - start) / 1e6
  }

  console.log(`SQLite session append, one run (4 messages), median of ${SAMPLES} per round, ${ROUNDS} rounds`)
  console.log('round | small (100) ms | big (10k) ms | big/small | 40-msg run/4-msg run | naive big/small')
  const ratios: number[] = []
  const bigs: number[] = []
  const smalls: number[] = []
  const growth: number[] = []
  const naiveRatios: number[] = []
  for (let round = 1; round <= ROUNDS; round++) {
    const small: number[] = []
    const big: number[] = []
    const bigWide: number[] = []
    for (let i = 0; i < SAMPLES; i++) {
      small.push(await timed('small'))
      big.push(await timed('big'))
      if (i % 10 === 0) bigWide.push(await timed('big', 40))
    }
    const naiveSmall: number[] = []
    const naiveBig: number[] = []
    naive.reset('big', fill(BIG))
    naive.reset('small', fill(SMALL))
    for (let i = 0; i < 30; i++) {
      naiveSmall.push(timedNaive('small'))
      naiveBig.push(timedNaive('big'))
    }
    const ratio = median(big) / median(small)
    const wide = median(bigWide) / median(big)
    const naiveRatio = median(naiveBig) / median(naiveSmall)
    ratios.push(ratio)
    bigs.push(median(big))
    smalls.push(median(small))
    growth.push(wide)
    naiveRatios.push(naiveRatio)
    console.log(
      `${round}     | ${median(small).toFixed(3)}          | ${median(big).toFixed(3)}        | ${ratio.toFixed(2)}      | ${wide.toFixed(2)}                 | ${naiveRatio.toFixed(1)}`,
    )
  }
  const sessionSize = (await store.read('big')).messages.length
  console.log(
    `\nranges: small ${range(smalls)} ms, big ${range(bigs)} ms (the big session ends at ${sessionSize} messages), big/small ${range(ratios, 2)} (target <= ${TARGET}), 40-message run / 4-message run ${range(growth, 2)}, naive whole-document peer big/small ${range(naiveRatios, 1)}`,
  )
  database.close()
  if (Math.min(...ratios) > TARGET) {
    console.error(
      `appending to a ${BIG}-message session costs more than ${TARGET}x appending to a ${SMALL}-message one`,
    )
    process.exitCode = 1
  }
} finally {
  rmSync(folder, { recursive: true, force: true })
}
