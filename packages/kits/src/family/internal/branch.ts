import {
  AbortedError,
  AgentCoreError,
  AttemptBudget,
  addUsage,
  assertNotThenable,
  BudgetExhaustedError,
  type ChatMessage,
  type DiagnosticSpan,
  DuplicateIdError,
  describeValue,
  FieldReader,
  InvalidStateError,
  type ModelUsage,
  type OperationContext,
  raceSignal,
  refuseField,
  UnknownIdError,
  ZERO_USAGE,
} from '@agent-core/core'
import {
  type Agent,
  type AgentDefinition,
  type AgentResult,
  type AgentRunRequest,
  type AgentToolEntry,
  defineAgent,
  estimateTokens,
} from '@agent-core/kits/loop'
import { FamilyChildError, FamilyGrantError } from '../family-errors.js'
import type {
  FamilyBranch,
  FamilyChildReport,
  FamilyGrant,
  FamilyResult,
  FamilySpawnRequest,
  FamilyTokens,
} from '../family-types.js'

/** A member after its checks. */
export type CompiledMember =
  | {
      readonly kind: 'agent'
      readonly id: string
      readonly definition: Omit<AgentDefinition<unknown, unknown>, 'tools'>
      /** The definition's own `maxTokens`, a cap on any share. */
      readonly maxTokens: number | undefined
    }
  | {
      readonly kind: 'run'
      readonly id: string
      readonly member: object
      readonly run: (branch: FamilyBranch<unknown>, context: OperationContext<unknown>) => unknown
    }

/** A family after its checks: everything a spawn needs. */
export interface CompiledFamily {
  /** Every tool the family holds, by id, in the order given. */
  readonly tools: ReadonlyMap<string, AgentToolEntry<unknown>>
  readonly scopes: readonly string[]
  readonly members: ReadonlyMap<string, CompiledMember>
  readonly concurrency: number
  readonly childApp: ((grant: FamilyGrant, app: unknown) => unknown) | undefined
  /** The definition: the receiver of `childApp`. */
  readonly holder: object
  /** Child agents built so far, by member, token budget and tools (see {@link childAgent}). */
  readonly agents: Map<string, Agent<unknown, unknown>>
}

/** A token budget: what was granted to children comes out of `limit`, once, and never comes back. */
export class TokenLedger implements FamilyTokens {
  #granted = 0
  constructor(readonly limit: number) {}
  get granted(): number {
    return this.#granted
  }
  get remaining(): number {
    return this.limit - this.#granted
  }
  grant(tokens: number): void {
    this.#granted += tokens
  }
}

/** A spawn request after its checks. */
export interface ParsedSpawn {
  readonly children: readonly unknown[]
  readonly concurrency: number | undefined
  readonly failFast: boolean
}

/** One child after its checks, before anything was taken. */
interface Plan {
  readonly index: number
  readonly id: string
  readonly member: CompiledMember
  readonly tools: readonly string[]
  readonly scopes: readonly string[]
  readonly attempts: number | undefined
  readonly tokens: number | undefined
  readonly input: unknown
  readonly run: Omit<AgentRunRequest<unknown>, 'resume' | 'outcomes'> | undefined
}

/** Reads a spawn request's own fields (the root's `maxTokens` is read by the family). */
export function readSpawn(fields: FieldReader): ParsedSpawn {
  const children = fields.get('children')
  if (!Array.isArray(children)) {
    fields.fail(
      'children',
      `must be an array of child requests, but got ${describeValue(children)}`,
      children,
    )
  }
  const concurrency = fields.integer('concurrency', 1)
  if (concurrency !== undefined && concurrency > 1000) {
    fields.fail('concurrency', `must be at most 1000, but got ${describeValue(concurrency)}`, concurrency)
  }
  const failFast = fields.boolean('failFast') ?? false
  return { children, concurrency, failFast }
}

