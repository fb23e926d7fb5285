import {
  assertNonEmptyString,
  type ChatMessage,
  createOperationContext,
  describeValue,
  FieldReader,
  type ModelRequest,
  type ModelResponse,
  type OperationContext,
  type OperationContextInit,
  raceSignal,
  throwIfAborted,
} from '@agent-core/core'
import type { ModelCallsTarget, StructuredModel } from '@agent-core/kits/models'
import { CompactionError, SessionConflictError } from './errors.js'
import { checkId } from './internal/checks.js'
import type { SessionCompaction, SessionSnapshot, SessionState } from './session-store.js'
import { type SessionRef, type ViewEntry, viewEntries } from './session-view.js'
import { countWith, defaultTokenEstimate, historyUnits, type TokenEstimator } from './window.js'

/**
 * The model that writes summaries: a core `ChatModel`, a `ModelCalls` binding
 * (`{ models, modelId, timeoutMs }`, whose input is a `ModelRequest` and output the text or a
 * `ModelResponse`) or a plain function of the request. The models kit's `StructuredModel`.
 * @example
 * ```ts
 * import type { Summarizer } from '@agent-core/kits/memory'
 * const summarizer: Summarizer = async (request) => `A summary of ${request.messages.length} message(s).`
 * ```
 */
export type Summarizer<App = unknown> = StructuredModel<App>

/**
 * When and how to compact: once what the model would read passes `maxTokens`, the turns before the last
 * `keepTurns` are folded (with the earlier summary, if any) into one summary.
 * @example
 * ```ts
 * import type { CompactionOptions } from '@agent-core/kits/memory'
 * const compaction: CompactionOptions = {
 *   summarizer: async () => 'The user is planning a trip to Lyon in May.',
 *   maxTokens: 4_000,
 *   keepTurns: 3,
 * }
 * ```
 */
export interface CompactionOptions<App = unknown> {
  readonly summarizer: Summarizer<App>
  /** Compact when the session's view passes this many tokens: a safe integer from 1. */
  readonly maxTokens: number
  /** Turns (a user message and what followed it) kept verbatim: a safe integer from 1. Default 2. */
  readonly keepTurns?: number | undefined
  /** The summarizer's instructions. Default {@link DEFAULT_SUMMARY_INSTRUCTIONS}. */
  readonly instructions?: string | undefined
  /** Counts tokens. Default {@link defaultTokenEstimate}; the model's reported usage is used when the session has it. */
  readonly estimate?: TokenEstimator | undefined
}

/**
 * The default instructions of the summarizer.
 * @example
 * ```ts
 * import { DEFAULT_SUMMARY_INSTRUCTIONS } from '@agent-core/kits/memory'
 * const instructions = `${DEFAULT_SUMMARY_INSTRUCTIONS} Write in French.`
 * ```
 */
export const DEFAULT_SUMMARY_INSTRUCTIONS =
  'You summarize a conversation for its own continuation. Write a concise summary that keeps every fact, decision, name, number, preference and open question a later reply could need. If an earlier summary is given, fold it in: write one summary of everything. Answer with the summary only.'

/**
 * Events of a compaction, in the run's event stream of a session run (and through `onEvent` of
 * {@link compactSession}).
 * @example
 * ```ts
 * import type { CompactionEvent } from '@agent-core/kits/memory'
 * const show = (event: CompactionEvent) => event.type === 'compaction-done' && event.compaction.folded
 * ```
 */
export type CompactionEvent =
  | {
      readonly type: 'compaction-start'
      readonly sessionId: string
      /** Tokens of the view before. */
      readonly tokens: number
      /** Messages about to be folded (the earlier summary not counted). */
      readonly folding: number
    }
  | {
      readonly type: 'compaction-done'
      readonly sessionId: string
      readonly compaction: SessionCompaction
      /** Tokens of the view after (estimated). */
      readonly tokens: number
    }
  | { readonly type: 'compaction-failed'; readonly sessionId: string; readonly error: CompactionError }

