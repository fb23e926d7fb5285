import { AgentCoreError, type AgentCoreErrorOptions, type ErrorDetails } from '@agent-core/core'

/**
 * Why an input selected no command: it is not an object, its command field is missing, not a string or a
 * getter, it names no registered command, or the command's `when` says it is not available now.
 * @example
 * ```ts
 * import type { SelectionReason } from '@agent-core/kits/interaction'
 * const reason: SelectionReason = 'unknown'
 * ```
 */
export type SelectionReason =
  | 'not-an-object'
  | 'missing'
  | 'not-a-string'
  | 'getter'
  | 'unknown'
  | 'unavailable'

/**
 * Details of {@link CommandSelectionError}: the reason, the command field, a description of what it held,
 * the command (when one was named) and the registered ids.
 * @example
 * ```ts
 * import type { CommandSelectionErrorDetails } from '@agent-core/kits/interaction'
 * const details: CommandSelectionErrorDetails = { reason: 'unknown', field: 'action', received: 'the string "fly"', known: ['search'] }
 * ```
 */
export interface CommandSelectionErrorDetails extends ErrorDetails {
  readonly reason?: SelectionReason
  /** The command field as the App named it (e.g. `action`). */
  readonly field?: string
  readonly received?: string
  readonly commandId?: string | undefined
  readonly known?: readonly string[]
}

/**
 * An input selected no command that may run: dispatch runs nothing. A protocol may build its own error
 * for these cases (`selectionError`).
 * @example
 * ```ts
 * import { CommandSelectionError } from '@agent-core/kits/interaction'
 * declare const error: unknown // a caught error
 * if (CommandSelectionError.isInstance(error)) console.log(error.details.reason, error.details.known)
 * ```
 */
export class CommandSelectionError extends AgentCoreError<CommandSelectionErrorDetails> {
  static override readonly code = 'command-selection'
  declare readonly code: 'command-selection'
  constructor(message: string, options?: AgentCoreErrorOptions<CommandSelectionErrorDetails>) {
    super('command-selection', message, options)
  }
}

/**
 * Details of {@link CommandRejectedError}.
 * @example
 * ```ts
 * import type { CommandRejectedErrorDetails } from '@agent-core/kits/interaction'
 * const details: CommandRejectedErrorDetails = { commandId: 'refund', predicate: 1 }
 * ```
 */
export interface CommandRejectedErrorDetails extends ErrorDetails {
  readonly commandId?: string
  /** The index of the `occur` predicate that held (0 for a single predicate). */
  readonly predicate?: number
  /** The predicate's function name, when it has one. */
  readonly predicateName?: string | undefined
}

/**
 * One of a command's `occur` predicates held: the input is refused and the handler does not run.
 * @example
 * ```ts
 * import { CommandRejectedError } from '@agent-core/kits/interaction'
 * declare const error: unknown // a caught error
 * if (CommandRejectedError.isInstance(error)) console.log(error.details.commandId, error.details.predicate)
 * ```
 */
export class CommandRejectedError extends AgentCoreError<CommandRejectedErrorDetails> {
  static override readonly code = 'command-rejected'
  declare readonly code: 'command-rejected'
  constructor(message: string, options?: AgentCoreErrorOptions<CommandRejectedErrorDetails>) {
    super('command-rejected', message, options)
  }
}
