import {
  abortedError,
  assertNotThenable,
  ConflictError,
  consumeRejection,
  createOperationContext,
  type DiagnosticSpan,
  deadlineSignal,
  describeValue,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  type OperationContext,
  type OperationContextInit,
  Registry,
  type RegistryPolicy,
  RegistryView,
  raceSignal,
  refuseField,
  TimeoutError,
  throwIfAborted,
  UnauthorizedError,
  UnknownIdError,
} from '@agent-core/core'
import {
  createInvocationId,
  invokeModelTool,
  type ModelTool,
  type ToolInvocation,
  type ToolProgressReporter,
  type ToolProgressUpdate,
} from '@agent-core/core/tools'
import { defaultMessage, errorText } from './internal/default-message.js'
import { canonicalJson, copyJson, type JsonValue, jsonProblem } from './internal/json.js'
import {
  callAuthorize,
  callAwaitHost,
  callVoidHook,
  compileLifecycle,
  composePolicy,
  type Entry,
  POLICY,
  readTemplates,
  timeoutProblem,
} from './internal/lifecycle-entry.js'
import {
  fingerprint,
  type PassStart,
  readOptions,
  readRequest,
  stateFingerprint,
} from './internal/request.js'
import {
  classify,
  endSpan,
  errorRecord,
  failed,
  failedIdentity,
  freezeView,
  identity,
  pendingSettlement,
  readTemplate,
  replayOutcome,
  type Settlement,
  templateInput,
} from './internal/settlement.js'
import { recordState, runningCalls, type ToolCallJournal } from './tool-call-journal.js'
import type {
  ToolCallOutcome,
  ToolCallView,
  ToolTemplateInput,
  ToolTemplateProvider,
} from './tool-call-outcome.js'
import {
  assertDecisionKeys,
  type DecisionKey,
  importKeys,
  signToolCall,
  verifyToolCallSignature,
} from './tool-call-signature.js'
import {
  assertToolCallState,
  type CompletedToolCall,
  type PendingToolCall,
  type ToolCallMessage,
  type ToolCallRecord,
  type ToolCallState,
  type ToolLifecyclePhase,
  type ToolWaitKind,
} from './tool-call-state.js'
import { assertDecision, type ToolDecision } from './tool-decision.js'
import { ApprovalRequiredError } from './tool-errors.js'
import type { ToolLifecycle } from './tool-lifecycle.js'
import { assertToolPolicy, isToolPermitted, readToolPolicy, type ToolPolicy } from './tool-policy.js'

/** What one pass learns as it goes, read by the phases after the settlement (render, finalize). */
interface Pass<App> {
  /** How the pass started; replaced when a decision made in process continues it. */
  start: PassStart
  /** The context hooks get: the caller's, with the span's diagnostics. */
  readonly context: OperationContext<App>
  participants: readonly Entry[]
  view: ToolCallView | undefined
  selected: Entry | undefined
}

const NOOP = (): undefined => undefined

/**
 * One execution raced against its time limit and its parent's stop: the abort listener on the parent
 * (`handleEvent`) and the timer's argument, so a call makes no closures for them.
 */
class ExecutionRace {
  readonly controller = new AbortController()
  /** False once the race ended: later progress reports are dropped. */
  open = true
  resolve: (value: ToolInvocation<unknown>) => void = NOOP
  reject: (error: unknown) => void = NOOP
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    readonly parent: AbortSignal,
    readonly point: string,
    readonly what: string,
    readonly timeoutMs: number,
    readonly span: DiagnosticSpan | undefined,
  ) {}

  start(): void {
    this.#timer = setTimeout(timeUp, this.timeoutMs, this)
    this.parent.addEventListener('abort', this, { once: true })
  }

  /** The parent aborted. */
  handleEvent(): void {
    this.stop(this.parent.reason)
  }

  stop(reason: unknown): void {
    const own = this.controller.signal
    if (own.aborted) return
    this.#finish()
    this.controller.abort(reason)
    const error = abortedError(own, this.point)
    if (this.span !== undefined) stopSpan(this.span, error)
    this.reject(error)
  }

  settle(value: ToolInvocation<unknown>): void {
    if (this.controller.signal.aborted) return
    this.#finish()
    this.resolve(value)
  }

  fail(error: unknown): void {
    if (this.controller.signal.aborted) return
    this.#finish()
    this.reject(error)
  }

  #finish(): void {
    this.open = false
    clearTimeout(this.#timer)
    this.parent.removeEventListener('abort', this)
  }
}

function timeUp(race: ExecutionRace): void {
  const { what, timeoutMs } = race
  race.stop(
    new TimeoutError(`${what} did not finish within ${timeoutMs} ms.`, { details: { timeoutMs, what } }),
  )
}

/** Reads a template answer (module-level: no closure per call). */
function askTemplate(
  answer: unknown,
  name: string,
  input: ToolTemplateInput,
): { content: string; isError: boolean } | undefined {
  return readTemplate(assertNotThenable(answer, name), name, input)
}

/** Ends an execution span that the time limit or the run's stop cut short. */
function stopSpan(span: DiagnosticSpan, error: unknown): void {
  span.end('aborted', { reason: TimeoutError.isInstance(error) ? 'timeout' : 'stopped' }, error)
}

/** The finalize errors of a call no participant finalizes. */
const NO_FINALIZE_ERRORS: readonly unknown[] = Object.freeze([])

/** A pending call's stored form, unsigned. */
function pendingShape(
  start: PassStart,
  view: ToolCallView,
  wait: {
    readonly waitingFor: ToolWaitKind
    readonly reason: string
    readonly question?: string | undefined
  },
): PendingToolCall {
  return Object.freeze({
    status: 'pending',
    ...identity(start, view.input as JsonValue),
    waitingFor: wait.waitingFor,
    reason: wait.reason,
    ...(wait.question === undefined ? {} : { question: wait.question }),
  })
}

/** What the model reads before the result of a call whose input the approver changed. */
function editNote(original: JsonValue, input: JsonValue): string {
  return `Note: the person who approved this call changed its input before it ran, from ${canonicalJson(original)} to ${canonicalJson(input)}.`
}

/** Marks the start of a phase inside the pass's span. */
function enterPhase(context: OperationContext<unknown>, phase: ToolLifecyclePhase): void {
  if (context.diagnostics.enabled) context.diagnostics.emit('phase-enter', { phase })
}

