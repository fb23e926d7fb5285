import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import * as durable from './index.js'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const DURABLE = new URL('./index.ts', import.meta.url).href
const SQLITE = new URL('./sqlite/index.ts', import.meta.url).href
const TESTING = new URL('./testing/index.ts', import.meta.url).href

/** Imports `modules` in a fresh process and reports whether better-sqlite3 was loaded. */
function loadsBetterSqlite(modules: string[]): boolean {
  const script = `
    import { createRequire } from 'node:module'
    ${modules.map((m, i) => `const m${i} = await import(${JSON.stringify(m)})`).join('\n')}
    const cache = createRequire(import.meta.url).cache
    process.stdout.write(JSON.stringify(Object.keys(cache).some((path) => path.includes('better-sqlite3'))))
  `
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=@agent-core/source', '--input-type=module', '-e', script],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  )
  expect(child.status, child.stderr).toBe(0)
  return JSON.parse(child.stdout) as boolean
}

describe('@agent-core/kits/durable subpath', () => {
  it('exports the runner, the memory store and the store error', () => {
    expect(Object.keys(durable).sort()).toEqual(
      [
        'CHECKPOINT_FORMAT_VERSION',
        'DurableStoreError',
        'MemoryDurableStore',
        'createMemoryDurableStore',
        'defineDurableTask',
      ].sort(),
    )
    expect(durable.CHECKPOINT_FORMAT_VERSION).toBe(2)
  })

  it('does not load better-sqlite3, nor does the testing subpath; the sqlite subpath does', () => {
    expect(loadsBetterSqlite([DURABLE])).toBe(false)
    expect(loadsBetterSqlite([TESTING])).toBe(false)
    expect(loadsBetterSqlite([DURABLE, SQLITE])).toBe(true)
  })
})
