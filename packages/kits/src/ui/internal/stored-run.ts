import type { Agent, AgentEvent } from '@agent-core/kits/loop'
import type { ChatRunStore } from '../chat-run-store.js'

type AgentStream = ReturnType<Agent<unknown, never>['stream']>

/**
 * The events of a handler's run, with its suspended state kept in the store under `key` (or removed when
 * the run ends otherwise) before the page hears that the run ended: its answer may come at once. The first
 * event is read here, so a refused start (a resume already made, a forged decision) throws to the caller
 * instead of inside the response stream.
 */
export async function storedRunEvents(
  run: AgentStream,
  store: ChatRunStore,
  key: string,
): Promise<AsyncGenerator<AgentEvent>> {
  const iterator = run[Symbol.asyncIterator]()
  const first = await iterator.next()
  return (async function* () {
    let next = first
    while (!next.done) {
      const event = next.value
      if (event.type === 'run-suspended' || event.type === 'run-done') {
        const result = await run.result
        if (result.reason === 'suspended') await store.save(key, result.state)
        else await store.delete(key)
      }
      yield event
      next = await iterator.next()
    }
  })()
}
