/**
 * The durable task of the crash test: reserve (safe), charge (reconcile), ship (safe). The worker process
 * is killed inside `charge`; the test process resumes the task, which reconciles `charge`.
 */
import { type DurableTask, defineDurableTask } from '@agent-core/kits/durable'

export interface Order {
  readonly trail: readonly string[]
}

const isOrder = (value: unknown): value is Order =>
  typeof value === 'object' && value !== null && Array.isArray((value as Order).trail)

export function orderTask(onCharge: () => Promise<void> | void): DurableTask<Order> {
  return defineDurableTask({
    id: 'order',
    revision: '1',
    isState: isOrder,
    steps: [
      { id: 'reserve', replayPolicy: 'safe', run: (order) => ({ trail: [...order.trail, 'reserve'] }) },
      {
        id: 'charge',
        replayPolicy: 'reconcile',
        run: async (order) => {
          await onCharge()
          return { trail: [...order.trail, 'charge'] }
        },
        reconcile: (order) => ({ trail: [...order.trail, 'charge (reconciled)'] }),
      },
      { id: 'ship', replayPolicy: 'safe', run: (order) => ({ trail: [...order.trail, 'ship'] }) },
    ],
  })
}

/** A finished span as the worker prints it (one JSON line each). */
export interface PrintedSpan {
  readonly name: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly attributes: Record<string, unknown>
  readonly status: number
}
