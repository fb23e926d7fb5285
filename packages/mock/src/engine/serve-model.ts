import { describeValue } from '@agent-core/core'
import { budgetExhausted } from '../internal/access.js'
import {
  type Answer,
  type AnswerContext,
  isScriptProblem,
  planAnswer,
  scriptProblem,
} from '../internal/answer.js'
import { type BodyEntry, withBody } from '../internal/body-cache.js'
import { contentKeyOf } from '../internal/content-key.js'
import { embeddingsResponse } from '../internal/embeddings.js'
import { applyFaults, MALFORMED_MESSAGE_EVENT } from '../internal/faults.js'
import { deterministicId, foldSeed, hashString } from '../internal/hash.js'
import { errorReplyResponse } from '../internal/http.js'
import type { MutableRecord } from '../internal/journal.js'
import type { NormalizedMessage, NormalizedRequest } from '../internal/normalize.js'
import { normalizeChatRequest } from '../internal/normalize-chat.js'
import { normalizeMessagesRequest } from '../internal/normalize-messages.js'
import { normalizeResponsesRequest } from '../internal/normalize-responses.js'
import { badRequest, MockRequestError, openAIErrorResponse } from '../internal/openai-error.js'
import { jsonTextResponse, renderAnswer, sseResponse } from '../internal/render-answer.js'
import type { RenderMeta } from '../internal/render-chat.js'
import { checkRequestParams } from '../internal/request-params.js'
import { embeddingsView, requestView } from '../internal/request-view.js'
import { entryName, type TakenEntry } from '../internal/script-queue.js'
import { runComputedReply } from '../internal/validate-script.js'
import type { MockHttpResponse, MockStreamStep } from '../mock-http.js'
import type { MockScriptProblem } from '../mock-script-error.js'
import type { MockEndpoint, MockFault, MockReply, MockRequestView } from '../script.js'
import { controllerSteps } from '../stream-controller.js'
import { addUsage, type EngineState, MAX_DEFAULT_ANSWERS, type Scope } from './state.js'

/** The faults of a request without scripted faults or a chaos roll (shared: never mutated). */
const NO_FAULTS: readonly MockFault[] = Object.freeze([])

/** A model endpoint (every route but the model list). */
export type ModelEndpoint = Exclude<MockEndpoint, 'models'>

/** One model request as the stages see it: its scope, its journal record and what its body normalized to. */
interface ModelCall {
  readonly state: EngineState
  readonly scope: Scope
  readonly endpoint: ModelEndpoint
  readonly body: Record<string, unknown>
  readonly record: MutableRecord
  /** The normalized request (undefined for embeddings, which have no normalized form). */
  readonly normalized: NormalizedRequest | undefined
  /** The embeddings answer, for an embeddings request. */
  readonly embeddings: { readonly text: string; readonly tokens: number } | undefined
  /** The body cache entry of a chat or Messages body. */
  readonly known: BodyEntry | undefined
  /** The request view, built once when a script entry or a summary needs it. */
  view(): MockRequestView
}

/**
 * What a stage answers: `final` responses go out as they are (script errors, refusals); the others get the
 * request's faults, applied once by {@link serveModel}.
 */
type Outcome =
  | { readonly final: MockHttpResponse }
  | { readonly answer: MockHttpResponse; readonly malformed?: MockStreamStep | undefined }

/**
 * Stage 3 of the engine: serves one model call. The stages run in order: {@link prepareCall} (checks and
 * normalizes the body), {@link gate} (a poisoned scope, the budget, a chaos status fault), {@link takeReply}
 * (the script), the status faults, {@link answerCall} (replay, strict mode, raw and controlled streams,
 * embeddings, a generated or scripted answer); the faults are applied once, here.
 */
export function serveModel(
  state: EngineState,
  scope: Scope,
  endpoint: ModelEndpoint,
  body: Record<string, unknown>,
  bodyText: string,
  record: MutableRecord,
): MockHttpResponse {
  const call = prepareCall(state, scope, endpoint, body, bodyText, record)
  const gated = gate(call)
  if ('final' in gated) return gated.final
  const chaosFault = gated.chaosFault
  const picked = takeReply(call)
  if ('final' in picked) return picked.final
  const { taken, reply } = picked
  record.scriptEntry = taken?.index
  record.reply = reply?.type
  const scriptedFaults = taken?.entry.faults
  const faults: readonly MockFault[] =
    scriptedFaults === undefined && chaosFault === undefined
      ? NO_FAULTS
      : [...(scriptedFaults ?? []), ...(chaosFault ? [chaosFault] : [])]
  if (faults.length) {
    record.faults.push(...faults.map((f) => f.type))
    const statusFault = faults.find((f): f is Extract<MockFault, { type: 'status' }> => f.type === 'status')
    if (statusFault) return errorReplyResponse(statusFault)
  }
  const outcome = answerCall(call, taken, reply)
  return 'final' in outcome ? outcome.final : applyFaults(outcome.answer, faults, outcome.malformed)
}

