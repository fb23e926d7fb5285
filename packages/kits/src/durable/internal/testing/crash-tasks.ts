import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { type DurableStepContext, type DurableTask, defineDurableTask } from '../../durable-task.js'
import { isTrail, type Trail, trailStep } from './fixtures.js'

/** How a crash-test worker is configured (passed as JSON on its command line). */
export interface CrashWorkerConfig {
  readonly scenario: 'payment' | 'crash-loop' | 'superseded' | 'guarded-payment' | 'progress'
  readonly dbPath: string
  readonly taskId: string
  /** File where external effects are appended, one line each. */
  readonly effectFile: string
  readonly leaseMs: number
  /**
   * `payment`: kill the process right after the charge effect, before the checkpoint is saved;
   * `progress`: kill it right after the progress save of item `c`.
   */
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

/**
 * One step that works through the items a to e: appends each to the effect file, then saves progress (the
 * items done so far, in the trail). With `crashAfterEffect`, the process kills itself once the progress
 * save of item c has committed.
 */
export function progressTask(config: CrashWorkerConfig): DurableTask<Trail> {
  return defineDurableTask({
    id: 'progress',
    revision: '1',
    isState: isTrail,
    steps: [
      {
        id: 'items',
        replayPolicy: 'safe',
        run: async (state, context) => {
          let progress = state
          for (const item of ['a', 'b', 'c', 'd', 'e'].filter((i) => !state.trail.includes(i))) {
            appendFileSync(config.effectFile, `${item}\n`)
            progress = { trail: [...progress.trail, item] }
            await context.checkpoint(progress)
            if (config.crashAfterEffect && item === 'c') killSelf()
          }
          return progress
        },
      },
    ],
  })
}

/** Prints one JSON line on stdout (the protocol between crash workers and their tests). */
export function print(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`)
}

/** Resolves with the next line on stdin. */
async function nextLine(): Promise<void> {
  const lines = createInterface({ input: process.stdin })
  await new Promise<void>((resolve) => lines.once('line', () => resolve()))
  lines.close()
}

/**
 * prepare (safe) -> charge (reconcile) -> finish (safe). `charge`, run or reconciled, is check-then-act on
 * the effect file: it looks for a charge, then (worker A only) announces `in-step` and waits for a line on
 * stdin, then charges if it saw none, unless its signal aborted. Worker A reports its signal's abort as
 * `signal-aborted` with the reason's code.
 */
export function guardedPaymentTask(config: CrashWorkerConfig): DurableTask<Trail, { worker: string }> {
  const charge = async (state: Trail, context: DurableStepContext<{ worker: string }, Trail>) => {
    const worker = context.app.worker
    const charged = linesOf(config.effectFile).some((line) => line.startsWith('charge'))
    if (worker === 'A') {
      context.signal.addEventListener(
        'abort',
        () => print({ event: 'signal-aborted', code: (context.signal.reason as { code?: unknown })?.code }),
        { once: true },
      )
      print({ event: 'in-step' })
      await nextLine()
    }
    if (!charged) {
      context.signal.throwIfAborted()
      appendFileSync(config.effectFile, `charge by ${worker}\n`)
    }
    return { trail: [...state.trail, `charge (${context.mode} by ${worker})`] }
  }
  return defineDurableTask<Trail, { worker: string }>({
    id: 'guarded-payment',
    revision: '1',
    isState: isTrail,
    steps: [
      trailStep('prepare'),
      { id: 'charge', replayPolicy: 'reconcile', run: charge, reconcile: charge },
      trailStep('finish'),
    ],
  })
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
            print({ event: 'in-step' })
            await nextLine()
          }
          return { trail: [...state.trail, `slow by ${context.app.worker}`] }
        },
      },
      trailStep('next'),
    ],
  })
}
