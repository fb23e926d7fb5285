import {
  type ChatMessage,
  describeValue,
  InvalidOutputError,
  isRecord,
  type ToolCall,
  type ToolChoice,
} from '@agent-core/core'
import { readMessages, readToolIds } from './engine-host.js'

// What a turn's model call is made of, besides the history: the per-turn control `beforeTurn` returns, and
// the reply's tool calls with ids the run can key them by.

/** Reads what `beforeTurn` returned: `{ messages?, tools?, toolChoice? }`, strictly. */
export function readTurnControl(
  answered: unknown,
  runTools: ReadonlySet<string> | undefined,
): {
  readonly messages: readonly ChatMessage[] | undefined
  readonly tools: ReadonlySet<string> | undefined
  readonly toolChoice: ToolChoice | undefined
} {
  const fail = (message: string, cause?: unknown): never => {
    throw new InvalidOutputError(message, {
      ...(cause === undefined ? {} : { cause }),
      details: { hook: 'beforeTurn', received: describeValue(answered) },
    })
  }
  if (!isRecord(answered) || Object.keys(answered).some((key) => !TURN_FIELDS.includes(key))) {
    fail(
      `beforeTurn must return nothing or { messages?, tools?, toolChoice? }, but returned ${describeValue(answered)}.`,
    )
  }
  const record = answered as Record<string, unknown>
  let messages: readonly ChatMessage[] | undefined
  if (record.messages !== undefined) {
    try {
      messages = readMessages(record.messages, 'beforeTurn().messages')
    } catch (error) {
      fail((error as Error).message, error)
    }
    if (messages?.length === 0) fail('beforeTurn returned no messages; keep at least the newest turn.')
  }
  let tools: ReadonlySet<string> | undefined
  if (record.tools !== undefined) {
    try {
      tools = readToolIds(record.tools, 'beforeTurn().tools')
    } catch (error) {
      fail((error as Error).message, error)
    }
    for (const id of tools ?? []) {
      if (runTools !== undefined && !runTools.has(id)) {
        fail(
          `beforeTurn().tools names "${id}", which is not one of this run's tools; it may only narrow them.`,
        )
      }
    }
  }
  const choice = record.toolChoice
  if (
    choice !== undefined &&
    choice !== 'auto' &&
    choice !== 'none' &&
    choice !== 'required' &&
    !(isRecord(choice) && typeof choice.name === 'string' && Object.keys(choice).length === 1)
  ) {
    fail(
      `beforeTurn().toolChoice must be "auto", "none", "required" or { name }, but is ${describeValue(choice)}.`,
    )
  }
  return { messages, tools, toolChoice: choice as ToolChoice | undefined }
}

const TURN_FIELDS: readonly string[] = ['messages', 'tools', 'toolChoice']

/** Gives every call of a reply a usable, distinct id (an empty or repeated id gets a new one). */
export function uniqueCalls(calls: readonly ToolCall[], turn: number): readonly ToolCall[] {
  if (calls.length === 0 || (calls.length === 1 && calls[0]!.id !== '')) return calls
  const seen = new Set<string>()
  let changed = false
  const out = calls.map((call, index) => {
    if (call.id !== '' && !seen.has(call.id)) {
      seen.add(call.id)
      return call
    }
    changed = true
    let id = `call_t${turn}_${index}`
    while (seen.has(id)) id = `${id}_`
    seen.add(id)
    return Object.freeze({ ...call, id })
  })
  return changed ? out : calls
}
