/**
 * Text skills: workflows written as text files and registered by the App with their tool references.
 * {@link defineTextSkillLoader} checks every registration (id, path inside the skill root, known tools,
 * duplicates) before the App's synchronous `read` port is called for any file, then parses each file into a
 * catalog description and a body. The kit reads nothing itself.
 *
 * @example
 * ```ts
 * import { defineTextSkillLoader } from '@agent-core/kits/text-skills'
 *
 * const loader = defineTextSkillLoader({ tools: ['search', 'fetch'] })
 * const skills = loader.load(
 *   { entries: [{ id: 'research', kind: 'text-workflow', entry: 'research.md', toolIds: ['search'] }] },
 *   { read: () => 'Find sources and summarise them.\n' },
 * )
 * skills.ids() // ['research']
 * ```
 *
 * @module
 */
export { type ParsedTextSkill, parseTextSkill } from './parse-text-skill.js'
export {
  defineTextSkillLoader,
  type KnownTools,
  type TextSkill,
  type TextSkillCatalogEntry,
  type TextSkillEntry,
  type TextSkillErrorFactories,
  type TextSkillKind,
  type TextSkillLoadContext,
  type TextSkillLoader,
  type TextSkillLoaderDefinition,
  type TextSkillLoadInput,
  type TextSkillParser,
} from './text-skill-loader.js'
