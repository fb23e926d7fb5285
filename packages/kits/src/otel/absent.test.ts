/**
 * `@opentelemetry/api` is an optional peer: without it, the otel subpath still loads and `loadOtelSink`
 * resolves to a sink that is off. Child processes whose module resolution cannot find the package (a
 * resolve hook answers as Node does for a package that is not installed).
 */
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const WORKER = fileURLToPath(new URL('./internal/testing/absent-worker.ts', import.meta.url))
const HOOK = fileURLToPath(new URL('./internal/testing/hide-otel-api.mjs', import.meta.url))
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))

function runWorker(mode: 'missing' | 'broken'): Promise<Record<string, unknown>> {
  // Without AGENT_CORE_DEBUG, a context given no sink delivers nowhere.
  const { AGENT_CORE_DEBUG: _debug, ...env } = process.env
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--import', HOOK, '--conditions=@agent-core/source', WORKER],
      { cwd: ROOT, env: { ...env, HIDE_OTEL_API: mode }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr}`))
        resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>)
      },
    )
  })
}

describe('without @opentelemetry/api', () => {
  it('the subpath loads and loadOtelSink gives a sink that is off: diagnostics stay disabled', async () => {
    expect(await runWorker('missing')).toEqual({
      direct: 'ERR_MODULE_NOT_FOUND',
      enabled: false,
      sink: 'undefined',
      diagnosticsEnabled: false,
      sameModel: true,
      closed: 0,
      stats: { open: 0, started: 0, ended: 0, unfinished: 0, orphanEnds: 0, ignored: 0 },
    })
  })

  it('a package that is there but fails to load is an error, not a silent "off"', async () => {
    expect(await runWorker('broken')).toEqual({ direct: 'SyntaxError', rejected: 'SyntaxError' })
  })
})
