/**
 * Prompt and parsing helpers with no I/O and no model: `{{name}}` templates (partial rendering, the names
 * a template misses and the values it does not use), chat prompts from role/template parts, parsers for
 * what models write (lines, lists, one choice of a set, the first fenced block, the first JSON object in
 * prose) with a correction prompt for an output they refuse, and grounded prompts (numbered context
 * blocks, citations mapped back to passages, an exact "not in the context" answer).
 *
 * @example
 * ```ts
 * import { definePromptTemplate, groundedPrompt, parseCitations, parseList } from '@agent-core/kits/prompts'
 *
 * const template = definePromptTemplate('List three {{kind}} in {{country}}.')
 * template.partial({ country: 'France' }).render({ kind: 'ports' }) // 'List three ports in France.'
 * parseList('Sure:\n- Brest\n- Marseille\n- Le Havre') // ['Brest', 'Marseille', 'Le Havre']
 *
 * const prompt = groundedPrompt('When is high tide?', ['High tide is at 06:12.'])
 * parseCitations('At 06:12 [1].', prompt.passages).citations.length // 1
 * ```
 *
 * @module
 */
export {
  type ChatPrompt,
  type ChatPromptMessage,
  type ChatPromptPart,
  defineChatPrompt,
} from './chat-prompt.js'
export {
  type CitedAnswer,
  type GroundedPrompt,
  type GroundedPromptOptions,
  type GroundingPassage,
  groundedPrompt,
  NOT_IN_CONTEXT,
  parseCitations,
} from './grounded-prompt.js'
export {
  type ChoiceOptions,
  type CorrectionOptions,
  correctionPrompt,
  type FencedBlock,
  parseChoice,
  parseFencedBlock,
  parseJsonObject,
  parseLines,
  parseList,
} from './output-parsers.js'
export {
  MissingPromptVariablesError,
  type MissingPromptVariablesErrorDetails,
  OutputParseError,
  type OutputParseErrorDetails,
  type OutputParserName,
} from './prompt-errors.js'
export {
  definePromptTemplate,
  type PromptCheck,
  type PromptSegment,
  type PromptTemplate,
  type PromptValue,
} from './prompt-template.js'
