import { ConflictError, describeValue, refuseField } from '@agent-core/core'
import { canonicalJson, copyJson } from './internal/json.js'
import type { ToolCallOutcome } from './tool-call-outcome.js'
import {
  assertToolCallState,
  type PendingToolCall,
  type ToolCallRecord,
  type ToolCallState,
} from './tool-call-state.js'

/** A call in flight: its input's canonical text (to tell a repeat from a conflict) and its outcome. */
interface Running {
  readonly toolId: string
  readonly fingerprint: string
  readonly outcome: Promise<ToolCallOutcome>
}

const running = new WeakMap<ToolCallJournal, Map<string, Running>>()

/** Records a state the registry produced (already checked and frozen); assigned inside the class. */
export let recordState: (journal: ToolCallJournal, state: ToolCallState) => void

/**
 * The in-request journal: the latest state of every call of one request (a run, a code-tool execution,
 * an MCP request), keyed by the `invocationId` core allocated. Pass it to `run` and `resume` so that a
 * tool-call id seen twice in the request (a model repeating a call, a replayed step, a double-clicked
 * approval) is answered from the journal instead of running again, and concurrent duplicates share one
 * execution.
 *
 * It is plain data underneath: `toJSON()` gives every state, and `new ToolCallJournal(states)` restores
 * them in another process, where settled calls replay without running.
 *
 * @example
 * ```ts
 * import { ToolCallJournal } from '@agent-core/kits/tools'
 * import type { OperationContext } from '@agent-core/core'
 * import type { ToolLifecycleRegistry } from '@agent-core/kits/tools'
 * declare const context: OperationContext
 * declare const tools: ToolLifecycleRegistry
 * const journal = new ToolCallJournal()
 * await tools.run({ toolCallId: 'call_1', toolId: 'add', input: { a: 1, b: 2 } }, context, { journal })
 * const saved = JSON.stringify(journal)
 * const restored = new ToolCallJournal(JSON.parse(saved))
 * restored.find('call_1')?.status // 'completed'
 * ```
 */
export class ToolCallJournal {
  readonly #states = new Map<string, ToolCallState>()
  readonly #byCall = new Map<string, string>()

  /**
   * @param states - states to start from (for example the `toJSON()` of a journal saved earlier); each is
   *   checked with `assertToolCallState`
   * @throws `InvalidInputError` for a malformed state, `ConflictError` for two states that disagree
   */
  constructor(states: Iterable<ToolCallState> = []) {
    running.set(this, new Map())
    if (
      states === null ||
      typeof states !== 'object' ||
      typeof (states as Iterable<ToolCallState>)[Symbol.iterator] !== 'function'
    ) {
      refuseField(
        'input',
        'states',
        `must be an array of tool call states, but got ${describeValue(states)}`,
        states,
        {
          prefix: 'A ToolCallJournal: ',
        },
      )
    }
    let index = 0
    for (const state of states) {
      this.record(state, `states[${index}]`)
      index++
    }
  }

  /** Number of calls recorded. */
  get size(): number {
    return this.#states.size
  }

  /**
   * Records the latest state of a call. A pending call may be replaced by its settlement (same
   * `invocationId`); a settled call can only be recorded again unchanged.
   * @throws `InvalidInputError` for a malformed state; `ConflictError` when the call already settled
   *   differently, or its tool-call id belongs to another invocation
   */
  record(state: ToolCallState, field = 'state'): void {
    assertToolCallState(state, field)
    recordState(this, copyJson(state as never) as ToolCallState)
  }

  /** The state of the invocation, or `undefined`. */
  get(invocationId: string): ToolCallState | undefined {
    return typeof invocationId === 'string' ? this.#states.get(invocationId) : undefined
  }

  /** The state of the call with this tool-call id, or `undefined`. */
  find(toolCallId: string): ToolCallState | undefined {
    if (typeof toolCallId !== 'string') return undefined
    const invocationId = this.#byCall.get(toolCallId)
    return invocationId === undefined ? undefined : this.#states.get(invocationId)
  }

  /** Every state, in the order the calls were first recorded. */
  states(): readonly ToolCallState[] {
    return [...this.#states.values()]
  }

  /** The calls still waiting for a decision. */
  pending(): readonly PendingToolCall[] {
    return this.states().filter((state): state is PendingToolCall => state.status === 'pending')
  }

  /** The settled calls. */
  records(): readonly ToolCallRecord[] {
    return this.states().filter((state): state is ToolCallRecord => state.status !== 'pending')
  }

  /** Every state as plain JSON (what `JSON.stringify(journal)` writes). */
  toJSON(): ToolCallState[] {
    return [...this.#states.values()]
  }

  static {
    recordState = (journal, state) => {
      const byCall = journal.#byCall.get(state.toolCallId)
      if (byCall !== undefined && byCall !== state.invocationId) {
        throw new ConflictError(
          `Tool call "${state.toolCallId}" is already recorded under invocation "${byCall}", not "${state.invocationId}". A tool-call id names one call; give a new call a new id.`,
          { details: { toolCallId: state.toolCallId, invocationId: state.invocationId, recorded: byCall } },
        )
      }
      const existing = journal.#states.get(state.invocationId)
      if (existing !== undefined && existing.status !== 'pending') {
        if (canonicalJson(existing as never) !== canonicalJson(state as never)) {
          throw new ConflictError(
            `Invocation "${state.invocationId}" (tool call "${state.toolCallId}") already settled as ${existing.status}; it cannot become ${state.status}. A settled call never runs again.`,
            {
              details: {
                toolCallId: state.toolCallId,
                invocationId: state.invocationId,
                recorded: existing.status,
                received: state.status,
              },
            },
          )
        }
        return
      }
      if (existing !== undefined && existing.toolCallId !== state.toolCallId) {
        throw new ConflictError(
          `Invocation "${state.invocationId}" belongs to tool call "${existing.toolCallId}", not "${state.toolCallId}".`,
          { details: { toolCallId: state.toolCallId, invocationId: state.invocationId } },
        )
      }
      journal.#states.set(state.invocationId, state)
      journal.#byCall.set(state.toolCallId, state.invocationId)
    }
  }
}

/** The calls of this journal that are running now, by tool-call id. */
export function runningCalls(journal: ToolCallJournal): Map<string, Running> {
  return running.get(journal)!
}

/** True for a journal made by this module (not a look-alike object). */
export function isJournal(value: unknown): value is ToolCallJournal {
  return typeof value === 'object' && value !== null && running.has(value as ToolCallJournal)
}
