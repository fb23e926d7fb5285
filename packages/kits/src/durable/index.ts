/**
 * Durable checkpointed tasks: {@link defineDurableTask} runs a fixed list of steps and saves a version-2
 * checkpoint after each (and, through `context.checkpoint`, part-way through a long step) in an App-chosen
 * {@link DurableStore}, so a crashed, cancelled or superseded run resumes without repeating saved work.
 * Stores: {@link MemoryDurableStore} here (tests and examples), SQLite in `@agent-core/kits/durable/sqlite`,
 * PostgreSQL in `@agent-core/kits/durable/postgres`, or any object with the contract's `exclusive`, `load`
 * and `save`; `@agent-core/kits/durable/testing` checks a store against the contract.
 *
 * @example
 * ```ts
 * import { createMemoryDurableStore, defineDurableTask } from '@agent-core/kits/durable'
 *
 * const task = defineDurableTask({
 *   id: 'greet',
 *   revision: '1',
 *   isState: (value): value is string[] => Array.isArray(value),
 *   steps: [
 *     { id: 'hello', replayPolicy: 'safe', run: (lines) => [...lines, 'hello'] },
 *     { id: 'world', replayPolicy: 'safe', run: (lines) => [...lines, 'world'] },
 *   ],
 * })
 * const lines = await task.run({ taskId: 'greet-1', store: createMemoryDurableStore(), input: [] })
 * ```
 *
 * @module
 */
export { CHECKPOINT_FORMAT_VERSION, type CheckpointRefusal } from './checkpoint.js'
export {
  type DurableInspectRequest,
  type DurableModelBudgetInit,
  type DurableRunRequest,
  type DurableStep,
  type DurableStepContext,
  type DurableTask,
  type DurableTaskDefinition,
  type DurableTaskOptions,
  defineDurableTask,
} from './durable-task.js'
export {
  createMemoryDurableStore,
  type MemoryDurableRecord,
  MemoryDurableStore,
  type MemoryDurableStoreOptions,
} from './memory-store.js'
export type {
  CheckpointV2,
  DurableExclusiveOptions,
  DurableFencing,
  DurableLease,
  DurableLeaseHolder,
  DurableLeaseTakeover,
  DurableLeaseWait,
  DurableListRequest,
  DurableModelBudget,
  DurableReplayPolicy,
  DurableSaveOptions,
  DurableSaveResult,
  DurableStatus,
  DurableStore,
  DurableTaskListing,
  DurableTaskSummary,
  StoredCheckpoint,
} from './store.js'
export { DurableStoreError } from './store-error.js'
