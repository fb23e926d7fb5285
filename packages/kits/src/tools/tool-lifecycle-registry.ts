import {
  ConflictError,
  createOperationContext,
  describeValue,
  InvalidDefinitionError,
  InvalidInputError,
  type OperationContext,
  type OperationContextInit,
  Registry,
  type RegistryPolicy,
  RegistryView,
  refuseField,
  UnauthorizedError,
} from '@agent-core/core'
import { createInvocationId, type ModelTool, type ToolProgressReporter } from '@agent-core/core/tools'
import { canonicalJson, copyJson, type JsonValue } from './internal/json.js'
import {
  compileLifecycle,
  composePolicy,
  type Entry,
  POLICY,
  readTemplates,
  timeoutProblem,
} from './internal/lifecycle-entry.js'
import { loadedPasses, loadPasses } from './internal/passes.js'
import { replayOutcome } from './internal/replay-outcome.js'
import {
  fingerprint,
  type PassStart,
  readOptions,
  readRequest,
  stateFingerprint,
} from './internal/request.js'
import type { PassRegistry } from './internal/tool-pass.js'
import { recordState, runningCalls, type ToolCallJournal } from './tool-call-journal.js'
import type { ToolCallOutcome, ToolTemplateProvider } from './tool-call-outcome.js'
import {
  assertDecisionKeys,
  type DecisionKey,
  importKeys,
  verifyToolCallSignature,
} from './tool-call-signature.js'
import {
  assertToolCallState,
  type PendingToolCall,
  type ToolCallRecord,
  type ToolCallState,
} from './tool-call-state.js'
import { assertDecision, type ToolDecision } from './tool-decision.js'
import type { ToolLifecycle } from './tool-lifecycle.js'
import { assertToolPolicy, isToolPermitted, readToolPolicy, type ToolPolicy } from './tool-policy.js'

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
  /** What a pass reads of this registry (internal/tool-pass.ts); made on the first call. */
  #passRegistry: PassRegistry<App> | undefined

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

  /**
   * One pass: one span, the phases in order, one outcome (internal/tool-pass.ts, which the registry's
   * first call imports; later calls start their pass at once, as before).
   */
  #pass(start: PassStart, context: OperationContext<App>): Promise<ToolCallOutcome> {
    const registry = (this.#passRegistry ??= {
      toolPolicy: this.#toolPolicy,
      timeoutMs: this.#timeoutMs,
      keys: this.#keys,
      templates: this.#templates,
      get: (id) => this.get(id),
      ids: () => this.ids(),
      everyLifecycle: () => this.#everyLifecycle(),
    })
    const passes = loadedPasses()
    if (passes !== undefined) return passes.runPass(registry, start, context)
    return loadPasses().then((loaded) => loaded.runPass(registry, start, context))
  }
}
