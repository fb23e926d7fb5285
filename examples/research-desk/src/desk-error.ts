import { AgentCoreError, type ErrorDetails } from '@agent-core/core'

/**
 * Why the desk stops without an answer. Each has its own exit code, so a script can branch on it.
 *
 * - `usage`: the command line is wrong (2)
 * - `corpus`: the corpus folder is missing, not a folder, or holds no .md/.txt file (3)
 * - `endpoint`: the model endpoint cannot be reached, or is not an OpenAI-compatible API (4)
 * - `authentication`: the endpoint refused the API key (5)
 * - `model`: any other failure of the model or of the run (6)
 * - `decision`: a `--decide` that does not fit the run's pending calls (8)
 */
export type DeskFailure = 'usage' | 'corpus' | 'endpoint' | 'authentication' | 'model' | 'decision'

/** The exit code of each failure. 7 means "waiting for a decision", 130 "stopped by Ctrl-C". */
export const EXIT_CODES: Readonly<Record<DeskFailure | 'waiting' | 'stopped', number>> = {
  usage: 2,
  corpus: 3,
  endpoint: 4,
  authentication: 5,
  model: 6,
  waiting: 7,
  decision: 8,
  stopped: 130,
}

export interface DeskErrorDetails extends ErrorDetails {
  readonly failure: DeskFailure
  readonly field?: string | undefined
  readonly received?: string | undefined
}

/** A failure the desk explains to its user: what was wrong and what to do. */
export class DeskError extends AgentCoreError<DeskErrorDetails> {
  readonly failure: DeskFailure

  constructor(
    failure: DeskFailure,
    message: string,
    options: { cause?: unknown; field?: string; received?: string } = {},
  ) {
    super(`research-desk-${failure}`, message, {
      cause: options.cause,
      details: { failure, field: options.field, received: options.received },
    })
    this.failure = failure
  }

  get exitCode(): number {
    return EXIT_CODES[this.failure]
  }
}