function readIds(
  fields: FieldReader,
  key: 'tools' | 'scopes',
  held: readonly string[],
  childId: () => string,
): readonly string[] {
  const value = fields.get(key)
  if (value === undefined) return []
  if (!Array.isArray(value)) {
    fields.fail(
      key,
      `must be an array of ${key === 'tools' ? 'tool' : 'scope'} ids or be left out, but got ${describeValue(value)}`,
      value,
    )
  }
  const ids: string[] = []
  for (let index = 0; index < value.length; index++) {
    const id: unknown = value[index]
    const field = `${fields.path(key)}[${index}]`
    if (typeof id !== 'string' || id === '') {
      refuseField('input', field, `must be a non-empty string id, but got ${describeValue(id)}`, id)
    }
    if (ids.includes(id)) {
      refuseField('input', field, `repeats "${id}"; name each ${key === 'tools' ? 'tool' : 'scope'} once`, id)
    }
    if (!held.includes(id)) {
      const kind = key === 'tools' ? 'tool' : 'scope'
      throw new FamilyGrantError(
        `Child "${childId()}" asks for ${kind} "${id}" (${field}), which its parent does not hold (it holds: ${held.map((h) => `"${h}"`).join(', ') || 'none'}). A child only gets a subset of its parent's ${key}: drop "${id}" from the child, or give it to the parent first.`,
        { details: { field, id, kind, childId: childId(), held: Object.freeze([...held]) } },
      )
    }
    ids.push(id)
  }
  return Object.freeze(ids)
}

function usageOf(child: FamilyChildReport | undefined): ModelUsage {
  return child?.usage ?? ZERO_USAGE
}

/**
 * A node of a family tree: what it holds (tools, scopes), its budgets and its context. The root is the
 * family run; every run member's child is one too.
 */
export class Branch {
  /** Set once the child this branch belongs to has ended: it spawns no more. */
  ended = false
  /** Tokens spent by the children of every spawn of this branch. */
  usage: ModelUsage = ZERO_USAGE
  /** Spawns still running. */
  readonly #active = new Set<Promise<unknown>>()

  constructor(
    readonly family: CompiledFamily,
    readonly path: readonly string[],
    readonly tools: readonly string[],
    readonly scopes: readonly string[],
    readonly budget: AttemptBudget | undefined,
    readonly tokens: TokenLedger | undefined,
    readonly context: OperationContext<unknown>,
  ) {}

  /** Waits until every spawn of this branch has reported (they stop promptly once its signal aborts). */
  async settled(): Promise<void> {
    while (this.#active.size > 0) await Promise.allSettled([...this.#active])
  }

  /** Checks every child, takes every share at once, runs the children and fans their reports in. */
  spawn(request: ParsedSpawn): Promise<FamilyResult> {
    const running = this.#spawn(request)
    this.#active.add(running)
    const done = () => this.#active.delete(running)
    running.then(done, done)
    return running
  }

  async #spawn(request: ParsedSpawn): Promise<FamilyResult> {
    if (this.ended) {
      throw new InvalidStateError(
        `The child "${this.path.join('/')}" has ended, so it can spawn no more children. Spawn (and await the spawn) inside its run.`,
        { details: { field: 'spawn' } },
      )
    }
    const plans = this.#plan(request.children)
    const attempts = plans.reduce((sum, plan) => sum + (plan.attempts ?? 0), 0)
    const tokens = plans.reduce((sum, plan) => sum + (plan.tokens ?? 0), 0)
    this.#checkShares(plans)
    const { signal } = this.context
    if (signal.aborted) return this.#allStopped(plans)
    if (this.budget !== undefined && attempts > 0) {
      this.budget.takeMany(attempts, { signal, label: `shares of ${plans.length} child run(s)` })
    }
    this.tokens?.grant(tokens)

    const span = this.context.diagnostics.span('family-run', {
      ...(this.path.length > 0 ? { path: this.path.join('/') } : {}),
      children: plans.length,
      attempts,
      tokens,
    })
    const controller = new AbortController()
    const stop = () => controller.abort(signal.reason)
    signal.addEventListener('abort', stop, { once: true })
    // One listener for the spawn, not one per child: it stops every child still running.
    const running = new Set<AbortController>()
    controller.signal.addEventListener(
      'abort',
      () => {
        for (const child of running) child.abort(controller.signal.reason)
      },
      { once: true },
    )
    const reports: FamilyChildReport[] = new Array(plans.length)
    try {
      let next = 0
      const worker = async () => {
        while (next < plans.length) {
          const plan = plans[next++] as Plan
          const report = await this.#child(plan, controller.signal, running, span)
          reports[plan.index] = report
          if (report.status === 'failed' && request.failFast && !controller.signal.aborted) {
            controller.abort(
              new AbortedError(`Stopped because child "${plan.id}" failed (failFast).`, {
                details: { point: `after child "${plan.id}" failed` },
              }),
            )
          }
        }
      }
      const limit = Math.min(request.concurrency ?? this.family.concurrency, plans.length)
      await Promise.all(Array.from({ length: limit }, worker))
    } finally {
      signal.removeEventListener('abort', stop)
    }
    const usage = reports.reduce((sum, report) => addUsage(sum, usageOf(report)), ZERO_USAGE)
    this.usage = addUsage(this.usage, usage)
    const failed = reports.filter((report) => report.status === 'failed').length
    const stopped = signal.aborted
    const data = {
      done: reports.filter((report) => report.status === 'done').length,
      failed,
      stopped: reports.filter((report) => report.status === 'stopped').length,
      ...usage,
    }
    span.end(stopped ? 'aborted' : 'ok', data)
    return Object.freeze({
      children: Object.freeze(reports),
      stopped,
      failed,
      usage,
      attempts,
      tokens,
    })
  }

