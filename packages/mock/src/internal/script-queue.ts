import type {
  MockComputedReply,
  MockEndpoint,
  MockMatch,
  MockReply,
  MockRequestView,
  MockScriptEntry,
} from '../script.js'
import { runPredicate } from './validate-script.js'

interface QueuedEntry {
  readonly entry: MockScriptEntry
  readonly index: number
  /** Uses left per step: one step for a `reply` (or faults only), one per turn for a `sequence`. */
  readonly remaining: number[]
  readonly pattern: RegExp | undefined
  used: number
}

/** An entry that answered a request, and which of its replies applies. */
export interface TakenEntry {
  readonly entry: MockScriptEntry
  readonly index: number
  readonly reply: MockReply | MockComputedReply | undefined
  /** The sequence step that answered, for a `sequence` entry. */
  readonly step: number | undefined
}

/** A script entry that has not been used up, for `assertAllScriptsUsed()` and the usage endpoint. */
export interface PendingEntry {
  readonly index: number
  readonly label: string | undefined
  /** Uses left (summed over the steps of a sequence); `Infinity` for an entry kept forever. */
  readonly remaining: number
  /** How many requests it answered so far. */
  readonly used: number
  /** Which sequence steps are still unused (`undefined` for a plain entry). */
  readonly unusedSteps: readonly number[] | undefined
  /** A short description of what the entry waits for. */
  readonly waitsFor: string
}

const DEFAULT_ENDPOINTS: readonly MockEndpoint[] = ['chat.completions', 'responses', 'messages']

function matches(match: MockMatch, pattern: RegExp | undefined, view: MockRequestView): boolean {
  const model = match.model
  if (model !== undefined && (typeof model === 'string' ? model !== view.model : !model.includes(view.model)))
    return false
  if (match.stream !== undefined && match.stream !== view.stream) return false
  if (match.hasTools !== undefined && match.hasTools !== view.toolNames.length > 0) return false
  if (match.toolOffered !== undefined && !view.toolNames.includes(match.toolOffered)) return false
  if (match.toolCalled !== undefined && !view.toolCalls.some((c) => c.name === match.toolCalled)) return false
  if (match.turn !== undefined && match.turn !== view.turn) return false
  if (
    match.lastUserMessageIncludes !== undefined &&
    !view.lastUserMessage.includes(match.lastUserMessageIncludes)
  )
    return false
  if (pattern) {
    pattern.lastIndex = 0
    if (!pattern.test(view.lastUserMessage)) return false
  }
  return true
}

function endpointsOf(entry: MockScriptEntry): readonly MockEndpoint[] | undefined {
  const match = entry.match
  if (typeof match === 'function') return undefined
  const e = match?.endpoint
  return e === undefined ? DEFAULT_ENDPOINTS : typeof e === 'string' ? [e] : e
}

function describeEntry(entry: MockScriptEntry): string {
  const match = entry.match
  const what =
    match === undefined
      ? 'any model request'
      : typeof match === 'function'
        ? 'a request its predicate accepts'
        : `a request with ${JSON.stringify(match, (_, v) => (v instanceof RegExp ? String(v) : v))}`
  const reply = entry.sequence
    ? `a ${entry.sequence.length}-turn sequence`
    : typeof entry.reply === 'function'
      ? 'a computed reply'
      : entry.reply
        ? `a "${entry.reply.type}" reply`
        : `faults (${(entry.faults ?? []).map((f) => f.type).join(', ')})`
  return `${reply} for ${what}`
}

/** The script entries waiting to answer, tried in order. */
export class ScriptQueue {
  private entries: QueuedEntry[] = []
  private counter = 0

  get size(): number {
    return this.entries.length
  }

  clear(): void {
    this.entries = []
    this.counter = 0
  }

  enqueue(entries: readonly MockScriptEntry[]): void {
    for (const entry of entries) {
      const times = entry.times ?? 1
      const steps = entry.sequence?.length ?? 1
      const source = typeof entry.match === 'object' ? entry.match?.lastUserMessageMatches : undefined
      const pattern =
        source === undefined
          ? undefined
          : typeof source === 'string'
            ? new RegExp(source, 'u')
            : new RegExp(source.source, source.flags.replace(/[gy]/g, ''))
      this.entries.push({
        entry,
        index: this.counter++,
        remaining: Array.from({ length: steps }, () => times),
        pattern,
        used: 0,
      })
    }
  }

  /** The entries not used up yet. */
  pending(): PendingEntry[] {
    return this.entries.map((queued) => {
      const { entry } = queued
      const remaining = queued.remaining.reduce((n, r) => n + r, 0)
      return {
        index: queued.index,
        label: entry.label,
        remaining,
        used: queued.used,
        unusedSteps: entry.sequence
          ? queued.remaining.flatMap((r, step) => (r > 0 ? [step] : []))
          : undefined,
        waitsFor: describeEntry(entry),
      }
    })
  }

  /** The first entry whose match holds for `view`, used up after its `times`; `undefined` when none does. */
  take(view: MockRequestView): TakenEntry | undefined {
    const queue = this.entries
    for (let i = 0; i < queue.length; i++) {
      const queued = queue[i] as QueuedEntry
      const { entry } = queued
      const endpoints = endpointsOf(entry)
      if (endpoints && !endpoints.includes(view.endpoint)) continue
      const step = entry.sequence ? view.turn : 0
      if (!((queued.remaining[step] ?? 0) > 0)) continue
      const match = entry.match
      const ok =
        typeof match === 'function'
          ? runPredicate(match, view, `MockGPT script entry ${entryName(queued.index, entry)} match`)
          : match === undefined || matches(match, queued.pattern, view)
      if (!ok) continue
      queued.remaining[step] = (queued.remaining[step] as number) - 1
      queued.used++
      if (queued.remaining.every((r) => r <= 0)) queue.splice(i, 1)
      return {
        entry,
        index: queued.index,
        reply: entry.sequence ? entry.sequence[step] : entry.reply,
        step: entry.sequence ? step : undefined,
      }
    }
    return undefined
  }
}

/** How errors name an entry: its position, and its label when it has one. */
export function entryName(index: number, entry: MockScriptEntry | undefined): string {
  return entry?.label ? `${index} ("${entry.label}")` : String(index)
}