/** Refuses a tool-call id that the request already used for another tool or input. */
function sameCall(
  toolCallId: string,
  toolId: string,
  print: string,
  seenToolId: string,
  seenPrint: string,
): void {
  if (seenToolId !== toolId || seenPrint !== print) {
    throw new ConflictError(
      `Tool call "${toolCallId}" was already seen in this request with ${seenToolId === toolId ? 'another input' : `tool "${seenToolId}"`}. A tool-call id names one call; give a new call a new id.`,
      { details: { toolCallId, toolId, recordedToolId: seenToolId } },
    )
  }
}

/**
 * How a {@link ToolLifecycleRegistry} checks its lifecycles (the core registry policy: `kind`, default
 * `"tool"`; `idPattern`, default core's `TOOL_ID_PATTERN`; `assertDefinition`; `errors`) and what it
 * adds around every call.
 * @example
 * ```ts
 * import type { ToolLifecycleRegistryPolicy } from '@agent-core/kits/tools'
 * const policy: ToolLifecycleRegistryPolicy = { timeoutMs: 30_000, decisionKeys: [process.env.DECISION_KEY ?? 'a-development-secret-of-32-chars!'] }
 * ```
 */
export interface ToolLifecycleRegistryPolicy<App = unknown>
  extends RegistryPolicy<ToolLifecycle<unknown, unknown, App>> {
  /**
   * Template providers asked, in order, after the selected tool's own `template` and before the default
   * text, for what the model reads about a settled call. A falsy answer passes to the next one.
   */
  readonly templates?: readonly ToolTemplateProvider<App>[] | undefined
  /** Default time limit of every execution in ms (a lifecycle's or a request's `timeoutMs` wins). */
  readonly timeoutMs?: number | undefined
  /**
   * Keys for decision signatures, current first. When set, every pending call carries a `signature`
   * (made with the first key) and `resume` refuses a decision whose `signature` no key verifies.
   */
  readonly decisionKeys?: readonly DecisionKey[] | undefined
  /**
   * Which registered tools calls may reach ({@link ToolPolicy}: deny wins, an empty allow list means all
   * that are not denied). Checked before the registry is looked up: a call to a tool it does not permit
   * fails in `select` with the very answer a call to an unregistered name gets, which names only the
   * permitted tools. A run's `toolPolicy` option narrows it further.
   */
  readonly toolPolicy?: ToolPolicy | undefined
}

/**
 * One tool call to run through the lifecycle: the call's id, the tool it selects and its input, either
 * parsed (`input`) or as the raw argument text a model produced (`arguments`, parsed in the protocol phase,
 * so malformed JSON becomes a failed outcome the model can read).
 * @example
 * ```ts
 * import type { ToolCallRequest } from '@agent-core/kits/tools'
 * const fromModel = (call: { id: string; name: string; arguments: string }): ToolCallRequest =>
 *   ({ toolCallId: call.id, toolId: call.name, arguments: call.arguments, runId: 'run_1' })
 * ```
 */
export interface ToolCallRequest {
  readonly toolCallId: string
  readonly toolId: string
  /** The input as a JSON value. Give `input` or `arguments`, not both. */
  readonly input?: unknown
  /** The input as JSON text. */
  readonly arguments?: string | undefined
  /** The run the call belongs to; stored in pending calls and bound by signatures. */
  readonly runId?: string | undefined
  /** A time limit for this call's execution in ms (overrides the lifecycle's and the registry's). */
  readonly timeoutMs?: number | undefined
}

/**
 * Options of {@link ToolLifecycleRegistry.run} and {@link ToolLifecycleRegistry.resume}.
 * @example
 * ```ts
 * import { ToolCallJournal, type ToolRunOptions } from '@agent-core/kits/tools'
 * const options: ToolRunOptions = { journal: new ToolCallJournal() }
 * ```
 */
export interface ToolRunOptions {
  /** The request's journal: repeated tool-call ids are answered from it instead of running again. */
  readonly journal?: ToolCallJournal | undefined
  /**
   * The save-before-run stage (write-ahead): when given, a call allowed to run is first handed to it as a
   * pending call (`waitingFor: 'write-ahead'`, with its invocation id, recorded in the journal first),
   * and the tool runs once the returned promise resolves, in the same pass. Save it so that a restart
   * resumes it with an approval and runs it with the same invocation id. A throw fails the call in phase
   * `write-ahead` (the tool never ran). Not used for tools the host runs, nor when a `write-ahead` call
   * is resumed.
   */
  readonly saveBeforeRun?:
    | ((pending: PendingToolCall, context: OperationContext<unknown>) => unknown)
    | undefined
  /**
   * {@link ToolLifecycleRegistry.resume} only: the result of a call the host runs (`waitingFor`
   * `external` or `answer`; a tool with `awaitHost`), given with an approval. It is checked against the
   * tool's `outputSchema` and goes through `complete`, the templates and `finalize` like an execution.
   */
  readonly result?: ToolHostResult | undefined
  /**
   * {@link ToolLifecycleRegistry.run}: decides waits in this process. When the call reaches a wait
   * (`approval`, `external`, `answer`), it is asked with the pending call (unsigned); answering a
   * {@link ToolResume} continues **the same pass** (one span; select, protocol and inspect do not run
   * again, nothing is signed or verified), answering nothing leaves the call pending (then signed, with
   * `decisionKeys`). It may be asked again when the call waits once more (an approved call of a tool the
   * host runs then waits for its result). A throw fails the call in phase `decision`.
   */
  readonly decide?:
    | ((
        pending: PendingToolCall,
        context: OperationContext<unknown>,
      ) => ToolResume | undefined | Promise<ToolResume | undefined>)
    | undefined
  /**
   * This call's {@link ToolPolicy}, on top of the registry's (both must permit the tool): a run's
   * narrower set. A tool it does not permit is answered like a name nobody registered.
   */
  readonly toolPolicy?: ToolPolicy | undefined
  /**
   * Receives the progress the tool reports while it executes (`context.progress` in its `execute`), each
   * update checked, none after the execution settled (late results of a timed-out call included).
   */
  readonly progress?: ToolProgressReporter | undefined
}

/**
 * What {@link ToolRunOptions.decide} answers to continue a waiting call: the decision (an approval, with
 * an edited `input` if the approver changed it, or a rejection) and, for a tool the host runs, its result.
 * @example
 * ```ts
 * import type { ToolResume } from '@agent-core/kits/tools'
 * const approve = (toolCallId: string): ToolResume => ({ decision: { type: 'approve', toolCallId, by: 'person' } })
 * ```
 */
