/**
 * The span tree of a durable task resumed after a crash: a child process runs the task on a SQLite file
 * with the OpenTelemetry sink and is killed (SIGKILL) inside a step; this process resumes the task with
 * the sink over the SDK's in-memory exporter.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'
import * as otel from '@opentelemetry/api'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createOtelSink } from './index.js'
import { orderTask, type PrintedSpan } from './internal/testing/order-task.js'
import { createTracing, only, type Tracing } from './internal/testing/tracing.js'

const WORKER = fileURLToPath(new URL('./internal/testing/durable-worker.ts', import.meta.url))
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))

let tracing: Tracing
const children = new Set<ChildProcess>()
const dirs: string[] = []
beforeAll(() => {
  tracing = createTracing()
})
afterEach(async () => {
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          child.once('close', () => resolve())
          child.kill('SIGKILL')
        }),
    ),
  )
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
afterAll(() => tracing.shutdown())

/** Runs the worker until it is inside `charge`, kills it, and returns the spans it exported before. */
async function crashInsideCharge(dbPath: string, taskId: string): Promise<PrintedSpan[]> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@agent-core/source', WORKER, dbPath, taskId],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  children.add(child)
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk)
  })
  const spans: PrintedSpan[] = []
  const closed = new Promise<NodeJS.Signals | null>((resolve) => {
    child.on('close', (_code, signal) => {
      children.delete(child)
      resolve(signal)
    })
  })
  createInterface({ input: child.stdout }).on('line', (text) => {
    const line = JSON.parse(text) as { event: string; span?: PrintedSpan }
    if (line.event === 'span' && line.span) spans.push(line.span)
    if (line.event === 'in-step') child.kill('SIGKILL')
  })
  const signal = await closed
  expect(signal, stderr).toBe('SIGKILL')
  return spans
}

describe('a durable task resumed after a crash, as OpenTelemetry spans', () => {
  it('the crashed run exported only what had ended; the resumed run is a whole tree that reconciles', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-core-otel-'))
    dirs.push(dir)
    const dbPath = join(dir, 'tasks.db')
    const taskId = 'order-7'

    const crashed = await crashInsideCharge(dbPath, taskId)
    // Only the first step had ended when the process died; the task, its attempt and the charge step
    // never ended there, so they were never exported (a span is exported when it ends).
    expect(crashed.map((span) => span.name)).toEqual(['durable step reserve'])
    expect(crashed[0]?.attributes).toMatchObject({
      'agent_core.outcome': 'ok',
      'agent_core.durable.step.id': 'reserve',
      'agent_core.durable.attempt': 1,
    })

    const store = createSqliteDurableStore(dbPath, { leaseMs: 400, renewIntervalMs: 100 })
    try {
      const tracer = createOtelSink({ api: otel, tracerProvider: tracing.provider })
      const order = await orderTask(() => {
        throw new Error('charge runs only once: the resumed run reconciles it')
      }).run({ taskId, store }, { diagnostics: tracer.sink })
      expect(order.trail).toEqual(['reserve', 'charge (reconciled)', 'ship'])
      expect(tracer.stats).toMatchObject({ open: 0, unfinished: 0, orphanEnds: 0 })
    } finally {
      store.close()
    }

    const spans = tracing.spans()
    const tree = tracing.tree([
      'agent_core.durable.attempt',
      'agent_core.durable.mode',
      'agent_core.durable.resuming',
    ])
    const waited = spans.some((span) => span.name === 'durable lease-wait')
    expect(tree).toEqual([
      {
        name: 'durable task order',
        children: [
          ...(waited ? [{ name: 'durable lease-wait', children: [] }] : []),
          {
            name: 'durable attempt',
            attributes: { 'agent_core.durable.attempt': 2, 'agent_core.durable.resuming': true },
            children: [
              {
                name: 'durable step charge',
                attributes: {
                  'agent_core.durable.attempt': 2,
                  'agent_core.durable.mode': 'reconcile',
                  'agent_core.durable.resuming': true,
                },
                children: [],
              },
              {
                name: 'durable step ship',
                attributes: {
                  'agent_core.durable.attempt': 2,
                  'agent_core.durable.mode': 'run',
                  'agent_core.durable.resuming': false,
                },
                children: [],
              },
            ],
          },
        ],
      },
    ])
    const task = only(spans, 'durable task order')
    expect(task.attributes).toMatchObject({
      'agent_core.durable.task.id': taskId,
      'agent_core.durable.definition_id': 'order',
      'agent_core.durable.status': 'completed',
      'agent_core.durable.attempt_count': 2,
      'agent_core.outcome': 'ok',
    })
    // The lease of the killed worker was taken over: a span event of the task.
    const takeover = task.events.find((event) => event.name === 'lease-taken-over')
    expect(['holder-gone', 'expired']).toContain(takeover?.attributes?.['agent_core.reason'])
    // The crashed run's spans and the resumed run's share the task id, not a trace: a new process starts a
    // new trace.
    expect(crashed[0]?.traceId).not.toBe(task.spanContext().traceId)
    const saves = task.events
      .concat(...spans.map((span) => span.events))
      .filter((e) => e.name === 'checkpoint-saved')
    expect(saves.length).toBeGreaterThanOrEqual(3)
  })
})