/**
 * What a compaction did: nothing (`not-needed` under the budget, `nothing-to-fold` when only the kept
 * turns are left), `compacted`, or `failed` (the history is exactly as it was; `error` says why).
 * @example
 * ```ts
 * import type { CompactionOutcome } from '@agent-core/kits/memory'
 * const failed = (outcome: CompactionOutcome) => (outcome.status === 'failed' ? outcome.error.message : '')
 * ```
 */
export type CompactionOutcome =
  | { readonly status: 'not-needed' | 'nothing-to-fold'; readonly tokens: number }
  | {
      readonly status: 'compacted'
      readonly compaction: SessionCompaction
      readonly tokensBefore: number
      readonly tokens: number
      readonly revision: number
    }
  | { readonly status: 'failed'; readonly error: CompactionError; readonly tokens: number }

export interface CheckedCompaction<App> {
  readonly summarizer: Summarizer<App>
  readonly maxTokens: number
  readonly keepTurns: number
  readonly instructions: string
  readonly estimate: TokenEstimator
}

function isModelCallsTarget(value: unknown): value is ModelCallsTarget {
  return typeof value === 'object' && value !== null && 'models' in value && 'modelId' in value
}

export function readCompactionOptions<App>(value: unknown, field: string): CheckedCompaction<App> {
  const fields: FieldReader = new FieldReader(
    value,
    field,
    'compaction options { summarizer, maxTokens, keepTurns?, ... }',
    'input',
  )
  const summarizer = fields.get('summarizer')
  const ok =
    typeof summarizer === 'function' ||
    isModelCallsTarget(summarizer) ||
    (typeof summarizer === 'object' &&
      summarizer !== null &&
      typeof (summarizer as { generate?: unknown }).generate === 'function')
  if (!ok)
    fields.fail(
      'summarizer',
      `must be a chat model, a ModelCalls binding { models, modelId, timeoutMs } or a function, but got ${describeValue(summarizer)}`,
      summarizer,
    )
  const maxTokens = fields.integer('maxTokens', 1)
  if (maxTokens === undefined)
    fields.fail('maxTokens', 'is required: a safe integer of at least 1', undefined)
  const keepTurns = fields.integer('keepTurns', 1) ?? 2
  const instructions = fields.string('instructions') ?? DEFAULT_SUMMARY_INSTRUCTIONS
  const estimate = fields.func<TokenEstimator>('estimate') ?? defaultTokenEstimate
  fields.done()
  return { summarizer: summarizer as Summarizer<App>, maxTokens, keepTurns, instructions, estimate }
}

/** Tokens of a view: the model's report when it describes this revision, or the estimate. */
export function viewTokens(
  snapshot: SessionSnapshot,
  view: readonly ViewEntry[],
  estimate: TokenEstimator,
): number {
  const usage = snapshot.state?.usage
  if (usage && usage.revision === snapshot.revision) return usage.tokens
  return view.length === 0
    ? 0
    : countWith(
        estimate,
        view.map((entry) => entry.message),
        'estimate',
      )
}

/** The non-system messages after the last summary, split at the first kept turn. */
export function planFold(
  snapshot: SessionSnapshot,
  keepTurns: number,
): { readonly fold: readonly ViewEntry[]; readonly kept: readonly ViewEntry[] } {
  const after = snapshot.state?.compaction?.throughSeq ?? 0
  const live = snapshot.messages.filter((entry) => entry.seq > after && entry.message.role !== 'system')
  const starts = live.flatMap((entry, index) => (entry.message.role === 'user' ? [index] : []))
  if (starts.length <= keepTurns) return { fold: [], kept: live }
  let cut = starts[starts.length - keepTurns]!
  // never fold a call while keeping its result (or the other way round)
  const units = historyUnits(live.map((entry) => entry.message))
  for (let moved = true; moved; ) {
    moved = false
    for (const unit of units) {
      const first = unit.indexes[0]!
      if (first < cut && unit.indexes.some((index) => index >= cut)) {
        cut = first
        moved = true
      }
    }
  }
  return { fold: live.slice(0, cut), kept: live.slice(cut) }
}

