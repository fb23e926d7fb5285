/**
 * The side channel between a run and the hooks it composes into its tools' lifecycles. The lifecycle's
 * hooks receive the run's own signal (a per-run AbortSignal, passed down as the contract requires), which
 * keys the run here; execution of an external or question tool reads the result the host gave, keyed by
 * the invocation id core allocated.
 */

/** Why a call that became pending waits, as the composed `authorize` hook decided it. */
export interface WaitNote {
  readonly waitingFor: 'approval' | 'external' | 'question' | 'running'
  /** The question's text (question tools). */
  readonly question?: string | undefined
}

/** What the composed hooks may ask of the run they run in. */
export interface RunHandle {
  /** True when the run saves progress: calls that are not replay-safe are saved before they run. */
  readonly writeAhead: boolean
  noteWait(invocationId: string, note: WaitNote): void
}

/** Runs by their own signal. */
export const runHandles = new WeakMap<AbortSignal, RunHandle>()

/** A result given by the host for an external call or a person's answer to a question. */
export type HostResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly message: string }

/** Host results waiting for the resumed pass that executes them, by invocation id (unique per process). */
export const hostResults = new Map<string, HostResult>()
