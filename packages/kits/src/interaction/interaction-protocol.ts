import {
  describeValue,
  formatSchemaIssues,
  InvalidInputError,
  InvalidOutputError,
  type JsonSchema,
  refuseField,
} from '@agent-core/core'
import { compileJsonSchema } from '@agent-core/core/tools'
import {
  CommandCatalog,
  type CommandDefinition,
  type CommandMap,
  type CommandValue,
  type FieldMap,
} from './command-catalog.js'
import { CommandSelectionError, type SelectionReason } from './interaction-errors.js'
import {
  type CommandRuntime,
  type CompiledCommand,
  compileCommand,
  isAvailable,
  prepareInput,
} from './internal/compile-command.js'

export type { CompiledCommand } from './internal/compile-command.js'

/**
 * What went wrong when an input selected no command, as given to a protocol's `selectionError`.
 * @example
 * ```ts
 * import type { SelectionProblem } from '@agent-core/kits/interaction'
 * const explain = (problem: SelectionProblem) => `${problem.reason}: ${problem.received}`
 * ```
 */
export interface SelectionProblem {
  readonly reason: SelectionReason
  /** The command field as the App named it. */
  readonly commandField: string
  /** A description of the value found (never the value itself). */
  readonly received: string
  /** The command named, when the input named a registered one (`unavailable`). */
  readonly commandId: string | undefined
  /** The registered command ids. */
  readonly known: readonly string[]
}

/**
 * One protocol: the command field the App owns, the commands (a catalog, a Record or an array), and
 * optional callbacks of the protocol itself, called on `receiver` (default: this definition, so a class
 * instance keeps its state): `openEnvelope` reads the command object out of a wire message,
 * `envelopeSchema` wraps the union of the commands' model schemas in the same envelope, and
 * `selectionError` builds the error for an input that selects no command.
 * @example
 * ```ts
 * import type { InteractionProtocolDefinition } from '@agent-core/kits/interaction'
 * const definition: InteractionProtocolDefinition = {
 *   commandField: 'action',
 *   commands: { ping: { description: 'Checks the line', fields: {} } },
 * }
 * ```
 */
export interface InteractionProtocolDefinition<Commands extends CommandMap = CommandMap, Context = unknown> {
  /** The name of the field that selects the command (`action`, `op`, `command`, ...): the App's choice. */
  readonly commandField: string
  readonly commands:
    | CommandCatalog<Commands>
    | Commands
    | readonly CommandDefinition<FieldMap, unknown, unknown>[]
  /** The `this` of the callbacks below; default: the definition. */
  readonly receiver?: object | undefined
  /** Reads the command object out of a wire message (default: the message is the command object). */
  openEnvelope?(message: unknown, context: Context): unknown
  /**
   * The JSON Schema of the wire message, given the union of the commands' model schemas (default: the
   * union itself). Must agree with `openEnvelope`.
   */
  envelopeSchema?(commands: JsonSchema): JsonSchema
  /** Builds the error thrown when an input selects no command (default: a `CommandSelectionError`). */
  selectionError?(problem: SelectionProblem): Error
}

/**
 * The command an input selected, checked and converted: its id, the parsed input (every field, after
 * defaults, `assert` and `parse`) and the value the handler receives (what `format` returned, or the
 * input).
 * @example
 * ```ts
 * import type { CommandSelection } from '@agent-core/kits/interaction'
 * const describe = (selection: CommandSelection) => `${selection.commandId} ${JSON.stringify(selection.input)}`
 * ```
 */
export interface CommandSelection<Commands extends CommandMap = CommandMap> {
  readonly commandId: keyof Commands & string
  readonly input: Readonly<Record<string, unknown>>
  readonly value: CommandValue<Commands[keyof Commands]>
}

type Callback = (this: unknown, ...args: never[]) => unknown

/**
 * A compiled interaction protocol (a public constructor; {@link defineInteractionProtocol} is the same).
 * One commands declaration compiles into, per command, `inputJsonSchema`, `modelJsonSchema` and
 * `fieldSchemas`, and for the protocol, `modelJsonSchema`: exactly what a model may submit, to give it as
 * a tool's parameters or a response format. `select` checks an input and converts it without running
 * anything; `bindInteraction` adds the handlers.
 * @example
 * ```ts
 * import { InteractionProtocol } from '@agent-core/kits/interaction'
 * const protocol = new InteractionProtocol({
 *   commandField: 'op',
 *   commands: { ping: { description: 'Checks the line', fields: {} } },
 * })
 * protocol.select({ op: 'ping' }, undefined).commandId // 'ping'
 * ```
 */
