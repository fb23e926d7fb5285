import { describeValue, type FieldReaderContext, refuseField } from '@agent-core/core'

/**
 * What a running tool reports through `context.progress(update)`: what it is doing, how far along it is,
 * and data of its own. Every field is optional. A report reaches the run's events (the agent loop's
 * `tool-progress`) and its UIs; it is not part of the conversation unless `keep` is true, and a report
 * made after the call settled (finished, failed, timed out, stopped) is dropped.
 * @example
 * ```ts
 * import type { ToolProgressUpdate } from '@agent-core/core/tools'
 * const update: ToolProgressUpdate = { message: 'Indexed 40 of 120 files', ratio: 40 / 120, data: { files: 40 } }
 * ```
 */
export interface ToolProgressUpdate {
  /** What the tool is doing, in words for a person. */
  readonly message?: string | undefined
  /** How far along it is: a number from 0 to 1. */
  readonly ratio?: number | undefined
  /** The tool's own data: plain JSON (checked by the run that receives it). */
  readonly data?: unknown
  /**
   * Keep this report in the history: the model reads its `message` with the call's result. Default false
   * (progress is for people watching, not for the model).
   */
  readonly keep?: boolean | undefined
}

/**
 * How a running tool reports progress: `context.progress` in its `execute`. Synchronous; it refuses a
 * malformed update with `InvalidInputError` and does nothing once the call settled or when nobody listens.
 * @example
 * ```ts
 * import type { ToolProgressReporter } from '@agent-core/core/tools'
 * const halfway = (progress: ToolProgressReporter) => progress({ message: 'Halfway', ratio: 0.5 })
 * ```
 */
export type ToolProgressReporter = (update: ToolProgressUpdate) => void

const FIELDS = new Set(['message', 'ratio', 'data', 'keep'])

/** The prefix and details of a progress refusal (built only when one is thrown). */
function progressContext(toolId: string): FieldReaderContext {
  return { prefix: `Tool "${toolId}" reported progress whose `, details: { toolId } }
}

/** Checks a progress update; returns it frozen. */
export function readProgressUpdate(update: unknown, toolId: string): ToolProgressUpdate {
  if (typeof update !== 'object' || update === null || Array.isArray(update))
    refuseField(
      'input',
      'update',
      `must be an object { message?, ratio?, data?, keep? }, but got ${describeValue(update)}`,
      update,
      progressContext(toolId),
    )
  const given = update as Record<string, unknown>
  for (const key of Object.keys(given)) {
    if (!FIELDS.has(key))
      refuseField(
        'input',
        `update.${key}`,
        `is not a field (message, ratio, data, keep), but got ${describeValue(given[key])}`,
        given[key],
        progressContext(toolId),
      )
  }
  if (given.message !== undefined && typeof given.message !== 'string')
    refuseField(
      'input',
      'update.message',
      `must be a string, but got ${describeValue(given.message)}`,
      given.message,
      progressContext(toolId),
    )
  if (
    given.ratio !== undefined &&
    (typeof given.ratio !== 'number' || !Number.isFinite(given.ratio) || given.ratio < 0 || given.ratio > 1)
  )
    refuseField(
      'input',
      'update.ratio',
      `must be a number from 0 to 1, but got ${describeValue(given.ratio)}`,
      given.ratio,
      progressContext(toolId),
    )
  if (given.keep !== undefined && typeof given.keep !== 'boolean')
    refuseField(
      'input',
      'update.keep',
      `must be a boolean, but got ${describeValue(given.keep)}`,
      given.keep,
      progressContext(toolId),
    )
  return Object.freeze({ ...given }) as ToolProgressUpdate
}

/**
 * The reporter one invocation hands its tool: checks each update and passes it on until `settle()`;
 * after that, and without a listener, updates are checked and dropped.
 */
export function invocationProgress(
  listener: ToolProgressReporter | undefined,
  toolId: string,
): { readonly progress: ToolProgressReporter; settle(): void } {
  if (listener === undefined) return unheardProgress(toolId)
  return new HeardProgress(listener, toolId)
}

/**
 * The reporter of an invocation someone listens to. `settle` is a method and `progress` one closure stored
 * on the instance (not properties of an object literal, which a build that keeps function names names
 * again on every call).
 */
class HeardProgress {
  readonly progress: ToolProgressReporter
  #settled = false

  constructor(listener: ToolProgressReporter, toolId: string) {
    this.progress = (update) => {
      const checked = readProgressUpdate(update, toolId)
      if (!this.#settled) listener(checked)
    }
  }

  settle(): void {
    this.#settled = true
  }
}

const NO_SETTLE = (): void => undefined
const MAX_UNHEARD = 256
/** Reporters of tools whose invocation nobody listens to, by tool id: they check a report and drop it. */
const unheard = new Map<string, { readonly progress: ToolProgressReporter; settle(): void }>()

/** A reporter that only checks (no listener): shared per tool id, so a plain call allocates none. */
function unheardProgress(toolId: string): { readonly progress: ToolProgressReporter; settle(): void } {
  let reports = unheard.get(toolId)
  if (reports === undefined) {
    reports = Object.freeze({
      progress: (update: ToolProgressUpdate) => {
        readProgressUpdate(update, toolId)
      },
      settle: NO_SETTLE,
    })
    if (unheard.size < MAX_UNHEARD) unheard.set(toolId, reports)
  }
  return reports
}
