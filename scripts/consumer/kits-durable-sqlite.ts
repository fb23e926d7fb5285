import assert from 'node:assert/strict'
import { defineDurableTask } from '@agent-core/kits/durable'
import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'

const store = createSqliteDurableStore(':memory:')
try {
  const greet = defineDurableTask({
    id: 'greet',
    revision: '1',
    isState: (value: unknown): value is { text: string } =>
      typeof (value as { text?: unknown })?.text === 'string',
    steps: [{ id: 'shout', replayPolicy: 'safe', run: (state) => ({ text: state.text.toUpperCase() }) }],
  })
  assert.deepEqual(await greet.run({ taskId: 'g1', store, input: { text: 'hi' } }), { text: 'HI' })
  assert.deepEqual(await greet.run({ taskId: 'g1', store }), { text: 'HI' })
} finally {
  store.close()
}