export class InteractionProtocol<Commands extends CommandMap = CommandMap, Context = unknown> {
  /** The App's name for the field that selects the command. */
  readonly commandField: string
  readonly commands: CommandCatalog<Commands>
  /** What a model may submit: the commands' model schemas as one union, in the protocol's envelope. */
  readonly modelJsonSchema: JsonSchema
  readonly #runtimes: ReadonlyMap<string, CommandRuntime>
  readonly #receiver: unknown
  readonly #open: Callback | undefined
  readonly #selectionError: Callback | undefined

  /**
   * Compiles a protocol.
   * @throws `InvalidDefinitionError` for a malformed definition, command or field (naming it), a field
   *   named like the command field, a schema that does not compile, a default that does not satisfy its
   *   field's schema
   */
  constructor(definition: InteractionProtocolDefinition<Commands, Context>) {
    if (typeof definition !== 'object' || definition === null) {
      refuseField(
        'definition',
        'definition',
        `must be an interaction protocol definition { commandField, commands }, but got ${describeValue(definition)}`,
        definition,
      )
    }
    const { commandField, commands, receiver, openEnvelope, envelopeSchema, selectionError } = definition
    if (typeof commandField !== 'string' || commandField.length === 0) {
      refuseField(
        'definition',
        'commandField',
        `must be the non-empty name of the field that selects the command (e.g. "action"), but got ${describeValue(commandField)}`,
        commandField,
      )
    }
    if (
      receiver !== undefined &&
      (typeof receiver !== 'object' || receiver === null) &&
      typeof receiver !== 'function'
    ) {
      refuseField(
        'definition',
        'receiver',
        `must be an object or be left out, but got ${describeValue(receiver)}`,
        receiver,
      )
    }
    for (const [name, hook] of [
      ['openEnvelope', openEnvelope],
      ['envelopeSchema', envelopeSchema],
      ['selectionError', selectionError],
    ] as const) {
      if (hook !== undefined && typeof hook !== 'function') {
        refuseField(
          'definition',
          name,
          `must be a function or be left out, but got ${describeValue(hook)}`,
          hook,
        )
      }
    }
    this.commandField = commandField
    this.commands = commands instanceof CommandCatalog ? commands : new CommandCatalog(commands as Commands)
    const runtimes = new Map<string, CommandRuntime>()
    for (const command of this.commands.definitions)
      runtimes.set(command.id, compileCommand(command, commandField))
    this.#runtimes = runtimes
    this.#receiver = receiver ?? definition
    this.#open = openEnvelope as Callback | undefined
    this.#selectionError = selectionError as Callback | undefined
    const schemas = [...runtimes.values()].map((runtime) => runtime.compiled.modelJsonSchema)
    const union: JsonSchema = schemas.length === 1 ? (schemas[0] as JsonSchema) : { anyOf: schemas }
    let schema = union
    if (envelopeSchema) {
      schema = Reflect.apply(envelopeSchema, this.#receiver, [union]) as JsonSchema
      compileJsonSchema(schema, 'The schema envelopeSchema returned')
    }
    this.modelJsonSchema = Object.freeze(schema as object) as JsonSchema
  }

  /** The compiled commands, in declaration order. */
  get compiled(): readonly CompiledCommand[] {
    return [...this.#runtimes.values()].map((runtime) => runtime.compiled)
  }

  /**
   * The compiled command with this id.
   * @throws `UnknownIdError` listing the command ids
   */
  command(id: keyof Commands & string): CompiledCommand {
    this.commands.require(id)
    return (this.#runtimes.get(id) as CommandRuntime).compiled
  }

  /** The commands whose `when` holds in this context (all of them when none has a `when`). */
  available(context: Context): readonly CompiledCommand[] {
    return [...this.#runtimes.values()]
      .filter((runtime) => isAvailable(runtime, context))
      .map((r) => r.compiled)
  }

  /**
   * Selects and checks the command an input names, without running a handler. In order: the envelope is
   * opened; the command field is read (an own data property holding a string: a getter is never
   * called); the command is looked up among the registered ones only (an inherited name such as
   * `toString` or `__proto__` is no command); its `when` must hold; the input must satisfy the command's
   * `modelJsonSchema` (unknown fields and wrong types are refused); defaults fill what was left out; each
   * field's `assert` then `parse`; the `occur` predicates; `refine`; `format`.
   * @throws the protocol's selection error (default `CommandSelectionError`) when no command may run;
   *   `InvalidInputError` with `details.issues` for input the schema refuses; `CommandRejectedError` when
   *   an `occur` predicate holds; `RejectedThenableError`/`InvalidOutputError` for a callback that broke
   *   its contract; an `assert` or `refine` error as thrown
   */
  select(message: unknown, context: Context): CommandSelection<Commands> {
    const submission = this.#open ? Reflect.apply(this.#open, this.#receiver, [message, context]) : message
    const runtime = this.#selectCommand(submission, context)
    const checked = runtime.validator.validate(submission)
    if (!checked.ok) {
      throw new InvalidInputError(
        `Input for command "${runtime.compiled.id}" does not match its schema: ${formatSchemaIssues(checked.issues)}.`,
        { details: { field: 'input', issues: checked.issues } },
      )
    }
    const { input, value } = prepareInput(runtime, submission as object, context)
    return Object.freeze({
      commandId: runtime.compiled.id,
      input,
      value,
    }) as CommandSelection<Commands>
  }

  #selectCommand(submission: unknown, context: Context): CommandRuntime {
    const field = this.commandField
    if (typeof submission !== 'object' || submission === null || Array.isArray(submission)) {
      throw this.#refuse('not-an-object', describeValue(submission), undefined)
    }
    const prototype = Object.getPrototypeOf(submission)
    if (prototype !== Object.prototype && prototype !== null) {
      throw this.#refuse('not-an-object', describeValue(submission), undefined)
    }
    const descriptor = Object.getOwnPropertyDescriptor(submission, field)
    if (descriptor === undefined) throw this.#refuse('missing', 'nothing', undefined)
    if (!('value' in descriptor)) throw this.#refuse('getter', 'a getter', undefined)
    const name: unknown = descriptor.value
    if (typeof name !== 'string') throw this.#refuse('not-a-string', describeValue(name), undefined)
    const runtime = this.#runtimes.get(name)
    if (runtime === undefined) throw this.#refuse('unknown', describeValue(name), undefined)
    if (!isAvailable(runtime, context)) throw this.#refuse('unavailable', describeValue(name), name)
    return runtime
  }

  #refuse(reason: SelectionReason, received: string, commandId: string | undefined): Error {
    const known = this.commands.ids()
    const problem: SelectionProblem = Object.freeze({
      reason,
      commandField: this.commandField,
      received,
      commandId,
      known,
    })
    if (this.#selectionError) {
      const error: unknown = Reflect.apply(this.#selectionError, this.#receiver, [problem])
      if (!(error instanceof Error)) {
        return new InvalidOutputError(
          `selectionError must return an Error to throw, but returned ${describeValue(error)}.`,
          { details: { hook: 'selectionError', received: describeValue(error) } },
        )
      }
      return error
    }
    const list = known.map((id) => `"${id}"`).join(', ')
    const field = `"${this.commandField}"`
    const messages: Record<SelectionReason, string> = {
      'not-an-object': `A command must be an object with a ${field} field, but got ${received}.`,
      missing: `The input has no ${field} field, so it selects no command. Set ${field} to one of ${list}.`,
      getter: `The ${field} field of the input is a getter; it must be plain data naming one of ${list}.`,
      'not-a-string': `The ${field} field must name a command (one of ${list}), but holds ${received}.`,
      unknown: `No command is named ${received}; ${field} must be one of ${list}. Nothing was run.`,
      unavailable: `Command ${received} is not available now (its when condition does not hold). Nothing was run.`,
    }
    return new CommandSelectionError(messages[reason], {
      details: { reason, field: this.commandField, received, commandId, known },
    })
  }
}

/**
 * Compiles one commands declaration into an {@link InteractionProtocol}.
 * @throws `InvalidDefinitionError` for a malformed definition (see {@link InteractionProtocol})
 * @example
 * ```ts
 * import { defineInteractionProtocol } from '@agent-core/kits/interaction'
 * const shop = defineInteractionProtocol({
 *   commandField: 'action',
 *   commands: {
 *     search: {
 *       description: 'Searches products',
 *       fields: { query: { jsonSchema: { type: 'string', minLength: 1 } }, limit: { jsonSchema: { type: 'integer' }, default: 5 } },
 *     },
 *   },
 * })
 * shop.command('search').modelJsonSchema // required: ['action', 'query']
 * ```
 */
export function defineInteractionProtocol<const Commands extends CommandMap, Context = unknown>(
  definition: InteractionProtocolDefinition<Commands, Context>,
): InteractionProtocol<Commands, Context> {
  return new InteractionProtocol(definition)
}