  #plan(children: readonly unknown[]): Plan[] {
    const plans: Plan[] = []
    const counts = new Map<string, number>()
    const ids = new Map<string, number>()
    for (let index = 0; index < children.length; index++) {
      const fields: FieldReader = new FieldReader(
        children[index],
        `request.children[${index}]`,
        'a child request { member, ... }',
        'input',
      )
      const memberId = fields.string('member')
      if (memberId === undefined)
        fields.fail('member', 'is required: name the member that runs this child', undefined)
      const member = this.family.members.get(memberId)
      if (member === undefined) {
        const known = [...this.family.members.keys()]
        throw new UnknownIdError(
          `request.children[${index}].member names "${memberId}", which is not a member of this family (members: ${known.map((k) => `"${k}"`).join(', ')}).`,
          { details: { id: memberId, kind: 'family member', known, field: fields.path('member') } },
        )
      }
      const given = fields.string('id')
      const seen = (counts.get(memberId) ?? 0) + 1
      counts.set(memberId, seen)
      const id = given ?? (seen === 1 ? memberId : `${memberId}-${seen}`)
      const tools = readIds(fields, 'tools', this.tools, () => id)
      const scopes = readIds(fields, 'scopes', this.scopes, () => id)
      const attempts = fields.integer('attempts', 0)
      const tokens = fields.integer('tokens', member.kind === 'agent' ? 1 : 0)
      const prompt = fields.string('prompt', { empty: true })
      const messages = fields.get('messages')
      const input = fields.get('input')
      const resolveApproval = fields.func<AgentRunRequest<unknown>['resolveApproval']>('resolveApproval')
      const answerQuestion = fields.func<AgentRunRequest<unknown>['answerQuestion']>('answerQuestion')
      const onEvent = fields.func<AgentRunRequest<unknown>['onEvent']>('onEvent')
      fields.done()
      let run: Plan['run']
      if (member.kind === 'agent') {
        if (input !== undefined) {
          fields.fail(
            'input',
            `is for run members; agent member "${memberId}" takes prompt or messages`,
            input,
          )
        }
        if (messages !== undefined) checkMessages(messages, fields.path('messages'))
        if (prompt === undefined && (messages === undefined || (messages as unknown[]).length === 0)) {
          fields.fail(
            'prompt',
            `is needed (or messages): agent member "${memberId}" needs a conversation`,
            prompt,
          )
        }
        run = {
          ...(messages === undefined ? {} : { messages: messages as readonly ChatMessage[] }),
          ...(prompt === undefined ? {} : { prompt }),
          ...(resolveApproval === undefined ? {} : { resolveApproval }),
          ...(answerQuestion === undefined ? {} : { answerQuestion }),
          ...(onEvent === undefined ? {} : { onEvent }),
        }
      } else {
        const agentOnly = { prompt, messages, resolveApproval, answerQuestion, onEvent }
        for (const [key, value] of Object.entries(agentOnly)) {
          if (value !== undefined) {
            fields.fail(key, `is for agent members; run member "${memberId}" takes input`, value)
          }
        }
      }
      if (this.budget !== undefined && attempts === undefined) {
        fields.fail(
          'attempts',
          `is required: the parent has an AttemptBudget (${this.budget.remaining} left), so child "${id}" needs an explicit share of it`,
          attempts,
        )
      }
      if (this.tokens !== undefined && tokens === undefined) {
        fields.fail(
          'tokens',
          `is required: the parent has a token budget (${this.tokens.remaining} left), so child "${id}" needs an explicit share of it`,
          tokens,
        )
      }
      const earlier = ids.get(id)
      if (earlier !== undefined) {
        throw new DuplicateIdError(
          `request.children[${index}] and request.children[${earlier}] are both "${id}"; give the children of one spawn unique ids.`,
          { details: { id, kind: 'child', field: fields.path('id') } },
        )
      }
      ids.set(id, index)
      plans.push({ index, id, member, tools, scopes, attempts, tokens, input, run })
    }
    return plans
  }

  /** Refuses shares that do not fit the parent's remainders, naming the first child that overdraws. */
  #checkShares(plans: readonly Plan[]): void {
    const { budget, tokens } = this
    if (budget !== undefined) {
      if (typeof (budget as { takeMany?: unknown }).takeMany !== 'function') {
        refuseField(
          'input',
          'context.attemptBudget',
          'has no takeMany: give the run a core AttemptBudget, whose shares are taken atomically',
          budget,
        )
      }
      overdraw(plans, 'attempts', budget.remaining, budget.limit, budget.used, 'AttemptBudget')
    }
    if (tokens !== undefined) {
      overdraw(plans, 'tokens', tokens.remaining, tokens.limit, tokens.granted, 'token budget')
    }
  }

  #allStopped(plans: readonly Plan[]): FamilyResult {
    const children = plans.map((plan) => this.#report(plan, { status: 'stopped', started: false }, undefined))
    return Object.freeze({
      children: Object.freeze(children),
      stopped: true,
      failed: 0,
      usage: ZERO_USAGE,
      attempts: 0,
      tokens: 0,
    })
  }

  #grant(plan: Plan): FamilyGrant {
    return Object.freeze({
      childId: plan.id,
      path: Object.freeze([...this.path, plan.id]),
      member: plan.member.id,
      tools: plan.tools,
      scopes: plan.scopes,
      attempts: plan.attempts,
      tokens: plan.tokens,
    })
  }

  #report(
    plan: Plan,
    outcome:
      | { readonly status: 'done'; readonly value: unknown }
      | { readonly status: 'failed'; readonly error: unknown }
      | { readonly status: 'stopped'; readonly started: boolean },
    child:
      | { budget: AttemptBudget | undefined; usage: ModelUsage; run: AgentResult<unknown> | undefined }
      | undefined,
    grant: FamilyGrant = this.#grant(plan),
  ): FamilyChildReport {
    return Object.freeze({
      id: plan.id,
      index: plan.index,
      member: plan.member.id,
      grant,
      usage: child?.usage ?? ZERO_USAGE,
      attemptsUsed: child?.budget?.used ?? 0,
      run: child?.run,
      ...outcome,
    }) as FamilyChildReport
  }

  /** Runs one child to its end; never rejects. */
  async #child(
    plan: Plan,
    spawnSignal: AbortSignal,
    running: Set<AbortController>,
    span: DiagnosticSpan,
  ): Promise<FamilyChildReport> {
    if (spawnSignal.aborted) return this.#report(plan, { status: 'stopped', started: false }, undefined)
    const grant = this.#grant(plan)
    const controller = new AbortController()
    running.add(controller)
    const budget = plan.attempts === undefined ? undefined : new AttemptBudget(plan.attempts)
    const childSpan = span.diagnostics.span('family-child', {
      childId: plan.id,
      member: plan.member.id,
      ...(plan.attempts === undefined ? {} : { attempts: plan.attempts }),
      ...(plan.tokens === undefined ? {} : { tokens: plan.tokens }),
    })
    const state = {
      budget,
      usage: ZERO_USAGE,
      run: undefined as AgentResult<unknown> | undefined,
      branch: undefined as Branch | undefined,
    }
    let report: FamilyChildReport
    try {
      const { childApp, holder } = this.family
      const app =
        childApp === undefined
          ? this.context.app
          : assertNotThenable(Reflect.apply(childApp, holder, [grant, this.context.app]), 'childApp')
      const context: OperationContext<unknown> = {
        signal: controller.signal,
        app,
        diagnostics: childSpan.diagnostics,
        attemptBudget: budget,
        now: this.context.now,
      }
      const outcome =
        plan.member.kind === 'agent'
          ? await this.#runAgent(plan, plan.member, context, state)
          : await this.#runMember(plan, plan.member, grant, context, state)
      report = this.#report(plan, outcome, state, grant)
    } catch (error) {
      report = this.#report(
        plan,
        controller.signal.aborted ? { status: 'stopped', started: true } : { status: 'failed', error },
        state,
        grant,
      )
    }
    running.delete(controller)
    // Whatever the child left running (a spawn it did not await) ends with it; its spawns report first.
    if (!controller.signal.aborted) {
      controller.abort(new AbortedError(`Child "${plan.id}" has ended.`, { details: { point: 'child end' } }))
    }
    const branch = state.branch
    if (branch !== undefined) {
      branch.ended = true
      await branch.settled()
      report = Object.freeze({ ...report, usage: branch.usage }) as FamilyChildReport
    }
    const data = { status: report.status, attemptsUsed: report.attemptsUsed, ...report.usage }
    if (report.status === 'failed') childSpan.fail(report.error, data)
    else childSpan.end(report.status === 'stopped' ? 'aborted' : 'ok', data)
    return report
  }

  async #runAgent(
    plan: Plan,
    member: Extract<CompiledMember, { kind: 'agent' }>,
    context: OperationContext<unknown>,
    state: { usage: ModelUsage; run: AgentResult<unknown> | undefined },
  ): Promise<
    | { status: 'done'; value: unknown }
    | { status: 'failed'; error: unknown }
    | { status: 'stopped'; started: boolean }
  > {
    const maxTokens =
      plan.tokens === undefined
        ? member.maxTokens
        : member.maxTokens === undefined
          ? plan.tokens
          : Math.min(plan.tokens, member.maxTokens)
    const agent = childAgent(this.family, member, plan.tools, maxTokens)
    const result = await agent.run(plan.run as AgentRunRequest<unknown>, context)
    state.run = result
    state.usage = result.usage
    switch (result.reason) {
      case 'final':
        return { status: 'done', value: result.answer }
      case 'stopped':
        return { status: 'stopped', started: true }
      case 'error':
        return { status: 'failed', error: result.error }
      default:
        return {
          status: 'failed',
          error: new FamilyChildError(
            `Child "${plan.id}" (member "${member.id}") ended its run with reason "${result.reason}", without an answer. ${
              result.reason === 'suspended'
                ? 'A child cannot wait for people across processes: give it resolveApproval / answerQuestion, or tools that need no approval.'
                : result.reason === 'token-limit'
                  ? 'Give it a larger token share.'
                  : "Raise the member agent's maxTurns or narrow the child's task."
            }`,
            { details: { childId: plan.id, member: member.id, reason: result.reason } },
          ),
        }
    }
  }

  async #runMember(
    plan: Plan,
    member: Extract<CompiledMember, { kind: 'run' }>,
    grant: FamilyGrant,
    context: OperationContext<unknown>,
    state: { branch: Branch | undefined },
  ): Promise<{ status: 'done'; value: unknown }> {
    const branch = new Branch(
      this.family,
      grant.path,
      plan.tools,
      plan.scopes,
      context.attemptBudget,
      plan.tokens === undefined ? undefined : new TokenLedger(plan.tokens),
      context,
    )
    state.branch = branch
    const view = branchView(branch, grant, plan.input)
    let pending: unknown
    try {
      pending = Reflect.apply(member.run, member.member, [view, context])
    } catch (error) {
      pending = Promise.reject(error)
    }
    const value = await raceSignal(Promise.resolve(pending), context.signal, `child "${plan.id}"`)
    return { status: 'done', value }
  }
}

