import type { DurableStep } from '../durable-task.js'
import type { MemoryDurableStore } from '../memory-store.js'
import type { CheckpointV2 } from '../store.js'

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
  return record && { ...record }
}

/** A promise and its resolver. */
export function gate(): { readonly promise: Promise<void>; open(): void } {
  let open!: () => void
  const promise = new Promise<void>((resolve) => {
    open = resolve
  })
  return { promise, open }
}