/** Checks the body's parameters and normalizes it (a chat or Messages body seen before is not checked twice). */
function prepareCall(
  state: EngineState,
  scope: Scope,
  endpoint: ModelEndpoint,
  body: Record<string, unknown>,
  bodyText: string,
  record: MutableRecord,
): ModelCall {
  // A chat or Messages body seen before passed these checks and normalized to `known.request` (BodyCache).
  const bodyKeyed = endpoint === 'chat.completions' || endpoint === 'messages' ? endpoint : undefined
  let known = bodyKeyed ? state.bodies.get(bodyKeyed, bodyText) : undefined
  if (!known) checkRequestParams(endpoint, body, state.config.strict)
  let normalized: NormalizedRequest | undefined
  let embeddings: { text: string; tokens: number } | undefined
  if (endpoint === 'embeddings') {
    embeddings = embeddingsResponse(body, state.config.seed)
  } else if (known) {
    normalized = withBody(known.request, body)
  } else {
    const history = previousTurns(scope, endpoint, body)
    normalized =
      endpoint === 'chat.completions'
        ? normalizeChatRequest(body)
        : endpoint === 'messages'
          ? normalizeMessagesRequest(body)
          : normalizeResponsesRequest(body, history)
    if (bodyKeyed) known = state.bodies.add(bodyKeyed, bodyText, normalized)
  }
  // The view is built only when a script entry or a summary needs it (most requests have no script), and
  // then once: the predicates and a computed reply see the same object.
  let built: MockRequestView | undefined
  return {
    state,
    scope,
    endpoint,
    body,
    record,
    normalized,
    embeddings,
    known,
    view: () => {
      built ??= viewOf(normalized, body, record.index, scope.testId)
      return built
    },
  }
}

/** The conversation a Responses request continues (`previous_response_id`), checked. */
function previousTurns(
  scope: Scope,
  endpoint: ModelEndpoint,
  body: Record<string, unknown>,
): NormalizedMessage[] {
  const previousId = body.previous_response_id
  if (endpoint !== 'responses' || previousId === undefined || previousId === null) return []
  if (typeof previousId !== 'string') {
    throw badRequest(
      `'previous_response_id' must be a string, but got ${describeValue(previousId)}.`,
      'previous_response_id',
    )
  }
  const previous = scope.conversations.get(previousId)
  if (!previous) {
    throw badRequest(
      `Previous response with id '${previousId}' not found (MockGPT forgets responses on reset()).`,
      'previous_response_id',
      'previous_response_not_found',
    )
  }
  return previous
}

/** A poisoned scope, an exhausted budget or a chaos status fault answer before the script is consulted. */
function gate(
  call: ModelCall,
): { readonly final: MockHttpResponse } | { readonly chaosFault: MockFault | undefined } {
  const { scope, record, state } = call
  if (scope.poison !== undefined) {
    record.scriptError = scope.poison
    return {
      final: scriptErrorResponse(
        `${scope.poison} (MockGPT answers every request of this scope with this script error until reset(), so nothing falls through to generated data.)`,
      ),
    }
  }
  const exhausted = budgetExhausted(state.config.budget, scope.usage)
  if (exhausted) return { final: exhausted }
  // A chaos status fault answers before the script, so the scripted entry is still there for the retry.
  const chaosFault = rollChaos(state, scope)
  if (chaosFault?.type === 'status') {
    record.faults.push('status')
    return { final: errorReplyResponse(chaosFault) }
  }
  return { chaosFault }
}

function rollChaos(state: EngineState, scope: Scope): MockFault | undefined {
  const { chaos, chaosPool } = state.config
  if (!chaos || chaos.rate === 0) return undefined
  const roll = scope.chaosRandom()
  const pick = scope.chaosRandom()
  return roll < chaos.rate ? chaosPool[Math.floor(pick * chaosPool.length)] : undefined
}

/** The script entry that answers the call, and its reply (a computed reply is run here). */
function takeReply(
  call: ModelCall,
):
  | { readonly final: MockHttpResponse }
  | { readonly taken: TakenEntry | undefined; readonly reply: MockReply | undefined } {
  let taken: TakenEntry | undefined
  try {
    if (call.scope.queue.size > 0) taken = call.scope.queue.take(call.view())
    const scripted = taken?.reply
    const reply =
      typeof scripted === 'function'
        ? runComputedReply(
            scripted,
            call.view(),
            `MockGPT script entry ${entryName(taken?.index ?? 0, taken?.entry)} reply`,
          )
        : scripted
    return { taken, reply }
  } catch (error) {
    return { final: scriptFailure(call, taken, error) }
  }
}

