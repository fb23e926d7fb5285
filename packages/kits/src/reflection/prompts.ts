import type { ChatMessage } from '@agent-core/core'
import type { ReflectionRound } from './reflection-round.js'

/**
 * What the prompt builders see: the task conversation, the criteria, the round about to run and the rounds
 * before it. `draft` is the draft under review (critique) or to rewrite (revise); `issues` the critic's
 * list (revise).
 * @example
 * ```ts
 * import type { ReflectionPromptInput } from '@agent-core/kits/reflection'
 * const short = (input: ReflectionPromptInput) => input.round === 1
 * ```
 */
export interface ReflectionPromptInput {
  readonly task: readonly ChatMessage[]
  readonly criteria: string | undefined
  /** The round the messages are for, from 1. */
  readonly round: number
  readonly previous: readonly ReflectionRound[]
  readonly draft: string
  readonly issues: readonly string[]
}

/**
 * How the messages of each step are written. Each builder returns the conversation its step reads; the
 * critic's verdict instructions (the schema) are added to its system message by the reflection, so a
 * custom `critique` never has to repeat them.
 * @example
 * ```ts
 * import type { ReflectionPrompts } from '@agent-core/kits/reflection'
 * const prompts: ReflectionPrompts = {
 *   revise: ({ task, draft, issues }) => [
 *     ...task,
 *     { role: 'assistant', content: draft },
 *     { role: 'user', content: `Fix: ${issues.join('; ')}. Answer with the new text only.` },
 *   ],
 * }
 * ```
 */
export interface ReflectionPrompts {
  /** The drafter's conversation. Default: the task as given. */
  readonly draft?:
    | ((input: Omit<ReflectionPromptInput, 'draft' | 'issues'>) => readonly ChatMessage[])
    | undefined
  /** The critic's conversation. Default: {@link defaultCritiquePrompt}. */
  readonly critique?: ((input: ReflectionPromptInput) => readonly ChatMessage[]) | undefined
  /** The reviser's conversation. Default: {@link defaultRevisePrompt}. */
  readonly revise?: ((input: ReflectionPromptInput) => readonly ChatMessage[]) | undefined
}

/** The system text of the default critique. */
export const CRITIC_SYSTEM =
  'You are a careful reviewer. You check a draft against its task and, when given, its criteria. Accept the draft when it fully does what the task asks. Otherwise ask for a revision and list every problem as one concrete, actionable issue. Do not rewrite the draft yourself.'

function contentText(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content
  return message.content.map((part) => (part.type === 'text' ? part.text : `[image: ${part.url}]`)).join('')
}

/** The task as text: a single user message as it is, a longer conversation with its roles. */
export function taskText(task: readonly ChatMessage[]): string {
  const only = task[0]
  if (task.length === 1 && only?.role === 'user') return contentText(only)
  return task
    .filter((message) => message.role !== 'tool')
    .map((message) => `${message.role}: ${contentText(message)}`)
    .join('\n\n')
}

/**
 * The default critique: a system message with the reviewer's role, then one user message with the task,
 * the criteria, the issues of the previous round (to check they were fixed) and the draft.
 * @example
 * ```ts
 * import { defaultCritiquePrompt } from '@agent-core/kits/reflection'
 * const messages = defaultCritiquePrompt({
 *   task: [{ role: 'user', content: 'Name three primes.' }],
 *   criteria: undefined,
 *   round: 1,
 *   previous: [],
 *   draft: '2, 3, 4',
 *   issues: [],
 * })
 * ```
 */
export function defaultCritiquePrompt(input: ReflectionPromptInput): readonly ChatMessage[] {
  const parts = [`## Task\n${taskText(input.task)}`]
  if (input.criteria !== undefined) parts.push(`## Criteria\n${input.criteria}`)
  const earlier = input.previous.at(-1)?.verdict
  if (earlier !== undefined && earlier.issues.length > 0) {
    parts.push(
      `## Issues raised on the previous draft (check that each one is fixed)\n${earlier.issues.map((issue) => `- ${issue}`).join('\n')}`,
    )
  }
  parts.push(`## Draft to review (round ${input.round})\n${input.draft}`)
  return [
    { role: 'system', content: CRITIC_SYSTEM },
    { role: 'user', content: parts.join('\n\n') },
  ]
}

/**
 * The default revision: the task conversation, the draft as the assistant's answer, then the issues as a
 * user message asking for the complete revised answer.
 * @example
 * ```ts
 * import { defaultRevisePrompt } from '@agent-core/kits/reflection'
 * const messages = defaultRevisePrompt({
 *   task: [{ role: 'user', content: 'Name three primes.' }],
 *   criteria: undefined,
 *   round: 2,
 *   previous: [],
 *   draft: '2, 3, 4',
 *   issues: ['4 is not prime.'],
 * })
 * ```
 */
export function defaultRevisePrompt(input: ReflectionPromptInput): readonly ChatMessage[] {
  return [
    ...input.task,
    { role: 'assistant', content: input.draft },
    {
      role: 'user',
      content: `A reviewer asked for changes:\n${input.issues.map((issue) => `- ${issue}`).join('\n')}\n\nWrite the complete revised answer: fix every point above and keep what was right. Reply with the revised answer only.`,
    },
  ]
}
