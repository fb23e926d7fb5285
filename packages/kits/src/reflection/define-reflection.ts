import {
  type AttemptBudget,
  addUsage,
  assertNotThenable,
  BudgetExhaustedError,
  type ChatMessage,
  childContext,
  createOperationContext,
  type DiagnosticSpan,
  describeValue,
  FieldReader,
  type ModelUsage,
  type OperationContext,
  type OperationContextInit,
  type ResponseFormat,
  refuseField,
  ZERO_USAGE,
} from '@agent-core/core'
import type { Agent } from '@agent-core/kits/loop'
import type {
  ModelCallsTarget,
  StructuredAttempt,
  StructuredMode,
  StructuredOutput,
} from '@agent-core/kits/models'
import { isRecord } from './internal/fields.js'
import { callStep, readStep, type Step, type StepReply } from './internal/step.js'
import {
  defaultCritiquePrompt,
  defaultRevisePrompt,
  type ReflectionPromptInput,
  type ReflectionPrompts,
} from './prompts.js'
import type { ReflectionRound } from './reflection-round.js'
import type { ReflectionStepName } from './reflection-step-error.js'
import { type ReflectionVerdict, reflectionVerdictOutput } from './verdict.js'

/**
 * Default cap on rounds (drafts reviewed) per run.
 * @example
 * ```ts
 * import { DEFAULT_MAX_ROUNDS } from '@agent-core/kits/reflection'
 * const maxRounds = DEFAULT_MAX_ROUNDS + 2
 * ```
 */
export const DEFAULT_MAX_ROUNDS = 3

/**
 * A step of a reflection: a binding of a `ModelCalls` catalog (`{ models, modelId, timeoutMs }`, whose input
 * is a `ModelRequest` and whose output is the reply text or a `ModelResponse`) or a loop agent from
 * `defineAgent` (it runs on the step's conversation, with its own system text, tools and caps).
 * @example
 * ```ts
 * import type { ReflectionStep } from '@agent-core/kits/reflection'
 * import type { ModelCalls } from '@agent-core/kits/models'
 * declare const models: ModelCalls
 * const critic: ReflectionStep = { models, modelId: 'critic', timeoutMs: 30_000 }
 * ```
 */
export type ReflectionStep<App = unknown> = ModelCallsTarget | Agent<unknown, App>

/**
 * A reflection: who drafts, who criticizes, who revises, and the caps of a run. Static: nothing here
 * belongs to one run.
 * @example
 * ```ts
 * import type { ReflectionDefinition } from '@agent-core/kits/reflection'
 * import type { ModelCalls } from '@agent-core/kits/models'
 * declare const models: ModelCalls
 * const definition: ReflectionDefinition = {
 *   drafter: { models, modelId: 'writer', timeoutMs: 30_000 },
 *   critic: { models, modelId: 'critic', timeoutMs: 30_000 },
 *   criteria: 'At most 50 words; names its source.',
 *   maxRounds: 3,
 * }
 * ```
 */
export interface ReflectionDefinition<App = unknown> {
  /** Writes the first draft from the task. May be left out when every run is given a `draft`. */
  readonly drafter?: ReflectionStep<App> | undefined
  /** Gives the verdict on each draft, read through the models kit's structured-output contract. */
  readonly critic: ReflectionStep<App>
  /** Rewrites a draft from the critic's issues. Default: the drafter. */
  readonly reviser?: ReflectionStep<App> | undefined
  /** What a good answer must satisfy, in words the critic reads. A run may give its own. */
  readonly criteria?: string | undefined
  /** Rounds (drafts reviewed) per run: a safe integer of at least 1. Default 3. */
  readonly maxRounds?: number | undefined
  /** Tokens per run, over every step (reported usage, and the estimate of the next call). Default: none. */
  readonly maxTokens?: number | undefined
  /** Times a verdict that does not match its schema is sent back to the critic: at least 0. Default 1. */
  readonly maxCorrections?: number | undefined
  /** For a binding critic: also ask for the provider's JSON mode (`json-object`, `json-schema`). Default `prompt`. */
  readonly mode?: StructuredMode | undefined
  /** Replaces the conversation a step reads. */
  readonly prompts?: ReflectionPrompts | undefined
  /** Counts the tokens of a step's messages for the token budget. Default: the loop kit's `estimateTokens`. */
  readonly estimateTokens?: ((messages: readonly ChatMessage[]) => number) | undefined
}

