/**
 * 200 sandboxes in a row leak no memory: measured in a child process with --expose-gc, after a warm-up, on
 * the host's JS heap, on the engine's WebAssembly memory (every run's QuickJS runtime is disposed; a handle
 * left alive would make the engine abort and its worker be dropped) and on the engines kept.
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const CHILD = fileURLToPath(new URL('./testing/leak-child.ts', import.meta.url))

describe('memory', () => {
  it('200 sandboxes in a row (completed, failed, stopped at a limit) leave the heap and the engine where they were', async () => {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--expose-gc', '--conditions=@agent-core/source', '--import', 'tsx', CHILD],
        { maxBuffer: 1024 * 1024 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      )
    })
    const { before, after, failed } = JSON.parse(stdout) as {
      before: { heapUsed: number; wasm: number; engines: number }
      after: { heapUsed: number; wasm: number; engines: number }
      failed: number
    }
    expect(failed).toBe(0)
    expect(after.engines).toBeLessThanOrEqual(before.engines)
    // The engine's memory does not grow at all once warm; the JS heap stays within noise (1 MiB).
    expect(after.wasm).toBe(before.wasm)
    expect(after.heapUsed - before.heapUsed).toBeLessThan(1024 * 1024)
  }, 120_000)
})
