import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { type DurableTask, defineDurableTask } from '../../durable-task.js'
import { isTrail, type Trail, trailStep } from './fixtures.js'

/** How a crash-test worker is configured (passed as JSON on its command line). */
export interface CrashWorkerConfig {
  readonly scenario: 'payment' | 'crash-loop' | 'superseded'
  readonly dbPath: string
  readonly taskId: string
  /** File where external effects are appended, one line each. */
  readonly effectFile: string
  readonly leaseMs: number
  /** `payment`: kill the process right after the charge effect, before the checkpoint is saved. */
  readonly crashAfterEffect?: boolean
}

/** Lines of a file, or none when it does not exist. */
export function linesOf(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []
}

function killSelf(): never {
  process.kill(process.pid, 'SIGKILL')
  throw new Error('unreachable: SIGKILL did not stop the process')
}

/** prepare (safe) -> charge (reconcile, effect in a file) -> finish (safe). */
export function paymentTask(config: CrashWorkerConfig): DurableTask<Trail> {
  return defineDurableTask({
    id: 'payment',
    revision: '1',
    isState: isTrail,
    steps: [
      trailStep('prepare'),
      {
        id: 'charge',
        replayPolicy: 'reconcile',
        run: (state) => {
          appendFileSync(config.effectFile, 'charge\n')
          if (config.crashAfterEffect) killSelf()
          return { trail: [...state.trail, 'charge'] }
        },
        reconcile: (state) => {
          appendFileSync(config.effectFile, 'reconcile\n')
          if (!linesOf(config.effectFile).includes('charge')) appendFileSync(config.effectFile, 'charge\n')
          return { trail: [...state.trail, 'charge (reconciled)'] }
        },
      },
      trailStep('finish'),
    ],
  })
}

/** One safe step that records itself and then kills the process, every time. */
export function crashLoopTask(config: CrashWorkerConfig): DurableTask<Trail> {
  return defineDurableTask(
    {
      id: 'crash-loop',
      revision: '1',
      isState: isTrail,
      steps: [
        trailStep('boom', 'safe', () => {
          appendFileSync(config.effectFile, 'boom\n')
          killSelf()
        }),
      ],
    },
    { maxAttempts: 3 },
  )
}

/** slow (safe; worker A announces it and waits for a line on stdin) -> next (safe). */
export function supersededTask(): DurableTask<Trail, { worker: string }> {
  return defineDurableTask<Trail, { worker: string }>({
    id: 'superseded',
    revision: '1',
    isState: isTrail,
    steps: [
      {
        id: 'slow',
        replayPolicy: 'safe',
        run: async (state, context) => {
          if (context.app.worker === 'A') {
            process.stdout.write(`${JSON.stringify({ event: 'in-step' })}\n`)
            const lines = createInterface({ input: process.stdin })
            await new Promise<void>((resolve) => lines.once('line', () => resolve()))
            lines.close()
          }
          return { trail: [...state.trail, `slow by ${context.app.worker}`] }
        },
      },
      trailStep('next'),
    ],
  })
}
