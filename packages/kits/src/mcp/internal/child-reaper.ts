import { onExit } from 'signal-exit'

/** A spawned server the host must not leave behind. */
export interface ReapableChild {
  /** Ends the process (and its process group) at once; called synchronously while the host exits. */
  kill(signal: NodeJS.Signals): void
}

const live = new Set<ReapableChild>()
let unload: (() => void) | undefined

/**
 * Keeps `child` on the list of processes that end with the host: on `exit`, and on SIGINT, SIGTERM, SIGHUP
 * (and the other fatal signals) when the App has no handler of its own for them, in which case the host
 * still dies of the signal afterwards (signal-exit re-raises it). An App that handles a signal itself
 * decides when to exit; the children are ended when it does.
 */
export function reapOnExit(child: ReapableChild): void {
  live.add(child)
  unload ??= onExit(() => {
    for (const each of live) {
      try {
        each.kill('SIGTERM')
      } catch {
        // Already gone.
      }
    }
    live.clear()
    unload = undefined
  })
}

/** Takes `child` off the list once it has ended; the exit hooks go away with the last child. */
export function forget(child: ReapableChild): void {
  live.delete(child)
  if (live.size === 0 && unload) {
    unload()
    unload = undefined
  }
}
