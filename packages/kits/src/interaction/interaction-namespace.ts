import { bindInteraction } from './bind-interaction.js'
import { CommandCatalog, defineCommandCatalog } from './command-catalog.js'
import { defineInteractionProtocol, InteractionProtocol } from './interaction-protocol.js'
import { defineProtocolField } from './protocol-field.js'

/**
 * The interaction kit as one namespace: `Interaction.Protocol` (the public constructor),
 * `Interaction.define`, `Interaction.bind`, `Interaction.field` and `Interaction.Commands`.
 * @example
 * ```ts
 * import { Interaction } from '@agent-core/kits/interaction'
 * const commands = Interaction.Commands.define({ ping: { description: 'Checks the line', fields: {} } })
 * const protocol = new Interaction.Protocol({ commandField: 'op', commands })
 * const bound = Interaction.bind(protocol, { ping: () => 'pong' })
 * ```
 */
export const Interaction = Object.freeze({
  Protocol: InteractionProtocol,
  define: defineInteractionProtocol,
  bind: bindInteraction,
  field: defineProtocolField,
  /**
   * The command catalog: `Interaction.Commands.Catalog` (the public constructor) and
   * `Interaction.Commands.define`.
   */
  Commands: Object.freeze({
    Catalog: CommandCatalog,
    define: defineCommandCatalog,
  }),
})
