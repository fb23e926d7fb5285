import { checkDefinition } from './internal/definition.js'
import { Publication } from './internal/publication.js'
import type { KnowledgePublication, KnowledgePublicationDefinition } from './knowledge-definition.js'

/**
 * Defines a knowledge publication: the App's way to publish material into a searchable, persistent
 * corpus. Each `publish` validates the materials (typed errors naming the field), asks `authorize`,
 * skips what is unchanged, splits the rest into retrieval passages (`TextBlocks.passages`), embeds only
 * passages whose text has no stored vector, writes each batch to the App's store in one transaction and
 * then swaps the documents' passages in the hybrid index in one step, and returns a receipt. Identity,
 * storage and the decision to publish stay with the App.
 *
 * @throws `InvalidDefinitionError` naming the field of a malformed definition
 * @example
 * ```ts
 * import { createMemoryKnowledgeStore, defineKnowledgePublication } from '@agent-core/kits/knowledge'
 *
 * const docs = defineKnowledgePublication({ id: 'docs', store: createMemoryKnowledgeStore() })
 * const receipt = await docs.publish({
 *   materials: [{ id: 'setup.md', text: '# Setup\n\nRun the installer, then sign in.\n' }],
 * })
 * console.log(receipt.published[0]?.revision, receipt.passageCount) // 1 1
 * const [hit] = await docs.search({ query: 'installer', limit: 3 })
 * console.log(hit?.id) // "setup.md@1#1"
 * ```
 */
export function defineKnowledgePublication<App = unknown>(
  definition: KnowledgePublicationDefinition<App>,
): KnowledgePublication<App> {
  return new Publication<App>(checkDefinition(definition))
}
