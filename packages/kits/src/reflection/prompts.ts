import { type ChatMessage, describeValue, refuseField } from '@agent-core/core'
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

/**
 * The system text of the default critique.
 * @example
 * ```ts
 * import { CRITIC_SYSTEM, type ReflectionPrompts } from '@agent-core/kits/reflection'
 * const prompts: ReflectionPrompts = {
 *   critique: ({ task, draft }) => [
 *     { role: 'system', content: `${CRITIC_SYSTEM} Be strict about dates.` },
 *     ...task,
 *     { role: 'user', content: `Draft:\n${draft}` },
 *   ],
 * }
 * ```
 */
export const CRITIC_SYSTEM =
  'You are a careful reviewer. You check a draft against its task and, when given, its criteria. Accept the draft when it fully does what the task asks. Otherwise ask for a revision and list every problem as one concrete, actionable issue. Do not rewrite the draft yourself.'

function refuse(field: string, what: string, value: unknown): never {
  refuseField('input', field, `must be ${what}, but got ${describeValue(value)}`, value)
}

/** Checks what a default prompt builder reads (it is public, so it may be handed anything). */
function checkInput(input: unknown): ReflectionPromptInput {
  if (typeof input !== 'object' || input === null)
    refuse('input', 'a prompt input { task, draft, issues, ... }', input)
  const { task, criteria, round, previous, draft, issues } = input as Record<string, unknown>
  if (!Array.isArray(task)) refuse('input.task', 'an array of chat messages', task)
  task.forEach((message: unknown, index) => {
    const record = message as { role?: unknown; content?: unknown } | null
    if (
      typeof record !== 'object' ||
      record === null ||
      typeof record.role !== 'string' ||
      (typeof record.content !== 'string' && !Array.isArray(record.content))
    ) {
      refuse(`input.task[${index}]`, 'a chat message { role, content }', message)
    }
  })
  if (criteria !== undefined && typeof criteria !== 'string')
    refuse('input.criteria', 'a string or undefined', criteria)
  if (typeof round !== 'number' || !Number.isSafeInteger(round) || round < 1)
    refuse('input.round', 'a round number from 1', round)
  if (!Array.isArray(previous)) refuse('input.previous', 'an array of rounds', previous)
  if (typeof draft !== 'string') refuse('input.draft', 'a string', draft)
  if (!Array.isArray(issues) || !issues.every((issue) => typeof issue === 'string')) {
    refuse('input.issues', 'an array of strings', issues)
  }
  return input as ReflectionPromptInput
}

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
  checkInput(input)
  const parts = [`## Task\n${taskText(input.task)}`]
  if (input.criteria !== undefined) parts.push(`## Criteria\n${input.criteria}`)
  const earlier = (input.previous.at(-1) as Partial<ReflectionRound> | undefined)?.verdict
  if (earlier !== undefined && Array.isArray(earlier.issues) && earlier.issues.length > 0) {
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
  checkInput(input)
  return [
    ...input.task,
    { role: 'assistant', content: input.draft },
    {
      role: 'user',
      content: `A reviewer asked for changes:\n${input.issues.map((issue) => `- ${issue}`).join('\n')}\n\nWrite the complete revised answer: fix every point above and keep what was right. Reply with the revised answer only.`,
    },
  ]
}
