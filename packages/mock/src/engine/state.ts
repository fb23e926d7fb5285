import type { Answer } from '../internal/answer.js'
import { BodyCache } from '../internal/body-cache.js'
import { hashString, NumberedIds } from '../internal/hash.js'
import { Journal } from '../internal/journal.js'
import type { NormalizedMessage } from '../internal/normalize.js'
import { mulberry32 } from '../internal/prng.js'
import { PromptCache } from '../internal/prompt-cache.js'
import { ReplayBook } from '../internal/replay.js'
import type { ResolvedOptions } from '../internal/resolve-options.js'
import { ScriptQueue } from '../internal/script-queue.js'
import type { MockUsage } from '../mock-gpt.js'
import type { MockScriptProblem } from '../mock-script-error.js'

/** Scopes kept at once; the least recently used is forgotten past it. */
export const MAX_SCOPES = 1000
/** Default-responder answers kept by content. */
export const MAX_DEFAULT_ANSWERS = 256

/** One scope's mutable state. */
export class Scope {
  queue = new ScriptQueue()
  journal: Journal
  usage: MockUsage = { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 }
  answers = 0
  chaosRandom: () => number
  conversations = new Map<string, NormalizedMessage[]>()
  /** The prompt prefixes `/v1/messages` requests wrote with cache breakpoints. */
  promptCache = new PromptCache()
  problems: MockScriptProblem[] = []
  /** The script error every later model request gets until reset. */
  poison: string | undefined

  constructor(
    readonly testId: string | undefined,
    private readonly options: ResolvedOptions,
    readonly replay: ReplayBook,
  ) {
    this.journal = new Journal(options.journal)
    this.chaosRandom = mulberry32(hashString('chaos', options.seed))
    this.reset()
  }

  reset(): void {
    this.queue.clear()
    this.journal = new Journal(this.options.journal)
    this.usage = { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 }
    this.promptCache = new PromptCache()
    this.answers = 0
    this.chaosRandom = mulberry32(hashString('chaos', this.options.seed))
    this.conversations = new Map()
    this.problems = []
    this.poison = undefined
    this.replay.reset()
    this.queue.enqueue(this.options.script)
  }
}

/**
 * Stage 1 of the engine: its state. The root scope, the test scopes (least recently used first), the caches
 * shared by every scope and the id sequences. Everything else in the engine is a function of this state and
 * one request.
 */
export class EngineState {
  readonly root: Scope
  scopes = new Map<string, Scope>()
  /** Default-responder answers by request content (bounded; see `defaultAnswer`). */
  readonly defaultAnswers = new Map<string, Answer>()
  /** Normalized requests and default answers by body text (see BodyCache). */
  readonly bodies = new BodyCache()
  /** Request and response ids by answer number (see NumberedIds). */
  readonly ids: {
    readonly request: NumberedIds
    readonly chat: NumberedIds
    readonly message: NumberedIds
    readonly response: NumberedIds
  }

  constructor(readonly config: ResolvedOptions) {
    const seed = config.seed
    this.root = new Scope(undefined, config, new ReplayBook(config.replay))
    this.ids = {
      request: new NumberedIds(seed, 'req_', 'req', 32),
      chat: new NumberedIds(seed, 'chatcmpl-', 'chat', 29),
      message: new NumberedIds(seed, 'msg_', 'msg', 24),
      response: new NumberedIds(seed, 'resp_', 'resp', 40),
    }
  }

  /** The scope of `testId` (the root when undefined), made on first use and marked most recently used. */
  scopeOf(testId: string | undefined): Scope {
    if (testId === undefined) return this.root
    const scopes = this.scopes
    let scope = scopes.get(testId)
    if (scope) {
      // Most recently used last, so the first one is the one to forget.
      scopes.delete(testId)
    } else {
      scope = new Scope(testId, this.config, new ReplayBook(this.config.replay))
      if (scopes.size >= MAX_SCOPES) scopes.delete(scopes.keys().next().value as string)
    }
    scopes.set(testId, scope)
    return scope
  }

  /** Resets the root scope and forgets every test scope. */
  resetAll(): void {
    this.root.reset()
    this.scopes = new Map()
  }

  /** The script problems of every scope, the root's first. */
  allProblems(): MockScriptProblem[] {
    const list = [...this.root.problems]
    for (const scope of this.scopes.values()) list.push(...scope.problems)
    return list
  }
}

/** Counts one model call and its tokens in the scope's usage. */
export function addUsage(scope: Scope, input: number, output: number): void {
  const usage = scope.usage
  scope.usage = {
    calls: usage.calls + 1,
    inputTokens: usage.inputTokens + input,
    outputTokens: usage.outputTokens + output,
    totalTokens: usage.totalTokens + input + output,
  }
}
