import {
  formatSchemaIssues,
  InvalidDefinitionError,
  InvalidInputError,
  type JsonSchemaValidator,
} from '@agent-core/core'
import { generateFromSchema } from '../schema/index.js'
import type { MockReply } from '../script.js'
import { countTokens, tokenize } from '../tokenizer.js'
import { hashString } from './hash.js'
import type { NormalizedRequest, NormalizedTool } from './normalize.js'
import { assertGeneratable } from './normalize.js'
import { badRequest, MockRequestError } from './openai-error.js'
import { mulberry32 } from './prng.js'

export interface AnswerToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/** The assistant turn MockGPT will send, independent of the wire format. */
export interface Answer {
  readonly text: string
  /** The content deltas of a stream; they join to `text`. */
  readonly pieces: readonly string[]
  readonly toolCalls: readonly AnswerToolCall[]
  readonly finishReason: 'stop' | 'length' | 'tool_calls'
  readonly outputTokens: number
  /** The model's thinking, sent before the answer (`''` for none). */
  readonly reasoning: string
  /** The reasoning deltas of a stream; they join to `reasoning`. */
  readonly reasoningPieces: readonly string[]
}

export interface AnswerContext {
  /** Seeds everything derived from the request's content (text, JSON values, tool arguments). */
  readonly contentSeed: number
  /** A deterministic tool call id for call `i` of this answer. */
  readonly callId: (i: number) => string
}

const WORDS = [
  'amber',
  'basil',
  'cedar',
  'delta',
  'ember',
  'fable',
  'garnet',
  'harbor',
  'indigo',
  'juniper',
  'kernel',
  'lumen',
  'meadow',
  'nectar',
  'orbit',
  'pebble',
  'quartz',
  'ripple',
  'saffron',
  'timber',
  'umber',
  'velvet',
  'willow',
  'yonder',
  'zephyr',
  'signal',
  'lantern',
  'compass',
  'thistle',
  'marble',
  'canyon',
  'glacier',
]

/** `text` on one line (whitespace runs as one space, trimmed), cut to `max` characters with an ellipsis. */
export function snippet(text: string, max = 120): string {
  const flat = isFlat(text) ? text : text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/**
 * Whether `text` is printable ASCII with single spaces between words only, which `snippet` would return as
 * it is: a char loop that spares most prompts the replace and the trim.
 */
function isFlat(text: string): boolean {
  // A leading space counts as a repeated one.
  let afterSpace = true
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 32) {
      if (afterSpace) return false
      afterSpace = true
    } else if (c < 33 || c > 126) {
      return false
    } else {
      afterSpace = false
    }
  }
  return !afterSpace || text.length === 0
}

/** The default text: an echo of the last user message plus seeded words, so answers differ by prompt and seed. */
export function defaultText(request: NormalizedRequest, contentSeed: number): string {
  const random = mulberry32(contentSeed)
  const count = 6 + Math.floor(random() * 7)
  const words: string[] = []
  for (let i = 0; i < count; i++) words.push(WORDS[Math.floor(random() * WORDS.length)] as string)
  const last = request.messages.at(-1)
  const tail = `${words.join(' ')}.`
  if (last?.role === 'tool') return `MockGPT read the tool result "${snippet(last.text, 80)}": ${tail}`
  let user: NormalizedRequest['messages'][number] | undefined
  for (let i = request.messages.length - 1; i >= 0 && user === undefined; i--) {
    const m = request.messages[i] as NormalizedRequest['messages'][number]
    if (m.role === 'user') user = m
  }
  return user ? `MockGPT reply to "${snippet(user.text)}": ${tail}` : `MockGPT reply: ${tail}`
}

function checkedJson(
  value: unknown,
  validator: JsonSchemaValidator | undefined,
  what: string,
  generated: boolean,
): string {
  if (validator) {
    const result = validator.validate(value)
    if (!result.ok) {
      const issues = formatSchemaIssues(result.issues)
      throw generated
        ? new MockRequestError(
            500,
            `MockGPT generated a value for ${what} that fails its schema (${issues}); nothing invalid was sent. This is a generator bug: report the schema and seed.`,
            { code: 'generated_value_invalid' },
          )
        : scriptProblem(
            `the scripted value for ${what} fails its schema (${issues}); fix the script, or use a "text" reply (or string tool arguments) to send invalid output on purpose.`,
          )
    }
  }
  const text = JSON.stringify(value)
  if (text === undefined)
    throw scriptProblem(`the value for ${what} is not JSON-serializable; script a JSON value.`)
  return text
}

function generate(
  tool: { schema: NormalizedTool['parameters']; validator: JsonSchemaValidator },
  seed: number,
  what: string,
  hint: string,
): string {
  assertGeneratable(tool.schema, what, hint)
  let value: unknown
  try {
    value = generateFromSchema(tool.schema, { seed })
  } catch (error) {
    if (InvalidInputError.isInstance(error) || InvalidDefinitionError.isInstance(error))
      throw badRequest(
        `MockGPT cannot generate a value for ${what}: ${error.message} ${hint}`,
        what,
        'unsupported_schema',
      )
    throw error
  }
  return checkedJson(value, tool.validator, what, true)
}

