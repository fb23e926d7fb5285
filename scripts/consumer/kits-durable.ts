import assert from 'node:assert/strict'
import { createMemoryDurableStore, defineDurableTask } from '@agent-core/kits/durable'

const count = defineDurableTask({
  id: 'count',
  revision: '1',
  isState: (value: unknown): value is { n: number } => typeof (value as { n?: unknown })?.n === 'number',
  steps: [
    { id: 'one', replayPolicy: 'safe', run: (state) => ({ n: state.n + 1 }) },
    { id: 'two', replayPolicy: 'safe', run: (state) => ({ n: state.n * 10 }) },
  ],
})
const done = await count.run({ taskId: 't1', store: createMemoryDurableStore(), input: { n: 1 } })
assert.deepEqual(done, { n: 20 })
