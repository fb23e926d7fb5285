import type { Answer } from './answer.js'
import type { NormalizedRequest } from './normalize.js'

/** The endpoints whose requests depend on nothing but their body (Responses may draw on stored history). */
export type BodyKeyedEndpoint = 'chat.completions' | 'messages'

/** What MockGPT derived from one body text. */
export interface BodyEntry {
  /** The normalized request; its `body` is the first request's parsed body (see {@link withBody}). */
  readonly request: NormalizedRequest
  /** The default responder's answer, once one was planned that calls no tools (those ids are per request). */
  answer: Answer | undefined
}

/** Entries kept per endpoint, and the longest body text kept as a key. */
const MAX_ENTRIES = 128
const MAX_KEY_CHARS = 16 * 1024

/**
 * What the engine derived from the exact body text of a chat or Messages request, for identical requests
 * (retries, repeated test runs, load tests): the same text parses to the same JSON, and validating and
 * normalizing it (`checkRequestParams`, `normalizeChatRequest`, `normalizeMessagesRequest`) is a pure
 * function of that JSON and the engine's fixed `strict` flag, so a hit stands for the checks passing and
 * the normalized request they would return. Only requests that passed are added. Bounded: the oldest entry
 * goes first, and bodies longer than 16 Ki characters are never keys.
 */
export class BodyCache {
  private readonly entries: Record<BodyKeyedEndpoint, Map<string, BodyEntry>> = {
    'chat.completions': new Map(),
    messages: new Map(),
  }

  get(endpoint: BodyKeyedEndpoint, text: string): BodyEntry | undefined {
    return text.length > MAX_KEY_CHARS ? undefined : this.entries[endpoint].get(text)
  }

  /** Keeps `request` (normalized from `text`); the entry, or `undefined` when the text is too long to keep. */
  add(endpoint: BodyKeyedEndpoint, text: string, request: NormalizedRequest): BodyEntry | undefined {
    if (text.length > MAX_KEY_CHARS) return undefined
    const map = this.entries[endpoint]
    if (map.size >= MAX_ENTRIES) map.delete(map.keys().next().value as string)
    const entry: BodyEntry = { request, answer: undefined }
    map.set(text, entry)
    return entry
  }
}

/** `request` for another parse of the same body text: the same fields, with this request's own `body`. */
export function withBody(
  request: NormalizedRequest,
  body: Readonly<Record<string, unknown>>,
): NormalizedRequest {
  return {
    endpoint: request.endpoint,
    model: request.model,
    stream: request.stream,
    includeUsage: request.includeUsage,
    messages: request.messages,
    tools: request.tools,
    toolChoice: request.toolChoice,
    parallelToolCalls: request.parallelToolCalls,
    format: request.format,
    maxOutputTokens: request.maxOutputTokens,
    stop: request.stop,
    seed: request.seed,
    body,
    inputTokens: request.inputTokens,
    promptCache: request.promptCache,
  }
}
