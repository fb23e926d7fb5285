import { type ChatMessage, describeValue, FieldReader, refuseField } from '@agent-core/core'
import { estimateTokens } from '@agent-core/kits/loop'
import { checkMessages } from './internal/checks.js'

/**
 * Counts the tokens of messages (the estimator port). Default {@link defaultTokenEstimate}, about four
 * characters a token plus a few per message; plug in a real tokenizer for a tighter budget.
 * @example
 * ```ts
 * import type { TokenEstimator } from '@agent-core/kits/memory'
 * const byWords: TokenEstimator = (messages) =>
 *   messages.reduce((sum, m) => sum + String(m.content).split(/\s+/).length + 4, 0)
 * ```
 */
export type TokenEstimator = (messages: readonly ChatMessage[]) => number

/**
 * The default {@link TokenEstimator}: the loop's `estimateTokens` (characters / 4, plus 4 per message).
 * @example
 * ```ts
 * import { defaultTokenEstimate } from '@agent-core/kits/memory'
 * defaultTokenEstimate([{ role: 'user', content: 'Hello there' }]) // 7
 * ```
 */
export const defaultTokenEstimate: TokenEstimator = (messages) => estimateTokens(messages)

/**
 * How much of a history the model sees: the last `maxMessages` messages and/or what fits `maxTokens`
 * (system messages count toward the tokens but are always kept).
 * @example
 * ```ts
 * import type { WindowOptions } from '@agent-core/kits/memory'
 * const window: WindowOptions = { maxMessages: 40, maxTokens: 6_000 }
 * ```
 */
export interface WindowOptions {
  /** Most non-system messages kept: a safe integer from 1. */
  readonly maxMessages?: number | undefined
  /** Most tokens kept (system messages included): a safe integer from 1. */
  readonly maxTokens?: number | undefined
  /** Counts tokens. Default {@link defaultTokenEstimate}. */
  readonly estimate?: TokenEstimator | undefined
}

/**
 * A window of a history, from {@link selectWindow}.
 * @example
 * ```ts
 * import type { HistoryWindow } from '@agent-core/kits/memory'
 * const note = (window: HistoryWindow) => `${window.dropped} older message(s) not shown`
 * ```
 */
export interface HistoryWindow {
  /** What the model sees: every system message and the newest turns, in their original order. */
  readonly messages: readonly ChatMessage[]
  /** Messages left out. */
  readonly dropped: number
  /** Estimated tokens of `messages`. */
  readonly tokens: number
  /** True when even the newest turn (with the system messages) is over the budget; it is kept anyway. */
  readonly overBudget: boolean
}

interface Unit {
  readonly indexes: number[]
  readonly system: boolean
}

/**
 * Splits a history into units that are kept or dropped whole: each system message alone, an assistant
 * message with tool calls together with the tool results answering them (wherever they come), and every
 * other message alone. A tool result whose call is nowhere before it joins the unit before it.
 */
export function historyUnits(messages: readonly ChatMessage[]): Unit[] {
  const units: Unit[] = []
  const byCall = new Map<string, Unit>()
  let last: Unit | undefined
  messages.forEach((message, index) => {
    if (message.role === 'system') {
      units.push({ indexes: [index], system: true })
      return
    }
    if (message.role === 'tool') {
      const target = byCall.get(message.toolCallId) ?? last
      if (target) {
        target.indexes.push(index)
        return
      }
    }
    const unit: Unit = { indexes: [index], system: false }
    units.push(unit)
    last = unit
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) byCall.set(call.id, unit)
  })
  return units
}

export function readWindowOptions(
  value: unknown,
  field: string,
): Required<Pick<WindowOptions, 'estimate'>> & WindowOptions {
  const fields = new FieldReader(
    value,
    field,
    'window options { maxMessages?, maxTokens?, estimate? }',
    'input',
  )
  const maxMessages = fields.integer('maxMessages', 1)
  const maxTokens = fields.integer('maxTokens', 1)
  const estimate = fields.func<TokenEstimator>('estimate') ?? defaultTokenEstimate
  fields.done()
  return { maxMessages, maxTokens, estimate }
}

/** Calls an estimator and checks what it returns. */
export function countWith(estimate: TokenEstimator, messages: readonly ChatMessage[], hook: string): number {
  const tokens: unknown = estimate(messages)
  if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) {
    refuseField(
      'output',
      hook,
      `must return a finite number of tokens that is not negative, but returned ${describeValue(tokens)}`,
      tokens,
      { details: { hook } },
    )
  }
  return tokens
}

/**
 * Chooses what the model sees of a history: every system message (pinned), then the newest turns that
 * fit `maxMessages` and `maxTokens`, never separating a tool result from the call that asked for it and
 * never skipping a turn (the window is the newest contiguous part). The newest turn is always kept, even
 * over the budget (`overBudget`). The history itself is not changed. The tokens of a list are the sum of
 * the estimate of its units.
 * @example
 * ```ts
 * import { selectWindow } from '@agent-core/kits/memory'
 * const window = selectWindow(
 *   [
 *     { role: 'system', content: 'Be brief.' },
 *     { role: 'user', content: 'Hi' },
 *     { role: 'assistant', content: 'Hello!' },
 *     { role: 'user', content: 'Weather?' },
 *   ],
 *   { maxMessages: 1 },
 * )
 * window.messages.length // 2: the system message and the last question
 * ```
 */
export function selectWindow(messages: readonly ChatMessage[], options: WindowOptions): HistoryWindow {
  const list = checkMessages(messages, 'messages')
  if (options === undefined)
    refuseField(
      'input',
      'options',
      'must be given: { maxMessages?, maxTokens?, estimate? }, but got undefined',
      options,
      {
        prefix: 'selectWindow: ',
      },
    )
  const { maxMessages, maxTokens, estimate } = readWindowOptions(options, 'options')
  return windowOf(list, { maxMessages, maxTokens, estimate })
}

/** {@link selectWindow} over checked messages and options. */
export function windowOf(
  list: readonly ChatMessage[],
  options: { maxMessages?: number | undefined; maxTokens?: number | undefined; estimate: TokenEstimator },
): HistoryWindow {
  const units = historyUnits(list)
  const cost = (unit: Unit) =>
    countWith(
      options.estimate,
      unit.indexes.map((index) => list[index]!),
      'window.estimate',
    )
  const keep = new Array<boolean>(list.length).fill(false)
  let tokens = 0
  for (const unit of units)
    if (unit.system) {
      keep[unit.indexes[0]!] = true
      tokens += cost(unit)
    }
  let count = 0
  let keptAny = false
  let overBudget = false
  for (let u = units.length - 1; u >= 0; u--) {
    const unit = units[u]!
    if (unit.system) continue
    const size = unit.indexes.length
    const unitTokens = options.maxTokens === undefined ? 0 : cost(unit)
    const fits =
      (options.maxMessages === undefined || count + size <= options.maxMessages) &&
      (options.maxTokens === undefined || tokens + unitTokens <= options.maxTokens)
    if (!fits && keptAny) break
    if (!fits) overBudget = true
    for (const index of unit.indexes) keep[index] = true
    count += size
    tokens += options.maxTokens === undefined ? cost(unit) : unitTokens
    keptAny = true
  }
  const kept = list.filter((_, index) => keep[index])
  if (!keptAny && options.maxTokens !== undefined && tokens > options.maxTokens) overBudget = true
  return { messages: kept, dropped: list.length - kept.length, tokens, overBudget }
}