export interface ToolResume {
  /** The decision: approve (optionally with an edited `input`) or reject. */
  readonly decision: ToolDecision
  /** The host's result, for a tool the host runs (`awaitHost`) that waits for it. */
  readonly result?: ToolHostResult | undefined
}

/**
 * The result the host supplies for a call it runs: the output (plain JSON), or the error it failed with
 * (the call fails in phase `execute`; the model reads the error's message).
 * @example
 * ```ts
 * import type { ToolHostResult } from '@agent-core/kits/tools'
 * const opened: ToolHostResult = { ok: true, output: { opened: true } }
 * const refused: ToolHostResult = { ok: false, error: new Error('The browser blocked the page.') }
 * ```
 */
export type ToolHostResult =
  | { readonly ok: true; readonly output?: JsonValue | undefined }
  | { readonly ok: false; readonly error: unknown }

const WRITE_AHEAD_REASON =
  'Saved before it runs, so that a restart runs it again with the same invocation id.'

/**
 * The one lifecycle every tool call goes through: a sealed-or-staged registry of {@link ToolLifecycle}
 * blocks (the core registry contract) that runs calls in the real order: global check, authorization,
 * resume or execution, completion, finalization. It owns approvals: a call that needs a person becomes a
 * plain-JSON {@link PendingToolCall}, resumed later (in this process or another) with a
 * {@link ToolDecision}. Execution is core's `invokeModelTool`, with the invocation id core allocated.
 *
 * `run` and `resume` resolve to a {@link ToolCallOutcome} for everything the call itself does (completed,
 * pending, rejected or failed: a throwing tool, a throwing hook, a hook that broke its contract, a bad
 * input, an unknown tool, a cancellation or a timeout); they reject only when the request itself is
 * malformed, or a decision is forged or contradicts what already happened.
 *
 * Each pass is one diagnostic span `tool-call` (one `tool-call-start`, one `tool-call-end`) with a
 * `phase-enter` event per phase inside it.
 *
 * @example
 * ```ts
 * import { createOperationContext } from '@agent-core/core'
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { ApprovalRequiredError, ToolLifecycleRegistry } from '@agent-core/kits/tools'
 * const refund = defineModelTool<{ amount: number }, string>({
 *   id: 'refund', description: 'Refunds an order',
 *   inputSchema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } },
 *   execute: ({ amount }) => `refunded ${amount}`,
 * })
 * const tools = ToolLifecycleRegistry.create([
 *   { id: 'refund', tool: refund, authorize: (call) => { if ((call.input as { amount: number }).amount > 100) throw new ApprovalRequiredError('Large refund.') } },
 * ])
 * const outcome = await tools.run({ toolCallId: 'call_1', toolId: 'refund', input: { amount: 250 } }, createOperationContext())
 * if (outcome.status === 'pending') {
 *   const resumed = await tools.resume(outcome.record, { type: 'approve', toolCallId: 'call_1', by: 'person' }, createOperationContext())
 * }
 * ```
 */
export class ToolLifecycleRegistry<App = unknown> extends RegistryView<ToolLifecycle<unknown, unknown, App>> {
  readonly #registry: Registry<ToolLifecycle<unknown, unknown, App>>
  readonly #templates: readonly ToolTemplateProvider[]
  readonly #timeoutMs: number | undefined
  readonly #keys: readonly DecisionKey[] | undefined
  readonly #toolPolicy: ToolPolicy | undefined
  #cryptoKeys: Promise<CryptoKey[]> | undefined
  #participants: readonly Entry[] | undefined

  /**
   * An empty, unsealed registry (the staged form: `new ToolLifecycleRegistry(policy).registerAll(lifecycles).seal()`).
   * @throws `InvalidDefinitionError` for a malformed policy
   */
  constructor(policy: ToolLifecycleRegistryPolicy<App> = {}) {
    const registry = new Registry(composePolicy(policy))
    super(registry)
    this.#registry = registry
    this.#templates = readTemplates(policy.templates)
    const timeout = timeoutProblem(policy.timeoutMs)
    if (timeout !== undefined) refuseField('definition', 'timeoutMs', timeout, policy.timeoutMs, POLICY)
    this.#timeoutMs = policy.timeoutMs
    if (policy.toolPolicy !== undefined)
      this.#toolPolicy = readToolPolicy(policy.toolPolicy, 'policy.toolPolicy', 'definition')
    if (policy.decisionKeys !== undefined) {
      try {
        assertDecisionKeys(policy.decisionKeys, 'policy.decisionKeys')
      } catch (error) {
        const { message, details } = error as InvalidInputError
        throw new InvalidDefinitionError(message, { details, cause: error })
      }
      this.#keys = Object.freeze([...policy.decisionKeys])
    }
  }

  /**
   * Builds, fills and seals a registry in one step.
   * @example
   * ```ts
   * import { ToolLifecycleRegistry } from '@agent-core/kits/tools'
   * import type { ModelTool } from '@agent-core/core/tools'
   * declare const addTool: ModelTool<{ a: number; b: number }, number>
   * const tools = ToolLifecycleRegistry.create([{ id: 'add', tool: addTool }], { timeoutMs: 10_000 })
   * ```
   */
  static create<App = unknown>(
    definitions: Iterable<ToolLifecycle<unknown, unknown, App>>,
    policy: ToolLifecycleRegistryPolicy<App> = {},
  ): ToolLifecycleRegistry<App> {
    return new ToolLifecycleRegistry<App>(policy).registerAll(definitions).seal()
  }

  /** True after {@link ToolLifecycleRegistry.seal}. */
  get sealed(): boolean {
    return this.#registry.sealed
  }

  /** Registers one lifecycle (see {@link ToolLifecycleRegistry.registerAll}). */
  register(definition: ToolLifecycle<unknown, unknown, App>): this {
    return this.registerAll([definition])
  }

  /**
   * Registers lifecycles atomically, in order, with core's registry checks (sealed, shape, id pattern,
   * duplicate) and then the lifecycle's own: `tool` is a valid core tool whose id is the lifecycle's,
   * hooks are functions, `receiver` an object, `timeoutMs` a positive safe integer.
   * @throws `InvalidDefinitionError`, `InvalidIdError`, `DuplicateIdError`, `RegistrySealedError`
   */
  registerAll(definitions: Iterable<ToolLifecycle<unknown, unknown, App>>): this {
    this.#registry.registerAll(definitions)
    this.#participants = undefined
    return this
  }

