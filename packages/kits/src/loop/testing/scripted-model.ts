import {
  abortedError,
  type ChatModel,
  describeValue,
  FieldReader,
  type FinishReason,
  InvalidStateError,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  type ModelUsage,
  type OperationContext,
  refuseField,
  type ToolCall,
  throwIfAborted,
} from '@agent-core/core'
import type { JsonValue } from '@agent-core/kits/tools'
import { isRecord } from '../internal/check.js'
import { estimateTokens } from '../trim-messages.js'

/**
 * One tool call a scripted turn makes: the tool's name and its input (or the raw argument text, to
 * simulate a broken call). The id defaults to `call_<turn>_<index>`.
 * @example
 * ```ts
 * import type { ScriptedToolCall } from '@agent-core/kits/loop/testing'
 * const call: ScriptedToolCall = { name: 'weather', input: { city: 'Lyon' } }
 * ```
 */
export interface ScriptedToolCall {
  /** The tool-call id. Default `call_<turn>_<position>` (turn from 1, position in the reply from 0). */
  readonly id?: string | undefined
  /** The tool the model calls. */
  readonly name: string
  /** The input, sent as JSON text. Default `{}`. */
  readonly input?: JsonValue | undefined
  /** The raw argument text instead of `input` (to test malformed arguments). */
  readonly arguments?: string | undefined
}

/**
 * One reply of a scripted model: text (streamed in `chunks`, default word by word), reasoning, tool calls,
 * usage and finish reason; or an `error` to throw; or a function of the request that returns one of those.
 * @example
 * ```ts
 * import type { ScriptedTurn } from '@agent-core/kits/loop/testing'
 * const turns: ScriptedTurn[] = [
 *   { toolCalls: [{ name: 'clock', input: {} }] },
 *   (request) => ({ text: `You asked ${request.messages.length} things.` }),
 *   { error: new Error('the provider is down') },
 * ]
 * ```
 */
export type ScriptedTurn =
  | {
      readonly text?: string | undefined
      /** How the text streams; must join to `text`. Default: word by word. */
      readonly chunks?: readonly string[] | undefined
      readonly thinking?: string | undefined
      readonly toolCalls?: readonly ScriptedToolCall[] | undefined
      /** Default: estimated from the request and the reply. */
      readonly usage?: Partial<ModelUsage> | undefined
      /** Default `tool-calls` when there are calls, else `stop`. */
      readonly finishReason?: FinishReason | undefined
    }
  | { readonly error: unknown }
  | ((request: ModelRequest, context: OperationContext<unknown>) => ScriptedTurn | Promise<ScriptedTurn>)

/**
 * Options of {@link createScriptedModel}.
 * @example
 * ```ts
 * import type { ScriptedModelOptions } from '@agent-core/kits/loop/testing'
 * const options: ScriptedModelOptions = { identity: 'test-model', delayMs: 5 }
 * ```
 */
export interface ScriptedModelOptions {
  /** The model's identity. Default `scripted`. */
  readonly identity?: string | undefined
  /** Wait before each streamed event, in ms (cancellation interrupts it). Default 0: no wait at all. */
  readonly delayMs?: number | undefined
  /** Offer `stream` (default true); false gives a model with `generate` only. */
  readonly stream?: boolean | undefined
}

/**
 * A chat model that replays a script, for tests: each call takes the next turn. It logs every request, and
 * fails clearly when it is called once more than its script allows; {@link ScriptedModel.assertDone}
 * fails when turns were left unused.
 * @example
 * ```ts
 * import { defineAgent } from '@agent-core/kits/loop'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 * const model = createScriptedModel([{ text: 'Hi!' }])
 * const agent = defineAgent({ model })
 * await agent.run({ prompt: 'Hello' })
 * model.calls.length // 1
 * model.assertDone()
 * ```
 */
export interface ScriptedModel extends ChatModel<unknown> {
  /** Every request received, in order. */
  readonly calls: readonly ModelRequest[]
  /** Turns not used yet. */
  readonly remaining: number
  /**
   * Throws an `InvalidStateError` when turns are left unused (the agent stopped earlier than the test
   * expected).
   */
  assertDone(): void
}

