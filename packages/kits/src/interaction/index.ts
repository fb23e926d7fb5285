/**
 * Interaction protocols: the commands a model (or a UI) may submit, declared once. A protocol compiles
 * each command's JSON Schemas (`inputJsonSchema` for the complete input, `modelJsonSchema` for exactly
 * what a model may submit, `fieldSchemas` per field), checks and converts what comes in (`when`, field
 * `assert`/`parse`, `occur`, `refine`, `format`, all synchronous and called on their original receivers),
 * and, bound to named handlers, dispatches it. The App names the field that selects the command.
 * `dispatch` never runs a command the protocol does not register, whatever the input claims.
 *
 * @example
 * ```ts
 * import { bindInteraction, defineInteractionProtocol } from '@agent-core/kits/interaction'
 * const protocol = defineInteractionProtocol({
 *   commandField: 'action',
 *   commands: {
 *     search: { description: 'Searches products', fields: { query: { jsonSchema: { type: 'string' } } } },
 *   },
 * })
 * const shop = bindInteraction(protocol, { search: ({ query }: { query: unknown }) => [`result for ${String(query)}`] })
 * shop.dispatch({ action: 'search', query: 'tea' }, undefined) // ['result for tea']
 * ```
 *
 * @module
 */
export { type BoundInteraction, bindInteraction, type CommandHandlers } from './bind-interaction.js'
export {
  type CommandBody,
  CommandCatalog,
  type CommandDefinition,
  type CommandInput,
  type CommandMap,
  type CommandValue,
  defineCommandCatalog,
  type FieldMap,
  type FieldValue,
  type OccurPredicate,
} from './command-catalog.js'
export {
  CommandRejectedError,
  type CommandRejectedErrorDetails,
  CommandSelectionError,
  type CommandSelectionErrorDetails,
  type SelectionReason,
} from './interaction-errors.js'
export { Interaction } from './interaction-namespace.js'
export {
  type CommandSelection,
  type CompiledCommand,
  defineInteractionProtocol,
  InteractionProtocol,
  type InteractionProtocolDefinition,
  type SelectionProblem,
} from './interaction-protocol.js'
export { defineProtocolField, type ProtocolField } from './protocol-field.js'