/**
 * One run of a reflection: the task (`prompt` and/or `messages`), optionally a first draft to review, and
 * this run's own criteria and token budget.
 * @example
 * ```ts
 * import type { ReflectionRequest } from '@agent-core/kits/reflection'
 * const request: ReflectionRequest = { prompt: 'Explain RRF in two sentences.', maxTokens: 4_000 }
 * ```
 */
export interface ReflectionRequest {
  /** A user message added after `messages`. */
  readonly prompt?: string | undefined
  /** The task conversation. */
  readonly messages?: readonly ChatMessage[] | undefined
  /** A draft to review first, instead of asking the drafter for one. */
  readonly draft?: string | undefined
  /** This run's criteria, instead of the definition's. */
  readonly criteria?: string | undefined
  /** This run's token budget; with the definition's too, the lower one applies. */
  readonly maxTokens?: number | undefined
  /** Each round once it is complete (or cut short), synchronously, in order. */
  readonly onRound?: ((round: ReflectionRound) => void) | undefined
}

/**
 * The fields every {@link ReflectionResult} has, whatever its `reason`: the rounds, the usage and the
 * attempts taken.
 * @example
 * ```ts
 * import type { ReflectionResultBase } from '@agent-core/kits/reflection'
 * const summary = (result: ReflectionResultBase) => `${result.rounds.length} rounds, ${result.attempts} attempts`
 * ```
 */
export interface ReflectionResultBase {
  /** Every round, in order, each with its verdict. */
  readonly rounds: readonly ReflectionRound[]
  /** Tokens spent over every step, as the steps reported them. */
  readonly usage: ModelUsage
  /** Attempts taken from `context.attemptBudget` (0 without one). */
  readonly attempts: number
}

/**
 * How a reflection ended, discriminated by `reason`: `accepted` (the critic accepted `output`),
 * `round-limit` (the last round's verdict still asked for a revision), `token-limit` or `attempt-limit` (a
 * budget left no room for the next call), `stopped` (the signal), or `error` (a step failed; `error` says
 * why). `output` is always the newest draft; outside `accepted` it may be missing (no draft was written)
 * or unreviewed (see the last round's verdict).
 * @example
 * ```ts
 * import type { ReflectionResult } from '@agent-core/kits/reflection'
 * function answer(result: ReflectionResult): string {
 *   if (result.reason === 'accepted') return result.output
 *   return result.output ?? `no draft (${result.reason})`
 * }
 * ```
 */
export type ReflectionResult =
  | (ReflectionResultBase & {
      readonly reason: 'accepted'
      readonly output: string
      readonly verdict: ReflectionVerdict
    })
  | (ReflectionResultBase & {
      readonly reason: 'round-limit' | 'token-limit' | 'attempt-limit' | 'stopped'
      readonly output: string | undefined
    })
  | (ReflectionResultBase & {
      readonly reason: 'error'
      readonly output: string | undefined
      readonly error: unknown
    })

/**
 * A reflection built by {@link defineReflection}.
 * @example
 * ```ts
 * import type { AttemptBudget } from '@agent-core/core'
 * import type { Reflection, ReflectionResult } from '@agent-core/kits/reflection'
 * async function summarize(reflection: Reflection, attemptBudget: AttemptBudget): Promise<ReflectionResult> {
 *   return reflection.run({ prompt: 'Summarize the incident report.' }, { attemptBudget })
 * }
 * ```
 */
