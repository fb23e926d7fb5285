import { AgentCoreError, type AgentCoreErrorOptions, type ErrorDetails } from '@agent-core/core'

/**
 * Details of a {@link MissingPromptVariablesError}: every placeholder left without a value, in the order
 * they first appear, and the names that were given.
 * @example
 * ```ts
 * import { MissingPromptVariablesError, definePromptTemplate } from '@agent-core/kits/prompts'
 * try {
 *   definePromptTemplate('Hello {{name}}, from {{city}}').render({ name: 'Ada' })
 * } catch (error) {
 *   if (MissingPromptVariablesError.isInstance(error)) console.log(error.details.missing) // ['city']
 * }
 * ```
 */
export interface MissingPromptVariablesErrorDetails extends ErrorDetails {
  /** Placeholders without a value, in order of first appearance. */
  readonly missing: readonly string[]
  /** The names the caller gave (whether the template uses them or not). */
  readonly given: readonly string[]
  /** Where the template came from, when it is part of a chat prompt: `"parts[1]"`. */
  readonly field?: string | undefined
}

/**
 * A template was rendered without a value for some of its placeholders. The message names them all and
 * says to pass them, or to use `partial` to fill some now and the rest later.
 * @example
 * ```ts
 * import { MissingPromptVariablesError } from '@agent-core/kits/prompts'
 * declare const error: unknown // a caught error
 * if (MissingPromptVariablesError.isInstance(error)) console.log(`ask the user for ${error.details.missing.join(', ')}`)
 * ```
 */
export class MissingPromptVariablesError extends AgentCoreError<MissingPromptVariablesErrorDetails> {
  static override readonly code = 'missing-prompt-variables'
  declare readonly code: 'missing-prompt-variables'
  constructor(message: string, options: AgentCoreErrorOptions<MissingPromptVariablesErrorDetails>) {
    super('missing-prompt-variables', message, options)
  }
}

/**
 * Which output parser refused a model's text.
 * @example
 * ```ts
 * import type { OutputParserName } from '@agent-core/kits/prompts'
 * const parser: OutputParserName = 'json-object'
 * ```
 */
export type OutputParserName = 'lines' | 'list' | 'choice' | 'fenced-block' | 'json-object' | 'citations'

/**
 * Details of an {@link OutputParseError}: the parser, what it expected (a sentence a correction prompt can
 * quote to the model), and a short excerpt of the text it refused.
 * @example
 * ```ts
 * import { OutputParseError, parseChoice } from '@agent-core/kits/prompts'
 * try {
 *   parseChoice('Maybe?', ['yes', 'no'])
 * } catch (error) {
 *   if (OutputParseError.isInstance(error)) console.log(error.details.expected)
 * }
 * ```
 */
export interface OutputParseErrorDetails extends ErrorDetails {
  readonly parser: OutputParserName
  /** What a valid output looks like, as a sentence addressed to the model. */
  readonly expected: string
  /** What was wrong with this output. */
  readonly problem: string
  /** The start of the refused text (at most 200 characters). */
  readonly excerpt: string
  /** The allowed choices, for the `choice` parser. */
  readonly choices?: readonly string[] | undefined
}

/**
 * A model's text did not have the shape a parser wants. Not a bug in your program: the model answered
 * badly. Hand the error to {@link correctionPrompt} for the message that asks the model to try again.
 * @example
 * ```ts
 * import { OutputParseError, correctionPrompt, parseJsonObject } from '@agent-core/kits/prompts'
 * try {
 *   parseJsonObject('No JSON here.')
 * } catch (error) {
 *   if (OutputParseError.isInstance(error)) console.log(correctionPrompt(error).content)
 * }
 * ```
 */
export class OutputParseError extends AgentCoreError<OutputParseErrorDetails> {
  static override readonly code = 'output-parse'
  declare readonly code: 'output-parse'
  constructor(message: string, options: AgentCoreErrorOptions<OutputParseErrorDetails>) {
    super('output-parse', message, options)
  }
}

/** The first 200 characters of a text, for error details. */
export function excerptOf(text: string): string {
  return text.length <= 200 ? text : `${text.slice(0, 199)}…`
}