  /** Forbids further registration. Idempotent. */
  seal(): this {
    this.#registry.seal()
    return this
  }

  /**
   * The ids of the registered tools that the registry's `toolPolicy` and the given one permit, in
   * registration order: the tools to offer a model.
   * @throws `InvalidInputError` for a malformed policy
   */
  permittedIds(toolPolicy?: ToolPolicy): readonly string[] {
    const extra = toolPolicy === undefined ? undefined : assertToolPolicy(toolPolicy, 'toolPolicy')
    return Object.freeze(this.ids().filter((id) => isToolPermitted(id, this.#toolPolicy, extra)))
  }

  /** The core tools, in registration order (what to offer a model). */
  tools(): readonly ModelTool<unknown, unknown, App>[] {
    return this.#registry.values().map((definition) => definition.tool)
  }

  /**
   * Checks a decision (see the standalone {@link assertDecision}) and returns it, typed.
   * @throws `InvalidInputError` naming the offending field
   * @example
   * ```ts
   * import type { ToolLifecycleRegistry } from '@agent-core/kits/tools'
   * declare const requestBody: string // the body of the App's approval request
   * declare const tools: ToolLifecycleRegistry
   * const decision = tools.assertDecision(JSON.parse(requestBody))
   * ```
   */
  assertDecision(value: unknown): ToolDecision {
    assertDecision(value)
    return value
  }

  /**
   * Runs one fresh call through the lifecycle. With a `journal`, a tool-call id already in it is answered
   * from it (a settled call is never run again, a pending one stays pending), and concurrent calls with
   * the same id share one pass.
   * @throws `InvalidInputError` for a malformed request, context or options; `ConflictError` when the
   *   journal holds the tool-call id with another tool or input
   */
  run(
    request: ToolCallRequest,
    context: OperationContext<App> | OperationContextInit<App> = {},
    options?: ToolRunOptions,
  ): Promise<ToolCallOutcome> {
    try {
      const parsed = readRequest(request)
      const ctx = createOperationContext<App>(context as OperationContextInit<App>)
      const passOptions = readOptions(options, false)
      const journal = passOptions.journal
      if (journal) {
        const shared = this.#shared(journal, parsed.toolCallId, parsed.toolId, fingerprint(parsed.input))
        if (shared) return shared
      }
      // A literal, not `{ ...parsed, invocationId }` (see #conclude).
      const start: PassStart = {
        toolCallId: parsed.toolCallId,
        toolId: parsed.toolId,
        runId: parsed.runId,
        timeoutMs: parsed.timeoutMs,
        input: parsed.input,
        invocationId: createInvocationId(),
        decision: undefined,
        waited: undefined,
        original: undefined,
        options: passOptions,
      }
      return journal ? this.#track(journal, start, ctx) : this.#pass(start, ctx)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /**
   * Resumes a stored call with a decision. A pending call runs its resumed pass (global check, then the
   * decision: an approval runs `resume`, the tool, `complete`; a rejection settles it), with the
   * `invocationId` it was given when it first arrived. A settled record (or a call the journal already
   * settled) is returned as it is and never runs again, provided the decision agrees with it.
   * @param state - a {@link ToolCallState} read back from JSON, checked with {@link assertToolCallState}
   * @param decision - checked with {@link assertDecision}; its `toolCallId` must be the state's
   * @throws `InvalidInputError` for a malformed state, decision, context or options;
   *   `UnauthorizedError` when the registry has `decisionKeys` and the decision's signature is missing or
   *   does not verify, or the decision is signed and the registry has no keys; `ConflictError` when the
   *   decision contradicts how the call already settled
   */
  async resume(
    state: ToolCallState,
    decision: ToolDecision,
    context: OperationContext<App> | OperationContextInit<App> = {},
    options?: ToolRunOptions,
  ): Promise<ToolCallOutcome> {
    assertToolCallState(state)
    assertDecision(decision)
    if (decision.toolCallId !== state.toolCallId) {
      throw new InvalidInputError(
        `The decision answers tool call "${decision.toolCallId}", but the state is tool call "${state.toolCallId}". Resume each call with its own decision (decisions are keyed by tool-call id).`,
        { details: { field: 'decision.toolCallId', received: describeValue(decision.toolCallId) } },
      )
    }
    const ctx = createOperationContext<App>(context as OperationContextInit<App>)
    const passOptions = readOptions(options, true)
    const journal = passOptions.journal
    const definition = this.get(state.toolId)
    if (passOptions.result !== undefined && definition !== undefined && definition.awaitHost === undefined) {
      throw new InvalidInputError(
        `options.result is for calls the host runs, but tool "${state.toolId}" runs itself. Resume it with a decision only.`,
        { details: { field: 'options.result', id: state.toolId } },
      )
    }
    const edit = decision.type === 'approve' ? decision.input : undefined
    if (edit !== undefined && definition !== undefined) {
      const checked = await compileLifecycle(definition).validator.validate(edit)
      if (!checked.ok) {
        throw new InvalidInputError(
          `decision.input (the approved edit of tool call "${state.toolCallId}") does not match the inputSchema of "${state.toolId}": ${checked.issues.map((i) => `${i.path} ${i.message}`).join('; ')}.`,
          { details: { field: 'decision.input', issues: checked.issues } },
        )
      }
    }
    if (this.#keys) await this.#verify(state, decision)
    else if (decision.signature !== undefined) {
      throw new UnauthorizedError(
        `The decision for tool call "${decision.toolCallId}" is signed, but this registry has no decisionKeys to verify it. Give the registry that resumes calls the same decisionKeys as the one that made them.`,
        { details: { toolCallId: decision.toolCallId, field: 'decision.signature' } },
      )
    }
    if (state.status !== 'pending') return this.#replay(copyJson(state as never) as ToolCallRecord, decision)
    const pending = copyJson(state as never) as PendingToolCall
    if (journal) {
      const print = canonicalJson(pending.input)
      // Wait for any pass of this call that is running now (a concurrent resume, or the first pass still
      // settling); afterwards the journal says whether it is still pending.
      for (let busy = runningCalls(journal).get(pending.toolCallId); busy; ) {
        sameCall(pending.toolCallId, pending.toolId, print, busy.toolId, busy.fingerprint)
        await busy.outcome.catch(() => undefined)
        busy = runningCalls(journal).get(pending.toolCallId)
      }
      const recorded = journal.find(pending.toolCallId)
      if (recorded !== undefined && recorded.invocationId === pending.invocationId) {
        sameCall(pending.toolCallId, pending.toolId, print, recorded.toolId, stateFingerprint(recorded))
        if (recorded.status !== 'pending') return this.#replay(recorded, decision)
      }
      recordState(journal, pending)
    }
    const start: PassStart = {
      toolCallId: pending.toolCallId,
      invocationId: pending.invocationId,
      toolId: pending.toolId,
      runId: pending.runId,
      timeoutMs: undefined,
      input: { ok: true, value: edit ?? pending.input },
      decision,
      waited: pending.waitingFor,
      original: edit === undefined ? undefined : pending.input,
      options: passOptions,
    }
    return journal ? this.#track(journal, start, ctx) : this.#pass(start, ctx)
  }

  /** An outcome from the journal for a repeated tool-call id, or `undefined` when it is new there. */
  #shared(
    journal: ToolCallJournal,
    toolCallId: string,
    toolId: string,
    print: string,
  ): Promise<ToolCallOutcome> | undefined {
    const inFlight = runningCalls(journal).get(toolCallId)
    if (inFlight) {
      sameCall(toolCallId, toolId, print, inFlight.toolId, inFlight.fingerprint)
      return inFlight.outcome.then((outcome) => Object.freeze({ ...outcome, replayed: true }))
    }
    const recorded = journal.find(toolCallId)
    if (recorded === undefined) return undefined
    sameCall(toolCallId, toolId, print, recorded.toolId, stateFingerprint(recorded))
    return Promise.resolve(replayOutcome(recorded))
  }

  /** Runs a pass, registering it in the journal while it runs and recording its state when it ends. */
  async #track(
    journal: ToolCallJournal,
    start: PassStart,
    context: OperationContext<App>,
  ): Promise<ToolCallOutcome> {
    const calls = runningCalls(journal)
    // Registered before the pass starts, so even a tool that re-enters the registry sees the call running.
    const outcome = Promise.resolve().then(() => this.#pass(start, context))
    const entry = { fingerprint: fingerprint(start.input), toolId: start.toolId, outcome }
    calls.set(start.toolCallId, entry)
    try {
      const settled = await outcome
      recordState(journal, settled.record)
      return settled
    } finally {
      if (calls.get(start.toolCallId) === entry) calls.delete(start.toolCallId)
    }
  }

  async #verify(state: ToolCallState, decision: ToolDecision): Promise<void> {
    this.#cryptoKeys ??= importKeys(this.#keys, 'policy.decisionKeys')
    const keys = await this.#cryptoKeys
    const edit = decision.type === 'approve' ? decision.input : undefined
    const call = { ...state, input: edit ?? state.input ?? null }
    if (decision.signature === undefined) {
      throw new UnauthorizedError(
        `The decision for tool call "${decision.toolCallId}" is not signed, but this registry requires signed decisions. Send the pending call's signature back with the decision.`,
        { details: { toolCallId: decision.toolCallId, field: 'decision.signature' } },
      )
    }
    if (!(await verifyToolCallSignature(call, decision.signature, keys))) {
      throw new UnauthorizedError(
        `The signature of the decision for tool call "${decision.toolCallId}" does not match the call (its run, id, invocation, tool and input${edit === undefined ? '' : ': an approval that changes the input must be signed over the changed input'}). The decision was made for another call, or the call was changed after it was signed; ask for a new decision.`,
        { details: { toolCallId: decision.toolCallId, field: 'decision.signature' } },
      )
    }
  }

  /** A settled record, returned as it is when the decision agrees with it. */
  #replay(record: ToolCallRecord, decision: ToolDecision): ToolCallOutcome {
    const contradicts =
      (record.status === 'completed' && decision.type === 'reject') ||
      (record.status === 'rejected' && decision.type === 'approve')
    if (contradicts) {
      throw new ConflictError(
        `Tool call "${record.toolCallId}" (invocation "${record.invocationId}") already settled as ${record.status}; a decision to ${decision.type} cannot change that. A settled call never runs again.`,
        {
          details: {
            toolCallId: record.toolCallId,
            invocationId: record.invocationId,
            recorded: record.status,
            received: decision.type,
          },
        },
      )
    }
    return replayOutcome(record)
  }

  /** Lifecycles whose `inspect` or `finalize` run for every call, in registration order. */
  #everyLifecycle(): readonly Entry[] {
    if (this.#participants) return this.#participants
    const entries = this.values().map((definition) => compileLifecycle(definition))
    if (this.sealed) this.#participants = entries
    return entries
  }

  /** Checks what `decide` answered and continues the pass with it (approve with edits included). */
  #continueWith(pass: Pass<App>, selected: Entry, waited: ToolWaitKind, answer: unknown): void {
    const field = 'options.decide()'
    if (typeof answer !== 'object' || answer === null) {
      throw new InvalidOutputError(
        `${field} must answer nothing (the call stays pending) or { decision, result? }, but answered ${describeValue(answer)}.`,
        { details: { hook: field, received: describeValue(answer) } },
      )
    }
    const { decision, result } = answer as ToolResume
    assertDecision(decision, `${field}.decision`)
    const start = pass.start
    if (decision.toolCallId !== start.toolCallId) {
      throw new InvalidOutputError(
        `${field} answered a decision for tool call "${decision.toolCallId}", but it was asked about "${start.toolCallId}".`,
        {
          details: {
            hook: field,
            field: 'decision.toolCallId',
            received: describeValue(decision.toolCallId),
          },
        },
      )
    }
    const checked = readOptions({ result }, true).result
    if (checked !== undefined && selected.hooks.awaitHost === undefined) {
      throw new InvalidOutputError(
        `${field} answered a result for tool "${selected.id}", which runs itself; answer a decision only.`,
        { details: { hook: field, field: 'result' } },
      )
    }
    const edit = decision.type === 'approve' ? decision.input : undefined
    let input = start.input
    if (edit !== undefined) {
      const valid = selected.validator.validate(edit)
      if (valid instanceof Promise) {
        consumeRejection(valid)
        throw new InvalidInputError(
          `${field}.decision.input edits the input of tool "${selected.id}", whose input schema validates asynchronously; an edit decided in process is checked synchronously. Give the tool a synchronous schema, or decide the edit from outside with resume.`,
          { details: { field: 'decision.input', id: selected.id } },
        )
      }
      if (!valid.ok) {
        throw new InvalidInputError(
          `${field}.decision.input (the approved edit of tool call "${start.toolCallId}") does not match the inputSchema of "${selected.id}": ${valid.issues.map((i) => `${i.path} ${i.message}`).join('; ')}.`,
          { details: { field: 'decision.input', issues: valid.issues } },
        )
      }
      input = { ok: true, value: edit }
    }
    pass.start = {
      ...start,
      input,
      decision,
      waited,
      original: edit === undefined ? start.original : (pass.view?.input as JsonValue),
      options: { ...start.options, result: checked },
    }
    pass.view = freezeView(pass.start, input.ok ? input.value : null)
  }

  /** One pass: one span, the phases in order, one outcome. */
  async #pass(start: PassStart, context: OperationContext<App>): Promise<ToolCallOutcome> {
    const span = context.diagnostics.span('tool-call', {
      toolId: start.toolId,
      toolCallId: start.toolCallId,
      invocationId: start.invocationId,
      resumed: start.decision !== undefined,
    })
    const hookContext: OperationContext<App> = { ...context, diagnostics: span.diagnostics }
    const pass: Pass<App> = {
      start,
      context: hookContext,
      participants: [],
      view: undefined,
      selected: undefined,
    }
    let settlement: Settlement
    try {
      settlement = await this.#settle(pass)
      // A wait decided in this process continues the same pass: select, protocol and inspect do not run
      // again, nothing is signed or verified, and the call has one span.
      const decide = start.options.decide
      while (
        decide !== undefined &&
        settlement.status === 'pending' &&
        settlement.waitingFor !== 'write-ahead' &&
        pass.selected !== undefined &&
        pass.view !== undefined
      ) {
        const waited = settlement.waitingFor
        let answer: unknown
        try {
          const record = pendingShape(pass.start, pass.view, settlement)
          answer = await decide(record, hookContext)
        } catch (error) {
          settlement = failed('decision', error)
          break
        }
        if (answer === undefined) break
        try {
          this.#continueWith(pass, pass.selected, waited, answer)
        } catch (error) {
          settlement = failed('decision', error)
          break
        }
        settlement = await this.#decided(pass, pass.selected)
      }
    } catch (error) {
      // #settle turns every error of a hook or the tool into a settlement; this is a last guard.
      settlement = failed('select', error)
    }
    const last = pass.start
    const { participants, selected } = pass
    const view = pass.view ?? freezeView(last, last.input.ok ? last.input.value : null)
    let record: PendingToolCall | undefined
    if (settlement.status === 'pending') {
      try {
        record = await this.#pendingRecord(last, view, settlement)
      } catch (error) {
        settlement = failed('authorize', error)
      }
    }
    // One array per call only when a participant finalizes (it collects their errors after the outcome
    // is built); otherwise the outcome shares one frozen empty list.
    let finalizing = false
    for (const entry of participants) if (entry.hooks.finalize) finalizing = true
    const finalizeErrors: unknown[] = finalizing ? [] : (NO_FINALIZE_ERRORS as unknown[])
    let outcome: ToolCallOutcome
    try {
      outcome = this.#conclude(last, settlement, view, selected, hookContext, record, finalizeErrors)
    } catch (error) {
      // Building the record cannot fail for checked values; if it ever does, the span still ends once.
      span.fail(error)
      throw error
    }
    if (participants.length > 0) {
      enterPhase(hookContext, 'finalize')
    }
    if (finalizing) {
      for (const entry of participants) {
        const hook = entry.hooks.finalize
        if (!hook) continue
        try {
          callVoidHook(hook, entry.receiver, [outcome, hookContext], `tool "${entry.id}" finalize`)
        } catch (error) {
          finalizeErrors.push(error)
          span.diagnostics.emit('finalize-fail', { lifecycleId: entry.id, error: errorText(error) }, 'error')
        }
      }
    }
    if (finalizing) Object.freeze(finalizeErrors)
    endSpan(span, outcome)
    return outcome
  }

  /** Runs the phases up to a settlement. Every error of a hook or the tool becomes a settlement. */
  async #settle(pass: Pass<App>): Promise<Settlement> {
    const { start, context } = pass
    enterPhase(context, 'select')
    // The policy first: a name it does not permit gets the answer of a name nobody registered.
    const policies = [this.#toolPolicy, start.options.toolPolicy] as const
    const definition = isToolPermitted(start.toolId, ...policies) ? this.get(start.toolId) : undefined
    if (definition === undefined) {
      const known = this.ids().filter((id) => isToolPermitted(id, ...policies))
      const error = new UnknownIdError(
        `No tool "${start.toolId}" is available. The tools available are: ${known.length ? known.map((k) => `"${k}"`).join(', ') : '(none)'}.`,
        { details: { id: start.toolId, kind: 'tool', known } },
      )
      return failed('select', error)
    }
    const selected = compileLifecycle(definition)
    pass.selected = selected
    enterPhase(context, 'protocol')
    if (!start.input.ok) {
      const error = new InvalidInputError(
        `The arguments of the call to "${start.toolId}" are not valid JSON. Send the input as a JSON object that matches the tool's input schema.`,
        { details: { field: 'arguments', received: describeValue(start.input.raw) } },
      )
      return failed('protocol', error)
    }
    const input = start.input.value
    const checked = await selected.validator.validate(input)
    if (!checked.ok) {
      const error = new InvalidInputError(
        `Input for tool "${start.toolId}" does not match its inputSchema: ${checked.issues.map((i) => `${i.path} ${i.message}`).join('; ')}.`,
        { details: { field: 'input', issues: checked.issues } },
      )
      return failed('protocol', error)
    }
    const view = freezeView(start, input)
    const participants = this.#everyLifecycle()
    pass.view = view
    pass.participants = participants

    enterPhase(context, 'inspect')
    if (context.signal.aborted) {
      try {
        throwIfAborted(context.signal, `before the hooks of tool call "${start.toolCallId}"`)
      } catch (error) {
        return failed('inspect', error)
      }
    }
    for (const entry of participants) {
      const hook = entry.hooks.inspect
      if (!hook) continue
      const name = `tool "${entry.id}" inspect`
      try {
        callVoidHook(hook, entry.receiver, [view, context], name)
      } catch (error) {
        return classify(error, 'inspect', name)
      }
    }

    if (start.decision !== undefined) return this.#decided(pass, selected)
    enterPhase(context, 'authorize')
    const hook = selected.hooks.authorize
    if (hook) {
      const name = `tool "${selected.id}" authorize`
      try {
        const wait = callAuthorize(hook, selected.receiver, [view, context], name)
        if (wait !== undefined) return { status: 'pending', waitingFor: 'approval', reason: wait.reason }
      } catch (error) {
        return classify(error, 'authorize', name)
      }
    }
    return this.#runStage(pass, selected)
  }

  /** The decision phase of a resumed call (or of one decided in this process), then the rest of the pass. */
  async #decided(pass: Pass<App>, selected: Entry): Promise<Settlement> {
    const { start, context } = pass
    const view = pass.view as ToolCallView
    enterPhase(context, 'decision')
    const decision = start.decision as ToolDecision
    if (decision.type === 'reject') {
      return {
        status: 'rejected',
        rejection: {
          reason: decision.reason,
          by: decision.by,
          ...(decision.instruction === undefined ? {} : { instruction: decision.instruction }),
        },
      }
    }
    enterPhase(context, 'resume')
    const hook = selected.hooks.resume
    if (hook) {
      const name = `tool "${selected.id}" resume`
      try {
        callVoidHook(hook, selected.receiver, [view, context], name)
      } catch (error) {
        return classify(error, 'resume', name)
      }
    }
    return this.#runStage(pass, selected)
  }