export interface Reflection<App = unknown> {
  readonly maxRounds: number
  readonly maxTokens: number | undefined
  /**
   * The critic's verdict contract (the models kit's `defineStructuredOutput`): its instructions, parser,
   * corrections and `StructuredOutputError`. Give it to a critic agent's `structuredAnswer` to make its
   * answers verdicts too.
   */
  readonly verdict: StructuredOutput<ReflectionVerdict>
  /**
   * Runs the cycle: draft, verdict, revision, verdict, ... until the critic accepts, the round cap, a
   * budget or the signal stops it. Resolves for everything that happens in the run (see
   * {@link ReflectionResult}); rejects only for a malformed request or context.
   */
  run(
    request: ReflectionRequest,
    context?: OperationContext<App> | OperationContextInit<App>,
  ): Promise<ReflectionResult>
}

type Prompt = (input: ReflectionPromptInput) => unknown

interface Compiled {
  readonly drafter: Step | undefined
  readonly critic: Step
  readonly reviser: Step
  readonly criteria: string | undefined
  readonly maxRounds: number
  readonly maxTokens: number | undefined
  readonly output: StructuredOutput<ReflectionVerdict>
  readonly responseFormat: ResponseFormat | undefined
  readonly draftPrompt: Prompt | undefined
  readonly critiquePrompt: Prompt
  readonly revisePrompt: Prompt
  readonly prompts: object | undefined
  /** The definition's `estimateTokens`; undefined for the default, the loop kit's (see {@link loopEstimate}). */
  readonly estimate: TokenEstimate | undefined
  readonly holder: object
}

type TokenEstimate = (messages: readonly ChatMessage[]) => number

let loopEstimate: TokenEstimate | undefined

/**
 * The default token estimate, the loop kit's `estimateTokens`, imported by the first run that has a token
 * budget and no `estimateTokens` of its own: nothing else of this kit uses the loop's code (steps that are
 * agents come from the App, which loaded the loop to define them), so importing the reflection kit does not
 * load the loop (with the tools kit it needs, about 200 KB of built code; docs/design/cold-import.md).
 */
async function loadLoopEstimate(): Promise<TokenEstimate> {
  loopEstimate ??= (await import('@agent-core/kits/loop')).estimateTokens
  return loopEstimate
}

function compile(definition: unknown): Compiled {
  const fields: FieldReader = new FieldReader(
    definition,
    'definition',
    'a reflection definition { drafter?, critic, reviser?, ... }',
    'definition',
  )
  const drafterValue = fields.get('drafter')
  const drafter = drafterValue === undefined ? undefined : readStep(drafterValue, 'definition.drafter')
  const critic = readStep(fields.get('critic'), 'definition.critic')
  const reviserValue = fields.get('reviser')
  const reviser = reviserValue === undefined ? drafter : readStep(reviserValue, 'definition.reviser')
  if (reviser === undefined) {
    fields.fail('reviser', 'is needed when there is no drafter (someone has to revise the drafts)', undefined)
  }
  const criteria = fields.string('criteria')
  const maxRounds = fields.integer('maxRounds', 1) ?? DEFAULT_MAX_ROUNDS
  const maxTokens = fields.integer('maxTokens', 1)
  const maxCorrections = fields.integer('maxCorrections', 0) ?? 1
  const mode: unknown = fields.get('mode') ?? 'prompt'
  if (mode !== 'prompt' && mode !== 'json-object' && mode !== 'json-schema') {
    fields.fail(
      'mode',
      `must be "prompt", "json-object" or "json-schema", but got ${describeValue(mode)}`,
      mode,
    )
  }
  const promptsValue = fields.get('prompts')
  let draftPrompt: Prompt | undefined
  let critiquePrompt: Prompt = defaultCritiquePrompt
  let revisePrompt: Prompt = defaultRevisePrompt
  if (promptsValue !== undefined) {
    const prompts: FieldReader = new FieldReader(
      promptsValue,
      'definition.prompts',
      'an object { draft?, critique?, revise? }',
      'definition',
    )
    draftPrompt = prompts.func<Prompt>('draft')
    critiquePrompt = prompts.func<Prompt>('critique') ?? critiquePrompt
    revisePrompt = prompts.func<Prompt>('revise') ?? revisePrompt
    prompts.done()
  }
  const estimate = fields.func<TokenEstimate>('estimateTokens')
  fields.done()
  const output = reflectionVerdictOutput({ maxCorrections })
  return {
    drafter,
    critic,
    reviser: reviser as Step,
    criteria,
    maxRounds,
    maxTokens,
    output,
    responseFormat: output.responseFormat(mode),
    draftPrompt,
    critiquePrompt,
    revisePrompt,
    prompts: promptsValue as object | undefined,
    estimate,
    holder: definition as object,
  }
}