/** The answer to a call past the gate, the script and the status faults (before the other faults). */
function answerCall(call: ModelCall, taken: TakenEntry | undefined, reply: MockReply | undefined): Outcome {
  const { state, scope, record, body, normalized, embeddings, endpoint } = call
  if (reply?.type === 'error') return { answer: errorReplyResponse(reply) }
  if (!taken) {
    const replayed = scope.replay.take(record.method, record.path, body)
    if (replayed) {
      record.reply = 'replay'
      addUsage(scope, normalized?.inputTokens ?? 0, 0)
      return { answer: replayed }
    }
    if (state.config.strict) {
      const message = `MockGPT strict mode: no script entry${scope.replay.size ? ' or replay fixture' : ''} matches ${summarize(record, call.view())}. Script a reply for it (or turn strict mode off to get generated answers).`
      problem(scope, record, 'unmatched', undefined, message)
      return {
        final: openAIErrorResponse(400, message, {
          type: 'mock_script_error',
          code: 'mock_unmatched_request',
          headers: { 'x-should-retry': 'false' },
        }),
      }
    }
  }
  const n = scope.answers++
  const requestId = state.ids.request.get(n)
  if (reply?.type === 'raw-chunks') {
    const steps = reply.chunks.map(
      (c): MockStreamStep => ({
        type: 'data',
        chunk: typeof c === 'string' ? c : `data: ${JSON.stringify(c)}\n\n`,
      }),
    )
    addUsage(scope, normalized?.inputTokens ?? 0, 0)
    return { answer: sseResponse(steps, requestId) }
  }
  if (reply?.type === 'controlled-stream') {
    try {
      const make = controllerSteps(reply.controller)
      if (!make)
        throw scriptProblem('the controlled-stream reply has no controller made by createStreamController().')
      const stream = make()
      addUsage(scope, normalized?.inputTokens ?? 0, 0)
      return { answer: sseResponse(stream, requestId) }
    } catch (error) {
      return { final: scriptFailure(call, taken, error) }
    }
  }
  if (embeddings) {
    if (reply) {
      return {
        final: scriptFailure(
          call,
          taken,
          scriptProblem(
            `a "${reply.type}" reply cannot answer an embeddings request; use an "error" reply or faults, or match { endpoint: 'chat.completions' }.`,
          ),
        ),
      }
    }
    addUsage(scope, embeddings.tokens, 0)
    return { answer: jsonTextResponse(embeddings.text, requestId) }
  }
  const request = normalized as NormalizedRequest
  let answer: Answer
  try {
    answer =
      reply === undefined
        ? defaultAnswer(state, request, call.known, n)
        : planAnswer(request, reply, new PlanContext(state.config.seed, request, n))
  } catch (error) {
    if (reply && (isScriptProblem(error) || !MockRequestError.isInstance(error)))
      return { final: scriptFailure(call, taken, error) }
    throw error
  }
  const meta: RenderMeta = {
    id:
      endpoint === 'chat.completions'
        ? state.ids.chat.get(n)
        : endpoint === 'messages'
          ? state.ids.message.get(n)
          : state.ids.response.get(n),
    created: Math.floor(state.config.now() / 1000),
    model: request.model,
    cache:
      request.promptCache === undefined
        ? undefined
        : scope.promptCache.use(request.promptCache, request.inputTokens),
  }
  addUsage(scope, request.inputTokens, answer.outputTokens)
  if (endpoint === 'responses') remember(scope, meta.id, request, answer, body)
  return {
    answer: renderAnswer(request, answer, meta, requestId),
    malformed: endpoint === 'messages' ? MALFORMED_MESSAGE_EVENT : undefined,
  }
}

/**
 * The default responder's answer (no script entry answered). It depends only on what was asked, so
 * identical requests (retries, repeated test runs, load tests) reuse it, unless it calls tools (their ids
 * are per request). Two bounded caches hold the same answers under two keys:
 * - by content (`defaultAnswers`): the request's seed, what the content seed hashes and every other field
 *   `planAnswer` reads of an unscripted request;
 * - by the exact body text of a chat or Messages request (`known`, an entry of `bodies`): the body
 *   determines the normalized request, hence the content key, so the answer kept there is the one the
 *   content cache (or `planAnswer`) would give, found without serializing the messages.
 */