/**
 * The agent a child runs: the member's definition with the child's tools and token budget. Agents hold no
 * run state, so one built agent serves every child with the same grant and budget (a spawn of many alike
 * children compiles once); the cache keeps the most recent combinations.
 */
function childAgent(
  family: CompiledFamily,
  member: Extract<CompiledMember, { kind: 'agent' }>,
  tools: readonly string[],
  maxTokens: number | undefined,
): Agent<unknown, unknown> {
  const key = `${member.id}\u0000${maxTokens ?? ''}\u0000${tools.join('\u0000')}`
  const cached = family.agents.get(key)
  if (cached !== undefined) return cached
  const agent = defineAgent<unknown, unknown>({
    ...member.definition,
    tools: tools.map((id) => family.tools.get(id) as AgentToolEntry<unknown>),
    ...(maxTokens === undefined ? {} : { maxTokens }),
  })
  if (family.agents.size >= AGENT_CACHE_SIZE)
    family.agents.delete(family.agents.keys().next().value as string)
  family.agents.set(key, agent)
  return agent
}

/** Built child agents a family keeps (member, grant and token budget combinations). */
const AGENT_CACHE_SIZE = 64

/** Throws when the children's shares, in declaration order, overdraw what the parent has left. */
function overdraw(
  plans: readonly Plan[],
  key: 'attempts' | 'tokens',
  remaining: number,
  limit: number,
  used: number,
  what: string,
): void {
  let sum = 0
  for (const plan of plans) {
    sum += plan[key] ?? 0
    if (sum > remaining) {
      const field = `request.children[${plan.index}].${key}`
      throw new BudgetExhaustedError(
        `The children's ${key} shares add up to more than the parent's ${what} has left: ${remaining} of ${limit} (${used} already ${key === 'tokens' ? 'granted' : 'used'}); by child "${plan.id}" (${field}) they reach ${sum}. Nothing was spawned or taken: give smaller shares, fewer children, or the parent a larger budget.`,
        { details: { limit, used, label: `child "${plan.id}" ${key} share`, requested: sum, field } },
      )
    }
  }
}

function checkMessages(messages: unknown, field: string): void {
  try {
    estimateTokens(messages as readonly ChatMessage[])
  } catch (error) {
    if (!AgentCoreError.isInstance(error)) throw error
    refuseField(
      'input',
      field,
      `is not a valid conversation: ${error.message.replace(/\.$/, '')}`,
      messages,
      {
        cause: error,
      },
    )
  }
}

/** The public face of a branch, for a run member. */
export function branchView(branch: Branch, grant: FamilyGrant, input: unknown): FamilyBranch<unknown> {
  return Object.freeze({
    grant,
    input,
    tools: Object.freeze(grant.tools.map((id) => branch.family.tools.get(id) as AgentToolEntry<unknown>)),
    attemptBudget: branch.budget,
    tokens: branch.tokens,
    spawn: (request: FamilySpawnRequest<unknown>) => {
      try {
        const fields: FieldReader = new FieldReader(
          request,
          'request',
          'a spawn request { children, concurrency?, failFast? }',
          'input',
        )
        const parsed = readSpawn(fields)
        fields.done()
        return branch.spawn(parsed)
      } catch (error) {
        return Promise.reject(error)
      }
    },
  })
}