interface ParsedRequest {
  readonly task: readonly ChatMessage[]
  readonly draft: string | undefined
  readonly criteria: string | undefined
  readonly maxTokens: number | undefined
  readonly onRound: ((round: ReflectionRound) => unknown) | undefined
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool'])

/** Checks a conversation's shape (roles and text); `kind` picks the error class. */
function readConversation(value: unknown, field: string, kind: 'input' | 'output'): readonly ChatMessage[] {
  const fail = (at: string, problem: string, received: unknown): never =>
    kind === 'input'
      ? refuseField('input', at, problem, received)
      : refuseField('output', at, problem, received, { details: { hook: field } })
  if (!Array.isArray(value))
    return fail(field, `must be an array of chat messages, but got ${describeValue(value)}`, value)
  const messages: ChatMessage[] = []
  for (let index = 0; index < value.length; index++) {
    const message: unknown = value[index]
    const at = `${field}[${index}]`
    if (!isRecord(message) || !ROLES.has(message.role as string)) {
      fail(
        at,
        `must be a chat message with role system, user, assistant or tool, but got ${describeValue(message)}`,
        message,
      )
    }
    const record = message as Record<string, unknown>
    if (typeof record.content !== 'string' && !(record.role === 'user' && Array.isArray(record.content))) {
      fail(`${at}.content`, `must be a string, but got ${describeValue(record.content)}`, record.content)
    }
    messages.push(record as unknown as ChatMessage)
  }
  return messages
}

function readRequest(value: unknown, hasDrafter: boolean): ParsedRequest {
  const fields: FieldReader = new FieldReader(
    value,
    'request',
    'a reflection request { prompt?, messages?, draft?, ... }',
    'input',
  )
  const prompt = fields.string('prompt', { empty: true })
  const given = fields.get('messages')
  const draft = fields.string('draft', { empty: true })
  const criteria = fields.string('criteria')
  const maxTokens = fields.integer('maxTokens', 1)
  const onRound = fields.func<(round: ReflectionRound) => unknown>('onRound')
  fields.done()
  const task = [...(given === undefined ? [] : readConversation(given, 'request.messages', 'input'))]
  if (prompt !== undefined) task.push({ role: 'user', content: prompt })
  if (task.length === 0) {
    refuseField(
      'input',
      'request.prompt',
      'must be given when request.messages is empty or left out: a reflection needs a task, so give prompt, messages, or both',
      prompt,
    )
  }
  if (draft === undefined && !hasDrafter) {
    refuseField(
      'input',
      'request.draft',
      'must be given, since this reflection has no drafter: give the draft to review first, or define a drafter',
      draft,
    )
  }
  return { task: Object.freeze(task), draft, criteria, maxTokens, onRound }
}

type End =
  | { readonly reason: 'accepted'; readonly verdict: ReflectionVerdict }
  | { readonly reason: 'round-limit' | 'token-limit' | 'attempt-limit' | 'stopped' }
  | { readonly reason: 'error'; readonly error: unknown }

/** A step's messages were too many for the token budget, or the budget is spent. */
class Blocked {
  constructor(readonly end: End) {}
}

/** The state of one run. */
class ReflectionRun {
  readonly #compiled: Compiled
  readonly #request: ParsedRequest
  readonly #context: OperationContext<unknown>
  readonly #maxTokens: number | undefined
  readonly #budget: AttemptBudget | undefined
  readonly #attemptsAtStart: number
  readonly #rounds: ReflectionRound[] = []
  #usage: ModelUsage = ZERO_USAGE
  #output: string | undefined
  /** The token estimate; set before the first step when there is a token budget. */
  #estimate: TokenEstimate | undefined

