import { describeValue, InvalidDefinitionError, Registry, RegistryView, refuseField } from '@agent-core/core'
import type { ProtocolField } from './protocol-field.js'

/**
 * The fields of a command, by name.
 * @example
 * ```ts
 * import type { FieldMap } from '@agent-core/kits/interaction'
 * const fields: FieldMap = { query: { jsonSchema: { type: 'string' } } }
 * ```
 */
export type FieldMap = { readonly [name: string]: ProtocolField<unknown, unknown> }

/**
 * The value a field contributes to the command input: what `parse` returns, or the JSON value
 * (`| undefined` for a field typed `optional: true`).
 * @example
 * ```ts
 * import type { FieldValue, ProtocolField } from '@agent-core/kits/interaction'
 * type Day = FieldValue<ProtocolField<string, Date>> // Date
 * ```
 */
export type FieldValue<Field> =
  Field extends ProtocolField<unknown, infer Parsed>
    ? Field extends { readonly optional: true }
      ? Parsed | undefined
      : Parsed
    : unknown

/**
 * The input a command's `occur`, `refine` and `format` receive: every field, parsed (the command field is
 * not part of it).
 * @example
 * ```ts
 * import type { CommandInput, ProtocolField } from '@agent-core/kits/interaction'
 * type SearchInput = CommandInput<{ query: ProtocolField<string>; limit: ProtocolField<number> }>
 * // { readonly query: string; readonly limit: number }
 * ```
 */
export type CommandInput<Fields extends FieldMap> = {
  readonly [Name in keyof Fields]: FieldValue<Fields[Name]>
}

/**
 * A rejection predicate: `true` means the command must not run with this input.
 * @example
 * ```ts
 * import type { OccurPredicate } from '@agent-core/kits/interaction'
 * const tooMany: OccurPredicate<{ limit: number }> = (input) => input.limit > 20
 * ```
 */
export type OccurPredicate<Input = never, Context = unknown> = {
  // A method signature, so that a predicate over a narrower input still fits where any command is accepted.
  check(input: Input, context: Context): boolean
}['check']

/**
 * A command without its id (the Record form of {@link defineCommandCatalog}, where the key is the id).
 * Every callback is synchronous and is called on `receiver` (default: the command itself).
 * @example
 * ```ts
 * import type { CommandBody } from '@agent-core/kits/interaction'
 * const search: CommandBody = { description: 'Searches the shop', fields: { query: { jsonSchema: { type: 'string' } } } }
 * ```
 */
export interface CommandBody<
  Fields extends FieldMap = FieldMap,
  Context = unknown,
  Output = CommandInput<Fields>,
> {
  /** What the command does, for the model. */
  readonly description: string
  readonly fields: Fields
  /** The `this` of `when`, `occur`, `refine` and `format`; default: the command. */
  readonly receiver?: object | undefined
  /** Whether the command is available now; must return a boolean synchronously. */
  when?(context: Context): boolean
  /**
   * Rejection predicates: one, or an array where any `true` rejects (OR). Each must return a boolean
   * synchronously.
   */
  readonly occur?:
    | OccurPredicate<CommandInput<Fields>, Context>
    | readonly OccurPredicate<CommandInput<Fields>, Context>[]
    | undefined
  /** Checks the input as a whole (relations between fields); return nothing, throw to refuse it. */
  refine?(input: CommandInput<Fields>, context: Context): void
  /** Converts the input into what the handler receives; its return value is used as is. */
  format?(input: CommandInput<Fields>, context: Context): Output
}

/**
 * A command of a protocol: a {@link CommandBody} with its id, the value the command field carries.
 * @example
 * ```ts
 * import type { CommandDefinition } from '@agent-core/kits/interaction'
 * const search: CommandDefinition = { id: 'search', description: 'Searches', fields: {} }
 * ```
 */
export interface CommandDefinition<
  Fields extends FieldMap = FieldMap,
  Context = unknown,
  Output = CommandInput<Fields>,
> extends CommandBody<Fields, Context, Output> {
  readonly id: string
}

/**
 * The commands of a catalog, by id.
 * @example
 * ```ts
 * import type { CommandMap } from '@agent-core/kits/interaction'
 * const commands: CommandMap = { ping: { description: 'Checks the line', fields: {} } }
 * ```
 */
