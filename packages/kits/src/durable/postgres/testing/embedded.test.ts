import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { removeEmbeddedLeftovers, startEmbeddedPostgres } from './embedded.js'

const repositoryRoot = fileURLToPath(new URL('../../../../../../', import.meta.url))
const orphanScript = fileURLToPath(new URL('./orphan.ts', import.meta.url))

let orphanProcess: ChildProcess | undefined

afterAll(async () => {
  // If the test failed before killing it, do not leave orphan.ts or its server running.
  const child = orphanProcess
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL')
    while (isAlive(child.pid)) await new Promise((resolve) => setTimeout(resolve, 20))
  }
  await removeEmbeddedLeftovers()
})

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Starts orphan.ts and resolves with what it printed once its server is up. */
function startOrphan(): Promise<{ pid: number; dataDir: string; postmasterPid: number }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@agent-core/source', orphanScript],
    {
      cwd: repositoryRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let stdout = ''
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8')
      if (!stdout.includes('\n')) return
      const printed = JSON.parse(stdout) as { dataDir: string; postmasterPid: number }
      resolve({ pid: child.pid as number, ...printed })
    })
    child.on('close', (code) => reject(new Error(`orphan.ts exited with ${code}: ${stderr}`)))
  })
}

describe('embedded PostgreSQL harness', () => {
  it('stops the server and deletes its data directory, idempotently', async () => {
    const server = await startEmbeddedPostgres({ database: 'harness_check' })
    const pool = server.createPool({ max: 1 })
    const result = await pool.query<{ db: string }>('SELECT current_database() AS db')
    expect(result.rows[0]?.db).toBe('harness_check')
    await server.stop()
    await server.stop()
    expect(existsSync(dirname(server.dataDir))).toBe(false)
    expect(() => server.createPool()).toThrow(/stopped/)
  })

  it('cleans up the server and files a killed run left behind', async () => {
    const orphan = await startOrphan()
    process.kill(orphan.pid, 'SIGKILL')
    while (isAlive(orphan.pid)) await new Promise((resolve) => setTimeout(resolve, 20))
    // The killed process's server keeps running on its own, as after a crashed test run.
    expect(isAlive(orphan.postmasterPid)).toBe(true)
    expect(existsSync(orphan.dataDir)).toBe(true)

    const server = await startEmbeddedPostgres()
    try {
      expect(isAlive(orphan.postmasterPid)).toBe(false)
      expect(existsSync(dirname(orphan.dataDir))).toBe(false)
    } finally {
      await server.stop()
    }
  }, 60_000)
})
