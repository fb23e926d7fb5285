/** Garbage in, typed errors out: every public entry of the sandbox kit (property). */
import { AgentCoreError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppError, deepGarbage } from '../testing/garbage.js'
import {
  assertSandboxRecording,
  defineCodeTool,
  defineDescribeTool,
  describeTools,
  executeSandbox,
  MemoryRecordingStore,
  preloadSandbox,
  replaySandbox,
} from './index.js'

const garbage: fc.Arbitrary<unknown> = deepGarbage(
  [
    { tools: [] },
    { version: 1, id: 'x', code: '', seed: 1, now: 0, calls: [{}] },
    { cpuTimeMs: -1 },
    { limits: { memoryBytes: 1 } },
    { recording: {} },
    { decisions: { host_1: { type: 'approve' } } },
    [{ id: 'x', tool: {} }],
  ],
  fc.sparseArray(fc.anything(), { maxLength: 4 }),
)

// biome-ignore lint/suspicious/noExplicitAny: garbage goes through the public API on purpose
type Loose = any

async function typedOrSuccess(run: () => unknown): Promise<void> {
  try {
    await run()
  } catch (error) {
    if (error instanceof AppError) return
    if (!AgentCoreError.isInstance(error)) {
      throw new Error(`expected an AgentCoreError, got ${String(error)}`, { cause: error })
    }
    expect(AgentCoreError.isInstance(error)).toBe(true)
  }
}

const echo = defineModelTool({
  id: 'echo',
  description: 'echo',
  inputSchema: {},
  execute: (input: unknown) => input,
})

describe('sandbox kit: garbage input (property)', () => {
  it('refuses a limit named after an Object.prototype member as an unknown limit (seed 13826630)', () => {
    for (const key of ['toString', 'constructor', 'hasOwnProperty', '__proto__']) {
      const limits = JSON.parse(`{"${key}": 1}`)
      expect(() => defineCodeTool({ tools: [echo], limits })).toThrow(`limits.${key} is not a sandbox limit`)
    }
  })

  it('definitions and checks reject garbage only with AgentCoreError', async () => {
    await fc.assert(
      fc.asyncProperty(garbage, garbage, async (a, b) => {
        await typedOrSuccess(() => defineCodeTool(a as Loose))
        await typedOrSuccess(() => defineCodeTool({ tools: [echo], limits: a as Loose }))
        await typedOrSuccess(() => defineCodeTool({ tools: a as Loose, recordings: b as Loose }))
        await typedOrSuccess(() => describeTools(a as Loose))
        await typedOrSuccess(() => defineDescribeTool(a as Loose))
        await typedOrSuccess(() => assertSandboxRecording(a))
        await typedOrSuccess(() => new MemoryRecordingStore(a as Loose))
        await typedOrSuccess(() => new MemoryRecordingStore().set('inv_1', a as Loose))
        await typedOrSuccess(() => new MemoryRecordingStore().set(b as Loose, a as Loose))
      }),
      { numRuns: 300 },
    )
  })

  it('executeSandbox, replaySandbox and preloadSandbox reject garbage arguments only with AgentCoreError', async () => {
    await fc.assert(
      fc.asyncProperty(garbage, garbage, garbage, async (code, tools, options) => {
        await typedOrSuccess(() => executeSandbox(code as Loose, tools as Loose, options as Loose))
        await typedOrSuccess(() => executeSandbox('return 1', [echo], options as Loose))
        await typedOrSuccess(() => replaySandbox(code as Loose, tools as Loose, options as Loose))
        await typedOrSuccess(() => preloadSandbox(options as Loose))
      }),
      { numRuns: 150 },
    )
  })

  it('any code becomes a result the model can read, never a rejection', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 60 }),
          fc.constantFrom('return {', '}}}', 'await echo(', 'return echo(1n)', '`${'),
        ),
        async (code) => {
          const result = await executeSandbox(code, [echo], { limits: { cpuTimeMs: 50 } })
          expect(['completed', 'failed']).toContain(result.status)
          if (result.status === 'failed') expect(typeof result.error.message).toBe('string')
        },
      ),
      { numRuns: 60 },
    )
  })
})