export type CommandMap = { readonly [id: string]: CommandBody<FieldMap, unknown, unknown> }

/**
 * The value a command's handler receives: what `format` returns, or the parsed input.
 * @example
 * ```ts
 * import type { CommandValue } from '@agent-core/kits/interaction'
 * type Value = CommandValue<{ description: string; fields: {}; format(): number }> // number
 * ```
 */
export type CommandValue<Command> = Command extends { format(...args: never[]): infer Output }
  ? Output
  : Command extends { readonly fields: infer Fields extends FieldMap }
    ? CommandInput<Fields>
    : unknown

const BODY_FIELDS = new Set(['id', 'description', 'fields', 'receiver', 'when', 'occur', 'refine', 'format'])

/**
 * The closed set of a protocol's commands, in declaration order, with the core registry contract
 * (`ids`, `has`, `get`, `require`, `entries`, `values`). Write it as a Record (the key is the id) or as an
 * array of definitions with ids; `definitions` is always the array, and {@link CommandCatalog.toRecord} the
 * explicit mapping back. A command written in the Record form is shown in `definitions` as a view with its
 * id whose callbacks still run on the object you wrote.
 * @example
 * ```ts
 * import { CommandCatalog } from '@agent-core/kits/interaction'
 * const commands = new CommandCatalog({ ping: { description: 'Checks the line', fields: {} } })
 * commands.ids() // ['ping']
 * ```
 */
export class CommandCatalog<Commands extends CommandMap = CommandMap> extends RegistryView<
  CommandDefinition<FieldMap, unknown, unknown>,
  keyof Commands & string
> {
  /** The commands in declaration order, each with its id. */
  readonly definitions: readonly CommandDefinition<FieldMap, unknown, unknown>[]

  /**
   * @param commands - a Record of command bodies keyed by id, or an array of definitions with ids
   * @throws `InvalidDefinitionError` for a malformed command (naming it and the field);
   *   `DuplicateIdError`, `InvalidIdError` from the core registry
   */
  constructor(commands: Commands | readonly CommandDefinition<FieldMap, unknown, unknown>[]) {
    super(
      Registry.create(toDefinitions(commands), {
        kind: 'command',
        assertDefinition: assertCommand,
      }),
    )
    this.definitions = Object.freeze(super.values().slice())
  }

  /** The definitions in declaration order: the same frozen array as {@link CommandCatalog.definitions}. */
  override values(): readonly CommandDefinition<FieldMap, unknown, unknown>[] {
    return this.definitions
  }

  /**
   * The commands as a Record keyed by id: a frozen object without a prototype, so a lookup by an inherited
   * name (`toString`, `__proto__`) finds nothing.
   */
  toRecord(): Readonly<{ [Id in keyof Commands]: CommandDefinition<FieldMap, unknown, unknown> }> {
    const record = Object.create(null) as Record<string, CommandDefinition<FieldMap, unknown, unknown>>
    for (const definition of this.definitions) {
      Object.defineProperty(record, definition.id, { value: definition, enumerable: true })
    }
    return Object.freeze(record) as { [Id in keyof Commands]: CommandDefinition<FieldMap, unknown, unknown> }
  }
}

/** The original object a command's callbacks run on, when `definitions` shows a view of it. */
const originals = new WeakMap<object, object>()

/** The object a command was written as (for the Record form, not the view with an id). */
export function commandOwner(definition: object): object {
  return originals.get(definition) ?? definition
}

function toDefinitions(commands: unknown): CommandDefinition<FieldMap, unknown, unknown>[] {
  if (Array.isArray(commands)) return [...commands]
  if (typeof commands !== 'object' || commands === null) {
    throw new InvalidDefinitionError(
      `Commands must be a Record of command bodies keyed by id, or an array of definitions with ids, but got ${describeValue(commands)}.`,
      { details: { field: 'commands', received: describeValue(commands) } },
    )
  }
  return Object.keys(commands).map((id) => {
    const body = (commands as Record<string, unknown>)[id]
    if (typeof body !== 'object' || body === null) {
      throw new InvalidDefinitionError(`Command "${id}" must be an object, but got ${describeValue(body)}.`, {
        details: { id, field: id, received: describeValue(body) },
      })
    }
    const declared = (body as { id?: unknown }).id
    if (declared !== undefined && declared !== id) {
      throw new InvalidDefinitionError(
        `Command "${id}" declares id ${describeValue(declared)}; in the Record form the key is the id. Remove the id or make it "${id}".`,
        { details: { id, field: 'id', received: describeValue(declared) } },
      )
    }
    if (declared === id) return body as CommandDefinition<FieldMap, unknown, unknown>
    const view = Object.create(body, { id: { value: id, enumerable: true } }) as CommandDefinition<
      FieldMap,
      never,
      unknown
    >
    originals.set(view, body)
    return view
  })
}

