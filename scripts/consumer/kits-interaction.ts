import assert from 'node:assert/strict'
import {
  bindInteraction,
  CommandSelectionError,
  defineInteractionProtocol,
  defineProtocolField,
} from '@agent-core/kits/interaction'

const shop = defineInteractionProtocol({
  commandField: 'action',
  commands: {
    search: {
      description: 'Searches the catalog',
      fields: {
        query: defineProtocolField<string>({ jsonSchema: { type: 'string', minLength: 1 } }),
        limit: defineProtocolField<number>({
          jsonSchema: { type: 'integer', minimum: 1, maximum: 10 },
          default: 3,
        }),
      },
    },
  },
})
assert.deepEqual(shop.command('search').modelJsonSchema.required, ['action', 'query'])

const app = bindInteraction(shop, { search: ({ query, limit }) => `${query}, first ${limit}` })
assert.equal(app.dispatch({ action: 'search', query: 'green tea' }, undefined), 'green tea, first 3')
// A message naming no registered command runs nothing.
assert.throws(
  () => app.dispatch({ action: 'toString' }, undefined),
  (error) => CommandSelectionError.isInstance(error),
)