  /** The save-before-run stage, the execution (or the host's result) and `complete`. */
  async #runStage(pass: Pass<App>, selected: Entry): Promise<Settlement> {
    const { start, context } = pass
    const view = pass.view as ToolCallView
    const host = selected.hooks.awaitHost
    const { saveBeforeRun, result } = start.options
    if (host === undefined && saveBeforeRun !== undefined && start.waited !== 'write-ahead') {
      enterPhase(context, 'write-ahead')
      try {
        const record = await this.#pendingRecord(start, view, {
          waitingFor: 'write-ahead',
          reason: WRITE_AHEAD_REASON,
        })
        if (start.options.journal) recordState(start.options.journal, record)
        await saveBeforeRun(record, context)
      } catch (error) {
        return failed('write-ahead', error)
      }
    }

    enterPhase(context, 'execute')
    let output: unknown
    if (host !== undefined) {
      if (result === undefined) {
        const name = `tool "${selected.id}" awaitHost`
        try {
          const wait = callAwaitHost(host, selected.receiver, [view, context], name)
          return { status: 'pending', ...wait }
        } catch (error) {
          return failed('execute', error)
        }
      }
      if (!result.ok) return failed('execute', result.error)
      output = result.output
      const checked = await selected.outputValidator?.validate(output)
      if (checked !== undefined && !checked.ok) {
        const error = new InvalidOutputError(
          `The result the host gave for tool "${selected.id}" does not match its outputSchema: ${checked.issues.map((i) => `${i.path} ${i.message}`).join('; ')}.`,
          { details: { field: 'result.output', issues: checked.issues } },
        )
        return failed('execute', error)
      }
    } else {
      try {
        output = (await this.#traced(selected, view, context, start.timeoutMs, start.options.progress)).output
      } catch (error) {
        // A tool that learns only while it runs that it needs a person (a sandbox script reaching a host
        // call that asks) waits like a call its authorize hook stopped: resumed with an approval, it runs
        // again with the same invocation id.
        if (ApprovalRequiredError.isInstance(error)) return pendingSettlement(error)
        return failed('execute', error)
      }
    }
    const problem = output === undefined ? undefined : jsonProblem(output, 'output')
    if (problem !== undefined) {
      const error = new InvalidOutputError(
        `Tool "${selected.id}" returned output that is not plain JSON: ${problem}. A tool that runs through the lifecycle returns JSON (what a model reads and a stored call keeps); convert it in execute.`,
        { details: { field: 'output', received: describeValue(output) } },
      )
      return failed('execute', error)
    }

    enterPhase(context, 'complete')
    const complete = selected.hooks.complete
    if (complete) {
      const name = `tool "${selected.id}" complete`
      try {
        callVoidHook(complete, selected.receiver, [Object.freeze({ call: view, output }), context], name)
      } catch (error) {
        return failed('complete', error)
      }
    }
    return { status: 'completed', output }
  }

  /**
   * The execution as its own span `tool-execution` inside the call's span (when diagnostics are on). It
   * ends when the race ends: `ok`, failed with the tool's error, or `aborted` the moment the time limit or
   * the run's stop wins (what the tool emits afterwards no longer belongs to it).
   */
  #traced(
    entry: Entry,
    view: ToolCallView,
    context: OperationContext<App>,
    requestTimeoutMs: number | undefined,
    progress: ToolProgressReporter | undefined,
  ): Promise<ToolInvocation<unknown>> {
    if (!context.diagnostics.enabled) {
      return this.#execute(entry, view, context, requestTimeoutMs, progress, undefined)
    }
    const span = context.diagnostics.span('tool-execution', {
      toolId: entry.id,
      invocationId: view.invocationId,
    })
    const running = this.#execute(
      entry,
      view,
      { ...context, diagnostics: span.diagnostics },
      requestTimeoutMs,
      progress,
      span,
    )
    running.then(
      () => span.end('ok'),
      (error: unknown) => {
        if (context.signal.aborted) stopSpan(span, error)
        else span.fail(error)
      },
    )
    return running
  }

  /** Executes through core, within the time limit and the signal; a late result is dropped. */
  #execute(
    entry: Entry,
    view: ToolCallView,
    context: OperationContext<App>,
    requestTimeoutMs: number | undefined,
    progress: ToolProgressReporter | undefined,
    span: DiagnosticSpan | undefined,
  ): Promise<ToolInvocation<unknown>> {
    const timeoutMs = requestTimeoutMs ?? entry.timeoutMs ?? this.#timeoutMs
    const point = `running tool "${entry.id}"`
    // The protocol phase validated the input against the schema: core does not check it again. Progress
    // stops with the race: a late report of a call that timed out or was stopped is dropped. Without a
    // progress listener nothing needs closing, so a plain call makes no closures here. (Closures are
    // stored or passed, never bound to a name: a build that keeps function names names those on every call.)
    const options: { invocationId: string; inputValidated: true; progress?: ToolProgressReporter } = {
      invocationId: view.invocationId,
      inputValidated: true,
    }
    const parent = context.signal
    if (timeoutMs === undefined || parent.aborted) {
      let open = true
      if (progress !== undefined)
        options.progress = (update: ToolProgressUpdate) => (open ? progress(update) : undefined)
      if (timeoutMs === undefined) {
        const running = raceSignal(invokeModelTool(entry.tool, view.input, context, options), parent, point)
        if (progress === undefined) return running
        running.then(
          () => {
            open = false
          },
          () => {
            open = false
          },
        )
        return running
      }
      const deadline = deadlineSignal(parent, timeoutMs, `tool "${entry.id}"`)
      const running = raceSignal(
        invokeModelTool(entry.tool, view.input, { ...context, signal: deadline.signal }, options),
        deadline.signal,
        point,
      )
      deadline.dispose()
      return running
    }
    // The deadline and the race in one: the call's own signal aborts with the run's or at the time limit,
    // and that same stop rejects the wait (one listener on the run's signal, one timer, no second race).
    const race = new ExecutionRace(parent, point, `tool "${entry.id}"`, timeoutMs, span)
    if (progress !== undefined)
      options.progress = (update: ToolProgressUpdate) => (race.open ? progress(update) : undefined)
    return new Promise<ToolInvocation<unknown>>((resolve, reject) => {
      race.resolve = resolve
      race.reject = reject
      race.start()
      invokeModelTool(entry.tool, view.input, { ...context, signal: race.controller.signal }, options).then(
        (value) => race.settle(value),
        // A late failure of a call that was stopped is consumed here.
        (error: unknown) => race.fail(error),
      )
    })
  }

  /** The stored form of a call that waits, signed when the registry has `decisionKeys`. */
  async #pendingRecord(
    start: PassStart,
    view: ToolCallView,
    wait: {
      readonly waitingFor: ToolWaitKind
      readonly reason: string
      readonly question?: string | undefined
    },
  ): Promise<PendingToolCall> {
    const record = pendingShape(start, view, wait)
    if (!this.#keys) return record
    const signature = await signToolCall(
      identity(start, view.input as JsonValue),
      this.#keys[0] as DecisionKey,
    )
    return Object.freeze({ ...record, signature })
  }

  /** Renders the message and builds the record and the (frozen) outcome. */
  #conclude(
    start: PassStart,
    reached: Settlement,
    view: ToolCallView,
    selected: Entry | undefined,
    context: OperationContext<App>,
    pending: PendingToolCall | undefined,
    finalizeErrors: readonly unknown[],
  ): ToolCallOutcome {
    // Each outcome is one object literal (not `{ ...base, status }`: V8 makes a new hidden class for every
    // property added after a spread, which made this the costliest line of a plain call).
    const { toolCallId, invocationId, toolId } = start
    let settlement = reached
    if (settlement.status === 'pending' && pending !== undefined) {
      return Object.freeze({
        toolCallId,
        invocationId,
        toolId,
        replayed: false,
        finalizeErrors,
        status: 'pending',
        record: pending,
      })
    }
    enterPhase(context, 'render')
    const template = templateInput(settlement, view)
    let rendered: { content: string; isError: boolean }
    try {
      rendered = this.#render(template, selected, context)
    } catch (error) {
      if (settlement.status === 'failed') {
        context.diagnostics.emit('render-fail', { error: errorText(error) }, 'error')
        rendered = defaultMessage(template)
      } else {
        settlement = failed('render', error)
        rendered = defaultMessage(templateInput(settlement, view))
      }
    }
    const message: ToolCallMessage = Object.freeze({
      role: 'tool',
      toolCallId: start.toolCallId,
      content:
        start.original === undefined || settlement.status === 'rejected'
          ? rendered.content
          : `${editNote(start.original, view.input as JsonValue)}\n${rendered.content}`,
      isError: rendered.isError,
    })
    switch (settlement.status) {
      case 'completed': {
        const approvedBy = start.decision?.type === 'approve' ? start.decision.by : undefined
        // The fields of `identity`, stored one by one rather than spread in (the path of every plain call).
        const fields: Record<string, unknown> = {
          status: 'completed',
          toolCallId,
          invocationId,
          toolId,
          input: copyJson(view.input as JsonValue),
        }
        if (start.runId !== undefined) fields.runId = start.runId
        if (settlement.output !== undefined) fields.output = copyJson(settlement.output as JsonValue)
        fields.message = message
        if (approvedBy !== undefined) fields.approvedBy = approvedBy
        const record = Object.freeze(fields) as unknown as CompletedToolCall
        return Object.freeze({
          toolCallId,
          invocationId,
          toolId,
          replayed: false,
          finalizeErrors,
          status: 'completed',
          output: settlement.output,
          message,
          record,
        })
      }
      case 'rejected': {
        const rejection = Object.freeze({ ...settlement.rejection })
        const record = Object.freeze({
          status: 'rejected' as const,
          ...identity(start, view.input as JsonValue),
          rejection,
          message,
        })
        return Object.freeze({
          toolCallId,
          invocationId,
          toolId,
          replayed: false,
          finalizeErrors,
          status: 'rejected',
          rejection,
          message,
          record,
        })
      }
      default: {
        const failure = settlement as Extract<Settlement, { status: 'failed' }>
        const record = Object.freeze({
          status: 'failed' as const,
          ...failedIdentity(start),
          phase: failure.phase,
          error: Object.freeze(errorRecord(failure.error)),
          message,
        })
        return Object.freeze({
          toolCallId,
          invocationId,
          toolId,
          replayed: false,
          finalizeErrors,
          status: 'failed',
          error: failure.error,
          phase: failure.phase,
          message,
          record,
        })
      }
    }
  }

  /** The selected tool's template, then the registry's providers, then the default text. */
  #render(
    input: ToolTemplateInput,
    selected: Entry | undefined,
    context: OperationContext<App>,
  ): { content: string; isError: boolean } {
    const own = selected?.hooks.template
    if (own) {
      const name = `tool "${selected.id}" template`
      const rendered = askTemplate(Reflect.apply(own, selected.receiver, [input, context]), name, input)
      if (rendered) return rendered
    }
    for (const [index, provider] of this.#templates.entries()) {
      const name = `policy.templates[${index}]`
      const answer =
        typeof provider === 'function'
          ? Reflect.apply(provider, undefined, [input, context])
          : Reflect.apply(provider.template, provider, [input, context])
      const rendered = askTemplate(answer, name, input)
      if (rendered) return rendered
    }
    return defaultMessage(input)
  }
}