type ReadTurn = {
  readonly text: string
  readonly chunks: readonly string[]
  readonly thinking: string
  readonly toolCalls: readonly ToolCall[]
  readonly usage: Partial<ModelUsage> | undefined
  readonly finishReason: FinishReason | undefined
}

const FINISH: readonly string[] = ['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other']

function readTurn(value: unknown, field: string, index: number): ReadTurn | { readonly error: unknown } {
  if (isRecord(value) && Object.hasOwn(value, 'error')) {
    const fields: FieldReader = new FieldReader(value, field, 'an error turn { error }')
    fields.get('error')
    fields.done()
    return { error: value.error }
  }
  const fields: FieldReader = new FieldReader(value, field, 'a scripted turn { text?, toolCalls?, ... }')
  const text = fields.string('text', { empty: true }) ?? ''
  const chunksValue = fields.get('chunks')
  const thinking = fields.string('thinking', { empty: true }) ?? ''
  const callsValue = fields.get('toolCalls') ?? []
  const usage = fields.get('usage')
  const finishReason = fields.get('finishReason')
  fields.done()
  let chunks: readonly string[]
  if (chunksValue === undefined) chunks = text === '' ? [] : (text.match(/\s*\S+\s*/g) ?? [text])
  else {
    if (
      !Array.isArray(chunksValue) ||
      !chunksValue.every((chunk) => typeof chunk === 'string') ||
      chunksValue.join('') !== text
    ) {
      fields.fail('chunks', 'must be an array of strings that join to text', chunksValue)
    }
    chunks = chunksValue as string[]
  }
  if (!Array.isArray(callsValue))
    fields.fail('toolCalls', `must be an array, but got ${describeValue(callsValue)}`, callsValue)
  const toolCalls = callsValue.map((call: unknown, at) => {
    const callFields: FieldReader = new FieldReader(
      call,
      `${field}.toolCalls[${at}]`,
      'a tool call { name, input?, arguments?, id? }',
    )
    const id = callFields.string('id', { empty: true }) ?? `call_${index + 1}_${at}`
    const name = callFields.requiredString('name')!
    const input = callFields.get('input')
    const raw = callFields.string('arguments', { empty: true })
    callFields.done()
    if (input !== undefined && raw !== undefined)
      callFields.fail('arguments', 'cannot be given with input', raw)
    return { id, name, arguments: raw ?? JSON.stringify(input ?? {}) }
  })
  if (usage !== undefined && !isRecord(usage))
    fields.fail('usage', `must be an object, but got ${describeValue(usage)}`, usage)
  if (finishReason !== undefined && !FINISH.includes(finishReason as string)) {
    fields.fail('finishReason', `must be one of ${FINISH.join(', ')}`, finishReason)
  }
  return {
    text,
    chunks,
    thinking,
    toolCalls,
    usage: usage as Partial<ModelUsage> | undefined,
    finishReason: finishReason as FinishReason | undefined,
  }
}

function usageOf(turn: ReadTurn, request: ModelRequest): ModelUsage {
  const inputTokens = turn.usage?.inputTokens ?? estimateTokens(request.messages)
  const outputTokens =
    turn.usage?.outputTokens ??
    estimateTokens(turn.text) +
      estimateTokens(turn.thinking) +
      turn.toolCalls.reduce((sum, call) => sum + estimateTokens(call.arguments) + 4, 0)
  return { inputTokens, outputTokens, totalTokens: turn.usage?.totalTokens ?? inputTokens + outputTokens }
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortedError(signal, 'in the scripted model'))
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * Creates a {@link ScriptedModel}: a chat model for tests that replays `turns` in order, streaming each
 * (text word by word, tool calls as start, argument delta and end events, then `finish`), and honours
 * cancellation (an aborted signal stops it with core's `AbortedError`, between events and during
 * `delayMs` waits). Zero latency by default.
 * @throws `InvalidInputError` for a malformed script (checked here, before any call) or options
 * @example
 * ```ts
 * import { defineAgent } from '@agent-core/kits/loop'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 * const model = createScriptedModel([{ text: 'Hello!' }])
 * const agent = defineAgent({ model })
 * const result = await agent.run({ prompt: 'Hi' })
 * model.assertDone()
 * ```
 */
