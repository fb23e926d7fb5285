import { assertNonEmptyString, type DiagnosticEvent, InvalidStateError, refuseField } from '@agent-core/core'
import type { DurableStep } from '../../durable-task.js'
import type { MemoryDurableStore } from '../../memory-store.js'
import type { CheckpointV2, DurableStore } from '../../store.js'

/** A state that records which steps ran, in order. */
export interface Trail {
  readonly trail: readonly string[]
}

/** The `isState` of {@link Trail}. */
export function isTrail(value: unknown): value is Trail {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as Trail).trail) &&
    (value as Trail).trail.every((item) => typeof item === 'string')
  )
}

/** A step that appends its id to the trail; `onRun` sees each call. */
export function trailStep(
  id: string,
  replayPolicy: 'safe' | 'reconcile' = 'safe',
  onRun?: () => void,
): DurableStep<Trail> {
  return {
    id,
    replayPolicy,
    run: (state) => {
      onRun?.()
      return { trail: [...state.trail, id] }
    },
  }
}

/** The stored checkpoint of a memory store record, parsed. */
export function storedCheckpoint<State = unknown>(
  store: MemoryDurableStore,
  taskId: string,
): CheckpointV2<State> {
  const record = store.records.get(taskId)
  if (record === undefined) throw new Error(`no record for ${taskId}`)
  return JSON.parse(record.text) as CheckpointV2<State>
}

/** The raw record (text and version) of a memory store task, copied. */
export function recordOf(
  store: MemoryDurableStore,
  taskId: string,
): { text: string; version: number } | undefined {
  const record = store.records.get(taskId)
  return record && { text: record.text, version: record.version }
}

/** A promise and its resolver. */
export function gate(): { readonly promise: Promise<void>; open(): void } {
  let open!: () => void
  const promise = new Promise<void>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

/**
 * A store written exactly to the contract's words, as an App would: `exclusive(taskId, operation)` (a
 * promise chain per task), `load(taskId)` and `save(taskId, checkpoint)` over a Map of JSON text. No
 * fencing, no lease object, no signal. `rows` is exposed so tests can look at or corrupt records.
 */
export function contractStore(): DurableStore & { readonly rows: Map<string, string> } {
  const rows = new Map<string, string>()
  const tails = new Map<string, Promise<unknown>>()
  return {
    rows,
    exclusive<T>(taskId: string, operation: () => Promise<T>): Promise<T> {
      assertNonEmptyString(taskId, 'taskId')
      const run = (tails.get(taskId) ?? Promise.resolve()).then(() => operation())
      tails.set(
        taskId,
        run.catch(() => undefined),
      )
      return run
    },
    async load(taskId: string): Promise<unknown> {
      assertNonEmptyString(taskId, 'taskId')
      const text = rows.get(taskId)
      if (text === undefined) return undefined
      try {
        return JSON.parse(text)
      } catch (error) {
        throw new InvalidStateError(`The record of task "${taskId}" is not JSON.`, { cause: error })
      }
    },
    async save(taskId: string, checkpoint: CheckpointV2): Promise<void> {
      assertNonEmptyString(taskId, 'taskId')
      let text: string
      try {
        text = JSON.stringify(checkpoint)
      } catch (error) {
        refuseField('input', 'checkpoint', `of task "${taskId}" is not JSON data`, checkpoint, {
          cause: error,
        })
      }
      rows.set(taskId, text)
    },
  }
}

/**
 * The span problems in a list of diagnostic events: every span id must have exactly one `<name>-start`
 * and, after it, exactly one `<name>-end` with an outcome. Returns the problems (empty when all paired).
 */
export function spanProblems(events: readonly DiagnosticEvent[]): string[] {
  const problems: string[] = []
  const spans = new Map<string, { name: string; starts: number; ends: number; outcome?: unknown }>()
  for (const event of events) {
    if (event.spanId === undefined) continue
    const start = event.kind.endsWith('-start')
    const end = event.kind.endsWith('-end')
    if (!start && !end) continue
    const name = event.kind.slice(0, event.kind.lastIndexOf('-'))
    const span = spans.get(event.spanId) ?? { name, starts: 0, ends: 0 }
    spans.set(event.spanId, span)
    if (start) span.starts += 1
    else {
      if (span.starts === 0) problems.push(`${name} ${event.spanId} ended before it started`)
      span.ends += 1
      span.outcome = event.data.outcome
    }
  }
  for (const [id, span] of spans) {
    if (span.starts !== 1 || span.ends !== 1)
      problems.push(`${span.name} ${id}: ${span.starts} start(s), ${span.ends} end(s)`)
    else if (!['ok', 'error', 'aborted', 'timeout'].includes(String(span.outcome)))
      problems.push(`${span.name} ${id} ended with outcome ${String(span.outcome)}`)
  }
  return problems
}