  constructor(compiled: Compiled, request: ParsedRequest, context: OperationContext<unknown>) {
    this.#compiled = compiled
    this.#request = request
    this.#context = context
    this.#maxTokens =
      compiled.maxTokens === undefined
        ? request.maxTokens
        : request.maxTokens === undefined
          ? compiled.maxTokens
          : Math.min(compiled.maxTokens, request.maxTokens)
    this.#budget = context.attemptBudget
    this.#attemptsAtStart = this.#budget?.used ?? 0
    this.#estimate = compiled.estimate ?? loopEstimate
  }

  get #criteria(): string | undefined {
    return this.#request.criteria ?? this.#compiled.criteria
  }

  async execute(): Promise<ReflectionResult> {
    const span = this.#context.diagnostics.span('reflection', {
      maxRounds: this.#compiled.maxRounds,
      ...(this.#maxTokens === undefined ? {} : { maxTokens: this.#maxTokens }),
    })
    let end: End
    try {
      if (this.#maxTokens !== undefined && this.#estimate === undefined)
        this.#estimate = await loadLoopEstimate()
      end = await this.#drive(span)
    } catch (error) {
      end = this.#failure(error)
    }
    const attempts = (this.#budget?.used ?? 0) - this.#attemptsAtStart
    const data = { reason: end.reason, rounds: this.#rounds.length, attempts, ...this.#usage }
    if (end.reason === 'error') span.fail(end.error, data)
    else span.end(end.reason === 'stopped' ? 'aborted' : 'ok', data)
    const base = { rounds: Object.freeze([...this.#rounds]), usage: this.#usage, attempts }
    switch (end.reason) {
      case 'accepted':
        return Object.freeze({
          ...base,
          reason: 'accepted',
          output: this.#output as string,
          verdict: end.verdict,
        })
      case 'error':
        return Object.freeze({ ...base, reason: 'error', output: this.#output, error: end.error })
      default:
        return Object.freeze({ ...base, reason: end.reason, output: this.#output })
    }
  }

  /** How a thrown error ends the run: the signal, our attempt budget, or a failure. */
  #failure(error: unknown): End {
    if (error instanceof Blocked) return error.end
    if (this.#context.signal.aborted) return { reason: 'stopped' }
    if (
      BudgetExhaustedError.isInstance(error) &&
      this.#budget !== undefined &&
      this.#budget.remaining === 0
    ) {
      return { reason: 'attempt-limit' }
    }
    return { reason: 'error', error }
  }

  /** Throws {@link Blocked} when the next call must not be made. */
  #check(messages: readonly ChatMessage[]): void {
    if (this.#context.signal.aborted) throw new Blocked({ reason: 'stopped' })
    if (this.#budget !== undefined && this.#budget.remaining === 0)
      throw new Blocked({ reason: 'attempt-limit' })
    const max = this.#maxTokens
    if (max === undefined) return
    if (this.#usage.totalTokens >= max) throw new Blocked({ reason: 'token-limit' })
    const estimate: unknown = Reflect.apply(this.#estimate!, this.#compiled.holder, [messages])
    if (typeof estimate !== 'number' || !Number.isFinite(estimate) || estimate < 0) {
      refuseField(
        'output',
        'estimateTokens',
        `must return a finite number of tokens that is not negative, but returned ${describeValue(estimate)}`,
        estimate,
        { details: { hook: 'estimateTokens' } },
      )
    }
    if (this.#usage.totalTokens + estimate > max) throw new Blocked({ reason: 'token-limit' })
  }

  #messages(build: Prompt, input: ReflectionPromptInput, hook: string): readonly ChatMessage[] {
    const messages = readConversation(
      assertNotThenable(Reflect.apply(build, this.#compiled.prompts, [Object.freeze(input)]), hook),
      hook,
      'output',
    )
    if (messages.length === 0) {
      refuseField('output', hook, 'returned no messages; a step needs a conversation to answer', messages, {
        details: { hook },
      })
    }
    return messages
  }

  #input(round: number, draft: string, issues: readonly string[]): ReflectionPromptInput {
    return {
      task: this.#request.task,
      criteria: this.#criteria,
      round,
      previous: Object.freeze([...this.#rounds]),
      draft,
      issues,
    }
  }

  /** One call of a step; the tokens it spent count whatever happens. */
  async #call(
    step: Step,
    name: ReflectionStepName,
    round: number,
    messages: readonly ChatMessage[],
    context: OperationContext<unknown>,
    spent: { usage: ModelUsage },
  ): Promise<string> {
    this.#check(messages)
    const reply: StepReply = await callStep(
      step,
      name,
      round,
      messages,
      name === 'critic' ? this.#compiled.responseFormat : undefined,
      context,
    )
    this.#usage = addUsage(this.#usage, reply.usage)
    spent.usage = addUsage(spent.usage, reply.usage)
    if (!reply.ok) throw reply.error
    return reply.text
  }

  async #drive(span: DiagnosticSpan): Promise<End> {
    let draft = this.#request.draft
    let by: ReflectionRound['by'] = 'request'
    for (let round = 1; ; round++) {
      const roundSpan = span.diagnostics.span('reflection-round', { round })
      const context: OperationContext<unknown> = { ...this.#context, diagnostics: roundSpan.diagnostics }
      const attemptsBefore = this.#budget?.used ?? 0
      const spent = { usage: ZERO_USAGE }
      let written = false
      let verdict: ReflectionVerdict | undefined
      const refused: StructuredAttempt[] = []
      let end: End | undefined
      try {
        if (round === 1 && draft === undefined) {
          const { drafter, draftPrompt } = this.#compiled
          const messages =
            draftPrompt === undefined
              ? this.#request.task
              : this.#messages(draftPrompt, this.#input(round, '', []), 'prompts.draft')
          draft = await this.#call(drafter as Step, 'drafter', round, messages, context, spent)
          by = 'drafter'
        } else if (round > 1) {
          const last = this.#rounds.at(-1) as ReflectionRound
          const input = this.#input(round, last.draft, last.verdict?.issues ?? [])
          const messages = this.#messages(this.#compiled.revisePrompt, input, 'prompts.revise')
          draft = await this.#call(this.#compiled.reviser, 'reviser', round, messages, context, spent)
          by = 'reviser'
        }
        written = true
        this.#output = draft
        verdict = await this.#critique(round, draft as string, context, spent, refused)
        if (verdict.decision === 'accept') end = { reason: 'accepted', verdict }
        else if (round >= this.#compiled.maxRounds) end = { reason: 'round-limit' }
      } catch (error) {
        end = this.#failure(error)
      }
      if (written) {
        const record: ReflectionRound = Object.freeze({
          round,
          by,
          draft: draft as string,
          verdict,
          refused: Object.freeze(refused),
          usage: spent.usage,
          attempts: (this.#budget?.used ?? 0) - attemptsBefore,
        })
        this.#rounds.push(record)
      }
      const data = { ...(verdict ? { decision: verdict.decision } : {}), ...spent.usage }
      if (end?.reason === 'error') roundSpan.fail(end.error, data)
      else roundSpan.end(end?.reason === 'stopped' ? 'aborted' : 'ok', data)
      if (written && this.#request.onRound !== undefined) {
        try {
          assertNotThenable(this.#request.onRound(this.#rounds.at(-1) as ReflectionRound), 'request.onRound')
        } catch (error) {
          return { reason: 'error', error }
        }
      }
      if (end !== undefined) return end
    }
  }

  /** Asks the critic until a reply is a verdict, feeding refused replies back through the contract. */
  async #critique(
    round: number,
    draft: string,
    context: OperationContext<unknown>,
    spent: { usage: ModelUsage },
    refused: StructuredAttempt[],
  ): Promise<ReflectionVerdict> {
    const { output, critic, critiquePrompt } = this.#compiled
    const base = withInstructions(
      this.#messages(critiquePrompt, this.#input(round, draft, []), 'prompts.critique'),
      output.instructions,
    )
    const span = context.diagnostics.span('structured-output', {
      name: output.name,
      maxCorrections: output.maxCorrections,
    })
    const inner: OperationContext<unknown> = { ...context, diagnostics: span.diagnostics }
    const corrections: ChatMessage[] = []
    try {
      for (;;) {
        const text = await this.#call(critic, 'critic', round, [...base, ...corrections], inner, spent)
        const parsed = await output.parse(text)
        if (parsed.ok) {
          span.end('ok', { attempts: refused.length + 1 })
          return Object.freeze({
            decision: parsed.value.decision,
            issues: Object.freeze([...parsed.value.issues]),
          })
        }
        refused.push(Object.freeze({ text, issues: parsed.issues }))
        if (refused.length > output.maxCorrections) throw output.failure(refused)
        corrections.push(...output.correction(text, parsed.issues))
      }
    } catch (error) {
      if (error instanceof Blocked)
        span.end(error.end.reason === 'stopped' ? 'aborted' : 'ok', { stopped: error.end.reason })
      else span.fail(error, { attempts: refused.length })
      throw error
    }
  }
}

/** The conversation with the verdict instructions appended to its system message (or a new one first). */
function withInstructions(messages: readonly ChatMessage[], instructions: string): readonly ChatMessage[] {
  const first = messages[0]
  if (first?.role === 'system') {
    return [{ role: 'system', content: `${first.content}\n\n${instructions}` }, ...messages.slice(1)]
  }
  return [{ role: 'system', content: instructions }, ...messages]
}

class ReflectionImpl<App> implements Reflection<App> {
  readonly #compiled: Compiled
  constructor(compiled: Compiled) {
    this.#compiled = compiled
  }

  get maxRounds(): number {
    return this.#compiled.maxRounds
  }

  get maxTokens(): number | undefined {
    return this.#compiled.maxTokens
  }

  get verdict(): StructuredOutput<ReflectionVerdict> {
    return this.#compiled.output
  }

  async run(
    request: ReflectionRequest,
    context: OperationContext<App> | OperationContextInit<App> = {},
  ): Promise<ReflectionResult> {
    const parsed = readRequest(request, this.#compiled.drafter !== undefined)
    const operation = childContext(
      createOperationContext(context as OperationContextInit<unknown>),
      'reflection',
    )
    return new ReflectionRun(this.#compiled, parsed, operation).execute()
  }
}

/**
 * Defines a reflection: a bounded critique-and-revise cycle. A run writes a draft (or takes the one it is
 * given), asks the critic for a verdict (accept, or revise with a list of issues) through the models kit's
 * structured-output contract (its corrections and its `StructuredOutputError`), has the reviser rewrite the
 * draft from the issues, and asks again, until the critic accepts, `maxRounds` drafts were reviewed, the
 * attempt or token budget has no room for the next call, or the signal stops it. Each step is a
 * `ModelCalls` binding or a loop agent; every round comes back with its verdict.
 * @throws `InvalidDefinitionError` for a malformed definition or an unknown field
 * @example
 * ```ts
 * import { defineModelBinding, ModelCalls } from '@agent-core/kits/models'
 * import { defineReflection } from '@agent-core/kits/reflection'
 *
 * const models = new ModelCalls([
 *   defineModelBinding({ id: 'writer', identity: 'toy-writer', invoke: () => 'Paris is the capital of France.' }),
 *   defineModelBinding({ id: 'critic', identity: 'toy-critic', invoke: () => '{"decision": "accept", "issues": []}' }),
 * ])
 * const reflection = defineReflection({
 *   drafter: { models, modelId: 'writer', timeoutMs: 30_000 },
 *   critic: { models, modelId: 'critic', timeoutMs: 30_000 },
 * })
 * const result = await reflection.run({ prompt: 'What is the capital of France?' })
 * // result.reason === 'accepted', result.output === 'Paris is the capital of France.'
 * ```
 */
export function defineReflection<App = unknown>(definition: ReflectionDefinition<App>): Reflection<App> {
  return new ReflectionImpl<App>(compile(definition))
}