export function createScriptedModel(
  turns: readonly ScriptedTurn[],
  options: ScriptedModelOptions = {},
): ScriptedModel {
  if (!Array.isArray(turns)) {
    refuseField('input', 'turns', `must be an array of turns, but got ${describeValue(turns)}`, turns, {
      prefix: 'createScriptedModel: ',
    })
  }
  const fields: FieldReader = new FieldReader(
    options,
    'options',
    'scripted model options { identity?, delayMs?, stream? }',
  )
  const identity = fields.string('identity') ?? 'scripted'
  const delayMs = fields.integer('delayMs', 0, 2_147_483_647) ?? 0
  const streaming = fields.boolean('stream') ?? true
  fields.done()
  const script = turns.map((turn, index) =>
    typeof turn === 'function' ? turn : readTurn(turn, `turns[${index}]`, index),
  )
  const calls: ModelRequest[] = []
  let next = 0

  /** The next turn; synchronous for a scripted value, a promise for a function turn. */
  function take(request: ModelRequest, context: OperationContext<unknown>): ReadTurn | Promise<ReadTurn> {
    const signal = context?.signal
    throwIfAborted(signal, 'before the scripted model answered')
    calls.push(request)
    const index = next
    if (index >= script.length) {
      throw new InvalidStateError(
        `The scripted model "${identity}" was called ${index + 1} times, but its script has ${script.length} turn${script.length === 1 ? '' : 's'}. Add a turn, or find out why the agent called the model again (the last request ended with a ${request.messages.at(-1)?.role ?? 'missing'} message).`,
        { details: { field: 'turns', received: `call ${index + 1}` } },
      )
    }
    next++
    const turn = script[index]!
    if (typeof turn === 'function') {
      return Promise.resolve(turn(request, context)).then((value) => {
        const read = readTurn(value, `turns[${index}]()`, index)
        if ('error' in read) throw read.error
        return read
      })
    }
    if ('error' in turn) throw turn.error
    return turn
  }

  const model: ScriptedModel = {
    identity,
    get calls() {
      return calls
    },
    get remaining() {
      return script.length - next
    },
    assertDone() {
      if (next < script.length) {
        throw new InvalidStateError(
          `The scripted model "${identity}" used ${next} of its ${script.length} turns; ${script.length - next} were never asked for. The agent stopped earlier than the script expects.`,
          { details: { field: 'turns', received: `${next} used` } },
        )
      }
    },
    async generate(request, context): Promise<ModelResponse> {
      const turn = await take(request, context)
      await wait(delayMs, context.signal)
      return {
        message: {
          role: 'assistant',
          content: turn.text,
          ...(turn.toolCalls.length > 0 ? { toolCalls: turn.toolCalls } : {}),
          ...(turn.thinking !== '' ? { thinking: turn.thinking } : {}),
        },
        finishReason: turn.finishReason ?? (turn.toolCalls.length > 0 ? 'tool-calls' : 'stop'),
        usage: usageOf(turn, request),
        model: identity,
      }
    },
  }
  if (streaming) {
    Object.defineProperty(model, 'stream', {
      enumerable: true,
      value: async function* stream(
        request: ModelRequest,
        context: OperationContext<unknown>,
      ): AsyncIterable<ModelStreamEvent> {
        const taken = take(request, context)
        const turn = taken instanceof Promise ? await taken : taken
        const signal = context.signal
        const events: ModelStreamEvent[] = []
        if (turn.thinking !== '') events.push({ type: 'thinking-delta', text: turn.thinking })
        for (const chunk of turn.chunks) events.push({ type: 'text-delta', text: chunk })
        turn.toolCalls.forEach((call, index) => {
          events.push({ type: 'tool-call-start', index, id: call.id, name: call.name })
          if (call.arguments !== '')
            events.push({ type: 'tool-call-delta', index, argumentsDelta: call.arguments })
          events.push({ type: 'tool-call-end', index, call })
        })
        events.push({
          type: 'finish',
          finishReason: turn.finishReason ?? (turn.toolCalls.length > 0 ? 'tool-calls' : 'stop'),
          usage: usageOf(turn, request),
          model: identity,
        })
        for (const event of events) {
          if (delayMs > 0) await wait(delayMs, signal)
          throwIfAborted(signal, 'while the scripted model streamed')
          yield event
        }
      },
    })
  }
  return Object.freeze(model)
}
