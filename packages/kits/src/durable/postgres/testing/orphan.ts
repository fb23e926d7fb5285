/**
 * Starts an embedded PostgreSQL server, prints `{ dataDir, postmasterPid }` as one JSON line and waits
 * forever. `embedded.test.ts` kills this process with SIGKILL to leave a real orphaned server and data
 * directory behind, as a crashed test run would, and checks that the next start cleans them up.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { startEmbeddedPostgres } from './embedded.js'

const server = await startEmbeddedPostgres()
const postmasterPid = Number.parseInt(
  (await readFile(join(server.dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0] ?? '',
  10,
)
process.stdout.write(`${JSON.stringify({ dataDir: server.dataDir, postmasterPid })}\n`)
setInterval(() => {}, 60_000)