function transcript(messages: readonly ChatMessage[]): string {
  const lines: string[] = []
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        lines.push(
          `User: ${typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '[image]')).join(' ')}`,
        )
        break
      case 'assistant':
        if (message.content) lines.push(`Assistant: ${message.content}`)
        for (const call of message.toolCalls ?? [])
          lines.push(`Assistant called ${call.name} ${call.arguments}`)
        break
      case 'tool':
        lines.push(`Tool result${message.isError ? ' (error)' : ''}: ${message.content}`)
        break
      default:
        lines.push(`System: ${message.content}`)
    }
  }
  return lines.join('\n')
}

/** The request the summarizer gets. */
export function summaryRequest(
  instructions: string,
  previous: string | undefined,
  fold: readonly ChatMessage[],
): ModelRequest {
  const parts = previous === undefined ? [] : [`Earlier summary:\n${previous}`, '']
  parts.push(`Conversation to fold in:\n${transcript(fold)}`)
  return {
    messages: [
      { role: 'system', content: instructions },
      { role: 'user', content: parts.join('\n') },
    ],
  }
}

function replyText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  const message = (value as ModelResponse | undefined)?.message
  return typeof message?.content === 'string' ? message.content : undefined
}

async function askSummarizer<App>(
  summarizer: Summarizer<App>,
  request: ModelRequest,
  context: OperationContext<App>,
): Promise<unknown> {
  if (isModelCallsTarget(summarizer)) {
    const { value } = await summarizer.models.invoke(
      { modelId: summarizer.modelId, input: request, timeoutMs: summarizer.timeoutMs },
      context,
    )
    return value
  }
  throwIfAborted(context.signal, 'before the summarizer call')
  const pending =
    typeof summarizer === 'function' ? summarizer(request, context) : summarizer.generate(request, context)
  return raceSignal(Promise.resolve(pending), context.signal, 'waiting for the summarizer')
}

/**
 * Compacts a snapshot already read (the session runner's path): decides, asks, records. Never throws for a
 * summarizer's failure or a conflict: those are a `failed` outcome and the history stays as it was.
 */
export async function compactSnapshot<App>(
  session: SessionRef,
  snapshot: SessionSnapshot,
  options: CheckedCompaction<App>,
  context: OperationContext<App>,
  emit: (event: CompactionEvent) => void,
): Promise<{ readonly outcome: CompactionOutcome; readonly snapshot: SessionSnapshot }> {
  const view = viewEntries(snapshot)
  const tokens = viewTokens(snapshot, view, options.estimate)
  if (tokens <= options.maxTokens) return { outcome: { status: 'not-needed', tokens }, snapshot }
  const { fold } = planFold(snapshot, options.keepTurns)
  if (fold.length === 0) return { outcome: { status: 'nothing-to-fold', tokens }, snapshot }
  const previous = snapshot.state?.compaction
  const span = context.diagnostics.span('session-compaction', {
    sessionId: session.id,
    tokens,
    folding: fold.length,
  })
  emit({ type: 'compaction-start', sessionId: session.id, tokens, folding: fold.length })
  const fail = (error: CompactionError) => {
    span.fail(error)
    emit({ type: 'compaction-failed', sessionId: session.id, error })
    return { outcome: { status: 'failed' as const, error, tokens }, snapshot }
  }
  let summary: string | undefined
  try {
    const request = summaryRequest(
      options.instructions,
      previous?.summary,
      fold.map((entry) => entry.message),
    )
    summary = replyText(
      await askSummarizer(options.summarizer, request, { ...context, diagnostics: span.diagnostics }),
    )?.trim()
  } catch (error) {
    return fail(
      new CompactionError(
        `The summarizer failed, so session ${JSON.stringify(session.id)} was not compacted; its history is unchanged. Check the summarizer (the cause says why).`,
        { cause: error, details: { sessionId: session.id, reason: 'summarizer-failed' } },
      ),
    )
  }
  if (!summary) {
    return fail(
      new CompactionError(
        `The summarizer answered nothing, so session ${JSON.stringify(session.id)} was not compacted; its history is unchanged. Check the summarizer's instructions or model.`,
        { details: { sessionId: session.id, reason: 'empty-summary' } },
      ),
    )
  }
  const compaction: SessionCompaction = {
    summary,
    throughSeq: fold[fold.length - 1]!.seq,
    folded: (previous?.folded ?? 0) + fold.length,
    atMs: context.now?.() ?? Date.now(),
  }
  const { usage: _stale, ...rest } = snapshot.state ?? {}
  const state: SessionState = { ...rest, compaction }
  let revision: number
  try {
    ;({ revision } = await session.store.append(session.id, {
      messages: [],
      expectedRevision: snapshot.revision,
      state,
    }))
  } catch (error) {
    if (!SessionConflictError.isInstance(error)) {
      span.fail(error)
      throw error
    }
    return fail(
      new CompactionError(
        `Session ${JSON.stringify(session.id)} changed while it was being summarized, so the summary was not recorded; its history is unchanged. The next run compacts it again if it still needs it.`,
        { cause: error, details: { sessionId: session.id, reason: 'conflict' } },
      ),
    )
  }
  const next: SessionSnapshot = { ...snapshot, revision, state }
  const after = viewTokens(next, viewEntries(next), options.estimate)
  span.end('ok', { folded: compaction.folded, tokens: after })
  emit({ type: 'compaction-done', sessionId: session.id, compaction, tokens: after })
  return {
    outcome: { status: 'compacted', compaction, tokensBefore: tokens, tokens: after, revision },
    snapshot: next,
  }
}

