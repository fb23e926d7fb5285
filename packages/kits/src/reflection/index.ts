/**
 * Reflection: a bounded critique-and-revise cycle. {@link defineReflection} writes a draft, asks a critic
 * for its verdict (accept, or revise with a list of issues) through the models kit's structured-output
 * contract, has a reviser rewrite the draft from the issues, and goes round again, until the critic
 * accepts, the round cap, the attempt or token budget, or the signal stops it. Drafter, critic and reviser
 * are each a `ModelCalls` binding or a loop agent; the result holds every round with its verdict.
 *
 * @example
 * ```ts
 * import { AttemptBudget } from '@agent-core/core'
 * import { defineModelBinding, ModelCalls } from '@agent-core/kits/models'
 * import { defineReflection } from '@agent-core/kits/reflection'
 *
 * const verdicts = ['{"decision": "revise", "issues": ["Say which year."]}', '{"decision": "accept", "issues": []}']
 * const models = new ModelCalls([
 *   defineModelBinding({ id: 'writer', identity: 'toy-writer', invoke: () => 'The wall fell in 1989.' }),
 *   defineModelBinding({ id: 'critic', identity: 'toy-critic', invoke: () => verdicts.shift() ?? '' }),
 * ])
 * const reflection = defineReflection({
 *   drafter: { models, modelId: 'writer', timeoutMs: 30_000 },
 *   critic: { models, modelId: 'critic', timeoutMs: 30_000 },
 *   maxRounds: 3,
 * })
 * const result = await reflection.run({ prompt: 'When did the Berlin wall fall?' }, { attemptBudget: new AttemptBudget(6) })
 * // result.reason === 'accepted', result.rounds.length === 2, result.attempts === 4
 * ```
 *
 * @module
 */
export {
  DEFAULT_MAX_ROUNDS,
  defineReflection,
  type Reflection,
  type ReflectionDefinition,
  type ReflectionRequest,
  type ReflectionResult,
  type ReflectionResultBase,
  type ReflectionStep,
} from './define-reflection.js'
export {
  CRITIC_SYSTEM,
  defaultCritiquePrompt,
  defaultRevisePrompt,
  type ReflectionPromptInput,
  type ReflectionPrompts,
} from './prompts.js'
export type { ReflectionRound } from './reflection-round.js'
export {
  ReflectionStepError,
  type ReflectionStepErrorDetails,
  type ReflectionStepName,
} from './reflection-step-error.js'
export { REFLECTION_VERDICT_SCHEMA, type ReflectionVerdict, reflectionVerdictOutput } from './verdict.js'