function toolParam(request: NormalizedRequest, i: number): string {
  if (request.endpoint === 'chat.completions') return `tools[${i}].function.parameters`
  return request.endpoint === 'messages' ? `tools[${i}].input_schema` : `tools[${i}].parameters`
}

/** The schema parameter of a structured answer, as the request's API names it. */
function formatParam(request: NormalizedRequest): string {
  if (request.endpoint === 'chat.completions') return 'response_format.json_schema.schema'
  return request.endpoint === 'messages' ? 'output_format.schema' : 'text.format.schema'
}

/**
 * A scripted reply MockGPT cannot send as written. The engine names the script entry, records the problem
 * and answers a non-retryable 400: a script error must never look like a transient failure.
 */
export function scriptProblem(message: string): MockRequestError {
  return new MockRequestError(400, message, { code: 'mock_script_error', type: 'mock_script_error' })
}

/** True for an error {@link scriptProblem} made. */
export function isScriptProblem(error: unknown): error is MockRequestError {
  return MockRequestError.isInstance(error) && error.details.code === 'mock_script_error'
}

function callArguments(request: NormalizedRequest, name: string, args: unknown, seed: number): string {
  const index = request.tools.findIndex((t) => t.name === name)
  const tool = request.tools[index]
  if (typeof args === 'string') return args
  if (args === undefined) {
    if (!tool) {
      throw scriptProblem(
        `the script calls the tool "${name}" without arguments, but the request offers no such tool to generate them from; script the arguments.`,
      )
    }
    return generate(
      { schema: tool.parameters, validator: tool.validator },
      seed,
      toolParam(request, index),
      'Script the call arguments instead.',
    )
  }
  return checkedJson(
    args,
    tool?.validator,
    tool ? toolParam(request, index) : `the arguments of "${name}"`,
    false,
  )
}

const NO_PIECES: readonly string[] = Object.freeze([])
const NO_CALLS: readonly AnswerToolCall[] = Object.freeze([])

/** A rendered `chat.completion` body after `"created":<n>,`, for one model and prompt size. */
export interface ChatBodyTail {
  readonly model: string
  readonly inputTokens: number
  readonly text: string
}

/**
 * An answer of text alone (no tool calls, no reasoning) whose stream pieces may be cut on first read: a
 * JSON completion needs only their number, which `countTokens` gives without building them (the same
 * number, by the tokenizer's property tests).
 */
export class TextAnswer implements Answer {
  readonly toolCalls = NO_CALLS
  readonly reasoning = ''
  readonly reasoningPieces = NO_PIECES
  /**
   * Its rendered chat bodies, kept by `chatCompletionBody`: the default responder's caches reuse text
   * answers (no other kind repeats). A field, where a WeakMap entry per answer cost the collector more
   * than rendering saved, since most answers render once.
   */
  chatTails: ChatBodyTail[] | undefined = undefined
  /** How often `chatCompletionBody` rendered it without a kept tail. */
  chatRenders = 0
  private cut: readonly string[] | undefined

  constructor(
    readonly text: string,
    readonly finishReason: 'stop' | 'length',
    readonly outputTokens: number,
    /** The pieces when the caller has them; otherwise `tokenize(text)` on first read. */
    pieces: readonly string[] | undefined,
  ) {
    this.cut = pieces
  }

  get pieces(): readonly string[] {
    this.cut ??= tokenize(this.text)
    return this.cut
  }
}

function jsonAnswer(text: string): Answer {
  // JSON answers are never cut by max tokens or stop sequences: what is sent always parses and validates.
  return new TextAnswer(text, 'stop', countTokens(text), undefined)
}

const NO_REASONING = { reasoning: '', reasoningPieces: NO_PIECES }

/** `answer` with `reasoning` sent first (its tokens count as output tokens). */
function withReasoning(answer: Answer, reasoning: string | undefined): Answer {
  if (!reasoning) return answer
  const reasoningPieces = piecesOf(reasoning)
  // Field by field: a spread would not copy the `pieces` getter of a TextAnswer.
  return {
    text: answer.text,
    pieces: answer.pieces,
    toolCalls: answer.toolCalls,
    finishReason: answer.finishReason,
    outputTokens: answer.outputTokens + reasoningPieces.length,
    reasoning,
    reasoningPieces,
  }
}

/** Texts at least this long keep one token list per distinct text (see piecesOf). */
const CACHED_PIECES_MIN_LENGTH = 256
const pieceCache = new Map<string, readonly string[]>()

/** Tokenizes once per distinct long text (scripted replies repeat); bounded. */
function piecesOf(text: string): readonly string[] {
  if (text.length < CACHED_PIECES_MIN_LENGTH) return tokenize(text)
  let pieces = pieceCache.get(text)
  if (!pieces) {
    pieces = tokenize(text)
    if (pieceCache.size >= 64) pieceCache.delete(pieceCache.keys().next().value as string)
    pieceCache.set(text, pieces)
  }
  return pieces
}