/**
 * Compacts a session when what the model would read passes `options.maxTokens`: the turns before the last
 * `keepTurns` (and the earlier summary, folded forward rather than nested) become one summary through the
 * App's summarizer, recorded in the session's state so it is not redone. The messages themselves stay in
 * the session; the model reads the summary in their place (see {@link sessionView}). A failed or empty
 * summary, or a session that changed meanwhile, leaves the session exactly as it was and comes back as a
 * `failed` outcome with a {@link CompactionError}.
 * @example
 * ```ts
 * import { compactSession, createMemorySessionStore } from '@agent-core/kits/memory'
 * const store = createMemorySessionStore()
 * await store.append('chat-1', {
 *   messages: [
 *     { role: 'user', content: 'I live in Lyon.' },
 *     { role: 'assistant', content: 'Noted.' },
 *     { role: 'user', content: 'What should I visit?' },
 *   ],
 * })
 * const outcome = await compactSession(
 *   { store, id: 'chat-1' },
 *   { summarizer: async () => 'The user lives in Lyon.', maxTokens: 1, keepTurns: 1 },
 * )
 * outcome.status // 'compacted'
 * ```
 */
export async function compactSession<App = unknown>(
  session: SessionRef,
  options: CompactionOptions<App>,
  context?: OperationContext<App> | OperationContextInit<App>,
  onEvent?: (event: CompactionEvent) => void,
): Promise<CompactionOutcome> {
  const ref = readSessionRef(session, 'session')
  const checked = readCompactionOptions<App>(options, 'options')
  const ctx = createOperationContext(context as OperationContextInit<App>) as OperationContext<App>
  if (onEvent !== undefined && typeof onEvent !== 'function')
    new FieldReader({ onEvent }, 'arguments', 'arguments', 'input').fail(
      'onEvent',
      'must be a function or be left out',
      onEvent,
    )
  const snapshot = await ref.store.read(ref.id)
  return (await compactSnapshot(ref, snapshot, checked, ctx, onEvent ?? (() => {}))).outcome
}

export function readSessionRef(value: unknown, field: string): SessionRef {
  const fields = new FieldReader(value, field, 'a session { store, id }', 'input')
  const store = fields.get('store') as SessionRef['store']
  for (const method of ['read', 'append', 'pop', 'clear'] as const)
    if (typeof (store as unknown as Record<string, unknown> | undefined)?.[method] !== 'function')
      fields.fail(
        'store',
        `must be a session store with read, append, pop and clear, but got ${describeValue(store)}`,
        store,
      )
  const id = checkId(fields.get('id'), `${field}.id`, 'session')
  fields.done()
  assertNonEmptyString(id, `${field}.id`)
  return { store, id }
}
