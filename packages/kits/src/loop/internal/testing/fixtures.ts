/**
 * Fixtures of the loop's tests (private: `testing/` is never a subpath): tools whose executions are
 * counted, and a compact view of a run's events.
 */
import { defineModelTool, type ModelTool } from '@agent-core/core/tools'
import type { AgentEvent } from '../../index.js'

/** One line per event: its type and the call or scope it is about (`tool-resolved:add`). */
export function brief(event: AgentEvent): string {
  switch (event.type) {
    case 'tool-start':
    case 'tool-awaiting-approval':
    case 'tool-awaiting-answer':
    case 'tool-resolved':
    case 'tool-failed':
      return `${event.type}:${event.toolId}`
    case 'tool-approved':
    case 'tool-rejected':
      return `${event.type}:${event.toolId}:${event.by}`
    case 'tool-aborted':
      return `${event.type}:${event.toolId}:${event.cause ?? 'none'}`
    case 'turn-limit-exceeded':
      return `${event.type}:${event.scope}`
    case 'run-done':
      return `${event.type}:${event.reason}`
    default:
      return event.type
  }
}

/** Collects events; `types` drops text deltas (their number depends on the text). */
export class EventLog {
  readonly events: AgentEvent[] = []
  readonly onEvent = (event: AgentEvent): void => {
    this.events.push(event)
  }
  get all(): string[] {
    return this.events.map(brief)
  }
  get types(): string[] {
    return this.events
      .filter((event) => event.type !== 'text-delta' && event.type !== 'thinking-delta')
      .map(brief)
  }
  of<T extends AgentEvent['type']>(type: T): Extract<AgentEvent, { type: T }>[] {
    return this.events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type)
  }
}

/** A tool that adds two numbers and counts its executions by invocation id. */
export function counted(id = 'add'): { tool: ModelTool<{ a: number; b: number }, number>; runs: string[] } {
  const runs: string[] = []
  const tool = defineModelTool<{ a: number; b: number }, number>({
    id,
    description: 'Adds two numbers',
    inputSchema: {
      type: 'object',
      required: ['a', 'b'],
      additionalProperties: false,
      properties: { a: { type: 'number' }, b: { type: 'number' } },
    },
    execute: ({ a, b }, { invocationId }) => {
      runs.push(invocationId)
      return a + b
    },
  })
  return { tool, runs }
}

/** A promise with its resolve function outside. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((r) => {
    resolve = r
  })
  return { promise, resolve }
}
