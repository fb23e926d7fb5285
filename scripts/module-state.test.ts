import { describe, expect, it } from 'vitest'
import { checkKits, findModuleState } from './module-state.mjs'

describe('no per-run state in module-level collections (loop, tools, sandbox)', () => {
  it('finds none in the kits', () => {
    expect(checkKits()).toEqual([])
  })

  it('refuses the side channels the seam used to have', () => {
    const text = `
      export const runHandles = new WeakMap<AbortSignal, RunHandle>()
      export const hostResults = new Map<string, HostResult>()
      export const writeAheadSignals = new WeakSet<AbortSignal>()
      export const savedBeforeRun = new Set<string>()
      const byController: WeakMap<AbortController, number> = new WeakMap()
      export function note(signal: AbortSignal, id: string) {
        hostResults.set(id, { ok: true })
        savedBeforeRun.add(id)
      }
    `
    const found = findModuleState(text, 'x.ts')
    expect(found.map((line) => line.split(' ')[1])).toEqual([
      'runHandles',
      'hostResults',
      'writeAheadSignals',
      'savedBeforeRun',
      'byController',
    ])
  })

  it('allows caches keyed by a definition object and constant tables', () => {
    const text = `
      const compiled = new WeakMap<object, Entry>()
      const specs = new WeakMap<AgentTool<unknown>, Spec>()
      const RESERVED = new Set(['break', 'case'])
      const NO_CAPS: ReadonlyMap<string, number> = new Map()
      export function get(definition: object) { compiled.set(definition, {} as Entry); return RESERVED.has('x') }
    `
    expect(findModuleState(text, 'y.ts')).toEqual([])
  })
})