function textAnswer(
  request: NormalizedRequest,
  text: string,
  chunks: readonly string[] | undefined,
  finishReason: 'stop' | 'length',
): Answer {
  let finalText = text
  for (const stop of request.stop) {
    const at = finalText.indexOf(stop)
    if (at >= 0) {
      finalText = finalText.slice(0, at)
      chunks = undefined
    }
  }
  // A long text comes cut from piecesOf's cache (its token list also keys the stream templates); a short
  // one is only counted here, and cut (by tokenize, as piecesOf would) when a stream reads its pieces.
  const tokens = finalText.length >= CACHED_PIECES_MIN_LENGTH ? piecesOf(finalText) : undefined
  const count = tokens ? tokens.length : countTokens(finalText)
  const max = request.maxOutputTokens
  if (max !== undefined && count > max) {
    const kept = (tokens ?? tokenize(finalText)).slice(0, max)
    return new TextAnswer(kept.join(''), 'length', kept.length, kept)
  }
  return new TextAnswer(finalText, finishReason, count, chunks ?? tokens)
}

function callsAnswer(calls: readonly AnswerToolCall[], text: string): Answer {
  let outputTokens = countTokens(text)
  for (const c of calls) outputTokens += countTokens(c.name) + countTokens(c.arguments)
  return {
    text,
    pieces: tokenize(text),
    toolCalls: calls,
    finishReason: 'tool_calls',
    outputTokens,
    ...NO_REASONING,
  }
}

/** Which tools the default responder calls, or `[]` for a text (or JSON) answer. */
function defaultToolNames(request: NormalizedRequest, contentSeed: number): string[] {
  const choice = request.toolChoice
  if (request.tools.length === 0 || choice === 'none') return []
  if (typeof choice === 'object') return [choice.name]
  const last = request.messages.at(-1)
  const lastText = last?.role === 'user' ? last.text.toLowerCase() : ''
  const mentioned = lastText
    ? request.tools.filter((t) => lastText.includes(t.name.toLowerCase())).map((t) => t.name)
    : []
  if (mentioned.length) return request.parallelToolCalls ? mentioned : mentioned.slice(0, 1)
  if (choice === 'required')
    return [
      (
        request.tools[
          Math.floor(mulberry32(contentSeed ^ 0x5bd1e995)() * request.tools.length)
        ] as NormalizedTool
      ).name,
    ]
  return []
}

/** Builds the answer for a request from a scripted reply (text, tool-calls, json) or the default responder. */
export function planAnswer(
  request: NormalizedRequest,
  reply: Extract<MockReply, { type: 'text' | 'tool-calls' | 'json' }> | undefined,
  context: AnswerContext,
): Answer {
  // Read only where needed: a scripted text answer does not depend on it (its context may derive it lazily).
  if (reply?.type === 'text')
    return withReasoning(
      textAnswer(request, reply.text, reply.chunks, reply.finishReason ?? 'stop'),
      reply.reasoning,
    )
  if (reply?.type === 'tool-calls') {
    const contentSeed = context.contentSeed
    const calls = reply.calls.map((call, i) => ({
      id: call.id ?? context.callId(i),
      name: call.name,
      arguments: callArguments(
        request,
        call.name,
        call.arguments,
        hashString(`${call.name}:${i}`, contentSeed),
      ),
    }))
    return withReasoning(callsAnswer(calls, reply.text ?? ''), reply.reasoning)
  }
  const contentSeed = context.contentSeed
  const format = request.format
  if (reply?.type === 'json') {
    const validator = format.type === 'json_schema' ? format.validator : undefined
    const what = formatParam(request)
    if (reply.value === undefined) {
      if (format.type !== 'json_schema') {
        throw scriptProblem(
          'the script has a "json" reply without a value, but the request has no json_schema to generate one from; add a value.',
        )
      }
      return withReasoning(
        jsonAnswer(generate({ schema: format.schema, validator: format.validator }, contentSeed, what, '')),
        reply.reasoning,
      )
    }
    return withReasoning(jsonAnswer(checkedJson(reply.value, validator, what, false)), reply.reasoning)
  }
  const names = defaultToolNames(request, contentSeed)
  if (names.length) {
    const calls = names.map((name, i) => ({
      id: context.callId(i),
      name,
      arguments: callArguments(request, name, undefined, hashString(`${name}:${i}`, contentSeed)),
    }))
    return callsAnswer(calls, '')
  }
  if (format.type === 'json_schema') {
    const what = formatParam(request)
    return jsonAnswer(generate({ schema: format.schema, validator: format.validator }, contentSeed, what, ''))
  }
  if (format.type === 'json_object')
    return jsonAnswer(JSON.stringify({ message: defaultText(request, contentSeed) }))
  return textAnswer(request, defaultText(request, contentSeed), undefined, 'stop')
}
