import { describeValue, InvalidDefinitionError, refuseField } from '@agent-core/core'
import type { CommandMap, CommandValue } from './command-catalog.js'
import { InteractionProtocol } from './interaction-protocol.js'

/**
 * One handler per command, named by command id: a plain object of functions, or a class instance whose
 * methods are called on it.
 * @example
 * ```ts
 * import type { CommandHandlers } from '@agent-core/kits/interaction'
 * type Handlers = CommandHandlers<{ ping: { description: string; fields: {} } }, { userId: string }>
 * const handlers: Handlers = { ping: (_value, context) => `pong for ${context.userId}` }
 * ```
 */
export type CommandHandlers<Commands extends CommandMap, Context = unknown> = {
  // A method signature, so that a handler may declare the context it expects more narrowly.
  [Id in keyof Commands]: { handle(value: CommandValue<Commands[Id]>, context: Context): unknown }['handle']
}

/**
 * A protocol bound to its handlers.
 * @example
 * ```ts
 * import type { BoundInteraction } from '@agent-core/kits/interaction'
 * const run = (bound: BoundInteraction, message: unknown) => bound.dispatch(message, undefined)
 * ```
 */
export interface BoundInteraction<
  Commands extends CommandMap = CommandMap,
  Context = unknown,
  Handlers extends CommandHandlers<Commands, Context> = CommandHandlers<Commands, Context>,
> {
  readonly protocol: InteractionProtocol<Commands, Context>
  /**
   * Selects and checks the command the message names (see `InteractionProtocol.select`) and runs its
   * handler on the handlers object with the converted value and `context`, returning what the handler
   * returns (a Promise stays a Promise). A message that names no registered command, or fails any check,
   * runs nothing.
   */
  dispatch(message: unknown, context: Context): ReturnType<Handlers[keyof Commands]>
}

type Handler = (this: unknown, value: unknown, context: unknown) => unknown

/** Names bindInteraction in its refusals. */
const BIND = Object.freeze({ prefix: 'bindInteraction: ' })

/** Finds a handler on the object or its own prototypes, never on Object.prototype or Function.prototype. */
function findHandler(handlers: object, id: string): unknown {
  let current: object | null = handlers
  while (current !== null && current !== Object.prototype && current !== Function.prototype) {
    const descriptor = Object.getOwnPropertyDescriptor(current, id)
    if (descriptor) return 'value' in descriptor ? descriptor.value : descriptor.get?.call(handlers)
    current = Object.getPrototypeOf(current)
  }
  return undefined
}

/**
 * Binds a protocol to named handlers, one per command. Each handler is looked up once, now (an own
 * property, a method of the class, or a prototype getter; never a member every object inherits, such as
 * `toString`), and called later on the object you gave, so a class instance keeps its private state. A
 * plain object may hold no handler for a command the protocol does not have (a misspelled name is
 * refused). `dispatch` never runs a command the protocol does not register, whatever the message
 * claims.
 * @throws `InvalidDefinitionError` for a missing handler, a handler that is not a function, or an extra
 *   handler on a plain object
 * @example
 * ```ts
 * import { bindInteraction, defineInteractionProtocol } from '@agent-core/kits/interaction'
 * const protocol = defineInteractionProtocol({
 *   commandField: 'op',
 *   commands: { add: { description: 'Adds', fields: { a: { jsonSchema: { type: 'number' } }, b: { jsonSchema: { type: 'number' } } } } },
 * })
 * const calculator = bindInteraction(protocol, { add: ({ a, b }: { a: unknown; b: unknown }) => Number(a) + Number(b) })
 * calculator.dispatch({ op: 'add', a: 1, b: 2 }, undefined) // 3
 * ```
 */
export function bindInteraction<
  Commands extends CommandMap,
  Context,
  Handlers extends CommandHandlers<Commands, Context>,
>(
  protocol: InteractionProtocol<Commands, Context>,
  handlers: Handlers,
): BoundInteraction<Commands, Context, Handlers> {
  if (!(protocol instanceof InteractionProtocol)) {
    refuseField(
      'definition',
      'protocol',
      `must be an InteractionProtocol (defineInteractionProtocol), but got ${describeValue(protocol)}`,
      protocol,
      BIND,
    )
  }
  if ((typeof handlers !== 'object' && typeof handlers !== 'function') || handlers === null) {
    refuseField(
      'definition',
      'handlers',
      `must be an object of handlers named by command id, but got ${describeValue(handlers)}`,
      handlers,
      BIND,
    )
  }
  const ids = protocol.commands.ids()
  const bound = new Map<string, Handler>()
  for (const id of ids) {
    const handler = findHandler(handlers, id)
    if (typeof handler !== 'function') {
      throw new InvalidDefinitionError(
        handler === undefined
          ? `No handler for command "${id}". Give the handlers object a function named "${id}".`
          : `The handler for command "${id}" must be a function, but is ${describeValue(handler)}.`,
        { details: { id, field: `handlers.${id}`, received: describeValue(handler) } },
      )
    }
    bound.set(id, handler as Handler)
  }
  const prototype = Object.getPrototypeOf(handlers)
  if (prototype === Object.prototype || prototype === null) {
    for (const key of Object.keys(handlers)) {
      if (!protocol.commands.has(key)) {
        throw new InvalidDefinitionError(
          `The handlers object has "${key}", which is no command of the protocol (commands: ${ids.map((id) => `"${id}"`).join(', ')}). Remove it or fix its name.`,
          { details: { id: key, field: `handlers.${key}` } },
        )
      }
    }
  }
  return Object.freeze({
    protocol,
    dispatch(message: unknown, context: Context) {
      const selection = protocol.select(message, context)
      const handler = bound.get(selection.commandId) as Handler
      return Reflect.apply(handler, handlers, [selection.value, context]) as ReturnType<
        Handlers[keyof Commands]
      >
    },
  })
}