function defaultAnswer(
  state: EngineState,
  request: NormalizedRequest,
  known: BodyEntry | undefined,
  n: number,
): Answer {
  if (known?.answer) return known.answer
  const contentKey = contentKeyOf(request)
  const cacheKey = `${request.seed ?? 0}\u0000${contentKey}\u0000${JSON.stringify(request.toolChoice)}\u0000${request.parallelToolCalls}\u0000${request.maxOutputTokens}\u0000${request.stop.join('\u0001')}`
  const defaultAnswers = state.defaultAnswers
  let answer = defaultAnswers.get(cacheKey)
  if (!answer) {
    answer = planAnswer(request, undefined, new PlanContext(state.config.seed, request, n, contentKey))
    if (answer.toolCalls.length) return answer
    if (defaultAnswers.size >= MAX_DEFAULT_ANSWERS)
      defaultAnswers.delete(defaultAnswers.keys().next().value as string)
    defaultAnswers.set(cacheKey, answer)
  }
  if (known) known.answer = answer
  return answer
}

/** Keeps a Responses conversation for `previous_response_id` (instructions are not carried over). */
function remember(
  scope: Scope,
  id: string,
  request: NormalizedRequest,
  answer: Answer,
  body: Record<string, unknown>,
): void {
  const hadInstructions = typeof body.instructions === 'string' && body.instructions !== ''
  const turn: NormalizedMessage = {
    role: 'assistant',
    text: answer.text + answer.toolCalls.map((c) => `${c.name}(${c.arguments})`).join(''),
    ...(answer.toolCalls.length ? { toolCalls: answer.toolCalls } : {}),
  }
  const conversations = scope.conversations
  if (conversations.size >= 1000) conversations.delete(conversations.keys().next().value as string)
  conversations.set(id, [...request.messages.slice(hadInstructions ? 1 : 0), turn])
}

function problem(
  scope: Scope,
  record: MutableRecord,
  kind: MockScriptProblem['kind'],
  entry: number | undefined,
  message: string,
): void {
  scope.problems.push({ kind, requestIndex: record.index, testId: scope.testId, entry, message })
  record.scriptError = message
}

/** Stage 5 for script errors: records one, poisons the scope, and answers the non-retryable 400. */
function scriptFailure(call: ModelCall, taken: TakenEntry | undefined, error: unknown): MockHttpResponse {
  const reason = error instanceof Error ? error.message : describeValue(error)
  const name = taken ? `MockGPT script entry ${entryName(taken.index, taken.entry)}` : 'MockGPT script'
  const step = taken?.step !== undefined ? ` (sequence step ${taken.step})` : ''
  const message = `${name}${step}: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}`
  problem(call.scope, call.record, 'script-error', taken?.index, message)
  call.scope.poison = message
  return scriptErrorResponse(message)
}

/** A non-retryable 400 for a script error (`x-should-retry: false`, a 4xx no SDK retries). */
function scriptErrorResponse(message: string): MockHttpResponse {
  return openAIErrorResponse(400, message, {
    type: 'mock_script_error',
    code: 'mock_script_error',
    headers: { 'x-should-retry': 'false' },
  })
}

/**
 * What `planAnswer` derives content and tool call ids from, for answer number `n` of a scope. Both are
 * made on first use: a scripted text reply needs neither, and only answers that call tools need ids.
 */
class PlanContext implements AnswerContext {
  private derivedSeed: number | undefined

  constructor(
    private readonly seed: number,
    private readonly request: NormalizedRequest,
    private readonly n: number,
    /** The request's content key when the caller already has it. */
    private readonly contentKey?: string,
  ) {}

  get contentSeed(): number {
    // Content depends on the seed and what was asked (not on order), so JSON and stream answers agree.
    this.derivedSeed ??= hashString(
      this.contentKey ?? contentKeyOf(this.request),
      foldSeed(this.seed) ^ foldSeed(this.request.seed ?? 0),
    )
    return this.derivedSeed
  }

  callId(i: number): string {
    const id = deterministicId(this.seed, `call:${this.n}:${i}`, 24)
    return this.request.endpoint === 'messages' ? `toolu_${id}` : `call_${id}`
  }
}

/** What a script predicate, a computed reply or a summary sees of a request (embeddings have no normalized form). */
function viewOf(
  normalized: NormalizedRequest | undefined,
  body: Record<string, unknown>,
  index: number,
  testId: string | undefined,
): MockRequestView {
  return normalized === undefined
    ? embeddingsView(body, index, testId)
    : requestView(normalized, index, testId)
}

function summarize(record: MutableRecord, view: MockRequestView): string {
  const last = view.lastUserMessage.replace(/\s+/g, ' ')
  const parts = [
    `${record.method} ${record.path}`,
    `model ${JSON.stringify(view.model)}`,
    `stream ${view.stream}`,
    `turn ${view.turn}`,
    view.toolNames.length ? `tools [${view.toolNames.join(', ')}]` : 'no tools',
    `last user message ${JSON.stringify(last.length > 120 ? `${last.slice(0, 119)}…` : last)}`,
  ]
  return `the request (${parts.join(', ')})`
}
