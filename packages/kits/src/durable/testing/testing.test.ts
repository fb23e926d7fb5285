import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { contractStore } from '../internal/testing/fixtures.js'
import { createMemoryDurableStore } from '../memory-store.js'
import { type DurableStoreConformanceOptions, describeDurableStoreConformance } from './index.js'

const ROOT = fileURLToPath(new URL('../../../../../', import.meta.url))
const NODE_TEST_FILE = fileURLToPath(new URL('../internal/testing/node-test-conformance.ts', import.meta.url))

/** The names of the tests the suite registers for `options`, through a runner that only records them. */
function registeredTests(options: Omit<DurableStoreConformanceOptions, 'describe' | 'it'>): string[] {
  const names: string[] = []
  const path: string[] = []
  describeDurableStoreConformance({
    ...options,
    describe: (name, body) => {
      path.push(name)
      body()
      path.pop()
    },
    it: (name) => void names.push([...path, name].join(' > ')),
  })
  return names
}

describe('@agent-core/kits/durable/testing', () => {
  it('registers the contract tests for every store and the tests of each declared capability', () => {
    const open = async () => ({ store: createMemoryDurableStore() })
    const contract = registeredTests({ name: 'plain', open })
    const full = registeredTests({
      name: 'plain',
      open,
      fencing: true,
      reportsLeaseWaits: true,
      listing: true,
      honoursSignal: true,
    })
    expect(contract.length).toBeGreaterThan(10)
    for (const name of contract) expect(full).toContain(name)
    for (const section of [
      'version fencing',
      'lease-wait reports',
      'listing tasks by status',
      'honours its signal',
    ]) {
      expect(contract.some((name) => name.includes(section))).toBe(false)
      expect(full.some((name) => name.includes(section))).toBe(true)
    }
    const withoutRaw = registeredTests({ name: 'plain', open, rawRecords: false })
    expect(withoutRaw.length).toBeLessThan(contract.length)
  })

  it('runs under node:test as well as vitest: every test of both suites passes', () => {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--conditions=@agent-core/source', '--test', '--test-reporter=tap', NODE_TEST_FILE],
      { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
    )
    expect(child.status, `${child.stdout}\n${child.stderr}`).toBe(0)
    const count = (label: string) => Number(new RegExp(`^# ${label} (\\d+)$`, 'm').exec(child.stdout)?.[1])
    const open = async () => ({ store: contractStore() })
    const expected =
      registeredTests({
        name: 'memory',
        open,
        fencing: true,
        reportsLeaseWaits: true,
        listing: true,
        honoursSignal: true,
      }).length + registeredTests({ name: 'contract', open }).length
    expect(count('pass')).toBe(expected)
    expect(count('fail')).toBe(0)
    expect(count('cancelled')).toBe(0)
  }, 120_000)

  it('imports no test framework, only node:assert', () => {
    const folder = fileURLToPath(new URL('./', import.meta.url))
    for (const file of readdirSync(folder).filter(
      (name) => name.endsWith('.ts') && !name.includes('.test'),
    )) {
      const code = readFileSync(`${folder}${file}`, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '')
      const imports = [...code.matchAll(/from '([^']+)'/g)].map((match) => match[1])
      expect(imports.length).toBeGreaterThan(0)
      for (const source of imports) {
        expect(source, `${file} imports ${source}`).toMatch(
          /^(\.\/|node:|@agent-core\/(core|kits\/durable)$)/,
        )
      }
    }
  })

  it('refuses options that are not a runner and a store opener, naming what is missing', () => {
    const open = async () => ({ store: createMemoryDurableStore() })
    const describe = (_name: string, body: () => void) => body()
    const it = () => {}
    expect(() => describeDurableStoreConformance(null as never)).toThrow(/describe, it, name, open/)
    expect(() => describeDurableStoreConformance({ describe, it, name: 'x' } as never)).toThrow(
      /options.open/,
    )
    expect(() => describeDurableStoreConformance({ describe, it: 5, name: 'x', open } as never)).toThrow(
      /options.it/,
    )
    expect(() => describeDurableStoreConformance({ describe, it, name: '', open })).toThrow(/options.name/)
  })
})