function assertCommand(definition: CommandDefinition<FieldMap, unknown, unknown>): void {
  const id = definition.id
  const owner = commandOwner(definition)
  const context = { prefix: `Command "${id}": `, details: { id } }
  // A plain object must not carry unknown keys (a misspelled `refines` must not be ignored); a class
  // instance may hold state of its own.
  const prototype = Object.getPrototypeOf(owner)
  if (prototype === Object.prototype || prototype === null) {
    for (const key of Object.keys(owner)) {
      if (!BODY_FIELDS.has(key))
        refuseField(
          'definition',
          key,
          `is not a field of a command (known: ${[...BODY_FIELDS].join(', ')})`,
          undefined,
          context,
        )
    }
  }
  const { description, fields, receiver, when, occur, refine, format } = definition
  if (typeof description !== 'string' || description.trim() === '')
    refuseField(
      'definition',
      'description',
      'must be a non-empty string (the model reads it)',
      description,
      context,
    )
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
    refuseField(
      'definition',
      'fields',
      'must be an object of fields by name (use {} for none)',
      fields,
      context,
    )
  if (
    receiver !== undefined &&
    (typeof receiver !== 'object' || receiver === null) &&
    typeof receiver !== 'function'
  )
    refuseField('definition', 'receiver', 'must be an object or be left out', receiver, context)
  for (const [name, hook] of [
    ['when', when],
    ['refine', refine],
    ['format', format],
  ] as const) {
    if (hook !== undefined && typeof hook !== 'function')
      refuseField('definition', name, 'must be a function or be left out', hook, context)
  }
  if (occur !== undefined) {
    const list = Array.isArray(occur) ? occur : [occur]
    if (Array.isArray(occur) && occur.length === 0)
      refuseField('definition', 'occur', 'is an empty array; leave it out instead', occur, context)
    list.forEach((predicate, index) => {
      if (typeof predicate !== 'function')
        refuseField(
          'definition',
          Array.isArray(occur) ? `occur[${index}]` : 'occur',
          'must be a predicate function',
          predicate,
          context,
        )
    })
  }
}

/**
 * Builds a {@link CommandCatalog}: the closed set of commands, as a Record keyed by id or as an array of
 * definitions with ids.
 * @throws `InvalidDefinitionError` for a malformed command; `DuplicateIdError` for a repeated id
 * @example
 * ```ts
 * import { defineCommandCatalog } from '@agent-core/kits/interaction'
 * const commands = defineCommandCatalog({
 *   search: { description: 'Searches products', fields: { query: { jsonSchema: { type: 'string' } } } },
 *   checkout: { description: 'Pays for the cart', fields: {} },
 * })
 * commands.toRecord().search.id // 'search'
 * ```
 */
export function defineCommandCatalog<const Commands extends CommandMap>(
  commands: Commands,
): CommandCatalog<Commands>
/**
 * Builds a {@link CommandCatalog} from an array of definitions with ids (see the Record form above).
 * @example
 * ```ts
 * import { defineCommandCatalog } from '@agent-core/kits/interaction'
 * const commands = defineCommandCatalog([{ id: 'ping', description: 'Checks the line', fields: {} }])
 * ```
 */
export function defineCommandCatalog<
  const Definitions extends readonly CommandDefinition<FieldMap, unknown, unknown>[],
>(
  commands: Definitions,
): CommandCatalog<{ readonly [Command in Definitions[number] as Command['id']]: Command }>
export function defineCommandCatalog(
  commands: CommandMap | readonly CommandDefinition<FieldMap, unknown, unknown>[],
): CommandCatalog {
  return new CommandCatalog(commands)
}
