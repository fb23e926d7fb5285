/**
 * Delivery: run a value through ordered stages before it leaves the App (check, redact, format, hand
 * off). Each stage has an `id` and a synchronous `handle(state, context)` that explicitly continues with a
 * state or completes with a final value, and `undefined` is a valid final value. An optional
 * `beforeStage({ stageId, state }, context)` hook runs before every handler. `deliver(input, context)`
 * takes an OperationContext (or a partial one such as `{ signal, diagnostics }`) and checks
 * cancellation on entering each stage and before and after each handler. Hooks and handlers are
 * synchronous: a returned Promise is rejected, never awaited.
 *
 * @example
 * ```ts
 * import { defineDelivery } from '@agent-core/kits/delivery'
 * const delivery = defineDelivery<string, string>({
 *   stages: [
 *     { id: 'trim', handle: (text) => ({ type: 'continue', state: text.trim() }) },
 *     { id: 'send', handle: (text) => ({ type: 'complete', value: text }) },
 *   ],
 * })
 * delivery.deliver('  hello ', { signal: new AbortController().signal }) // { value: 'hello', stageId: 'send' }
 * ```
 *
 * @module
 */
export {
  type BeforeStageEvent,
  type Delivery,
  type DeliveryDecision,
  type DeliveryDefinition,
  type DeliveryResult,
  type DeliveryStage,
  defineDelivery,
} from './delivery.js'
