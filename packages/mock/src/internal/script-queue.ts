import type { MockEndpoint, MockMatch, MockRequestView, MockScriptEntry } from '../script.js'
import { runPredicate } from './validate-script.js'

interface QueuedEntry {
  readonly entry: MockScriptEntry
  readonly index: number
  remaining: number
}

function matches(match: MockMatch, view: MockRequestView): boolean {
  if (match.model !== undefined && match.model !== view.model) return false
  if (match.stream !== undefined && match.stream !== view.stream) return false
  if (match.hasTools !== undefined && match.hasTools !== view.toolNames.length > 0) return false
  if (
    match.lastUserMessageIncludes !== undefined &&
    !view.lastUserMessage.includes(match.lastUserMessageIncludes)
  )
    return false
  return true
}

function endpointsOf(entry: MockScriptEntry): readonly MockEndpoint[] | undefined {
  const match = entry.match
  if (typeof match === 'function') return undefined
  const e = match?.endpoint
  return e === undefined ? ['chat.completions', 'responses'] : typeof e === 'string' ? [e] : e
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
    for (const entry of entries)
      this.entries.push({ entry, index: this.counter++, remaining: entry.times ?? 1 })
  }

  /** The first entry whose match holds for `view`, used up after its `times`; `undefined` when none does. */
  take(view: MockRequestView): { readonly entry: MockScriptEntry; readonly index: number } | undefined {
    const queue = this.entries
    for (let i = 0; i < queue.length; i++) {
      const queued = queue[i] as QueuedEntry
      const { entry } = queued
      const endpoints = endpointsOf(entry)
      if (endpoints && !endpoints.includes(view.endpoint)) continue
      const match = entry.match
      const ok =
        typeof match === 'function'
          ? runPredicate(match, view, `MockGPT script entry ${queued.index} match`)
          : match === undefined || matches(match, view)
      if (!ok) continue
      queued.remaining--
      if (queued.remaining <= 0) queue.splice(i, 1)
      return queued
    }
    return undefined
  }
}
