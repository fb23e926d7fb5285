/**
 * One pass of a tool call through the lifecycle: select, protocol, inspect, authorize, decision and
 * resume, the save-before-run stage, the execution raced against its time limit, complete, render and
 * finalize, with the call's span. {@link ToolLifecycleRegistry} runs every call through {@link runPass};
 * this module is the one it imports dynamically (internal/passes.ts, on a registry's first call), so that
 * importing `@agent-core/kits/tools` (and the loop kit, which builds a registry for every agent) does not
 * compile the run path (about 25 KB of built code). `run` and `resume` are asynchronous and check their
 * arguments before any pass starts, so what they refuse is refused exactly as before. See
 * docs/design/cold-import.md.
 *
 * This module and settlement.ts, default-message.ts behind it import from the rest of the kit through
 * pass-host.ts only (it says why), and only types otherwise.
 */
import {
  abortedError,
  assertNotThenable,
  consumeRejection,
  type DiagnosticSpan,
  deadlineSignal,
  describeValue,
  InvalidInputError,
  InvalidOutputError,
  type OperationContext,
  raceSignal,
  TimeoutError,
  throwIfAborted,
  UnknownIdError,
} from '@agent-core/core'
import {
  invokeModelTool,
  type ToolInvocation,
  type ToolProgressReporter,
  type ToolProgressUpdate,
} from '@agent-core/core/tools'
import type {
  ToolCallOutcome,
  ToolCallView,
  ToolTemplateInput,
  ToolTemplateProvider,
} from '../tool-call-outcome.js'
import type { DecisionKey } from '../tool-call-signature.js'
import type {
  CompletedToolCall,
  PendingToolCall,
  ToolCallMessage,
  ToolLifecyclePhase,
  ToolWaitKind,
} from '../tool-call-state.js'
import type { ToolDecision } from '../tool-decision.js'
import type { ToolLifecycle } from '../tool-lifecycle.js'
import type { ToolResume } from '../tool-lifecycle-registry.js'
import type { ToolPolicy } from '../tool-policy.js'
import { defaultMessage, errorText } from './default-message.js'
import type { JsonValue } from './json.js'
import type { Entry } from './lifecycle-entry.js'
import {
  ApprovalRequiredError,
  assertDecision,
  callAuthorize,
  callAwaitHost,
  callVoidHook,
  canonicalJson,
  compileLifecycle,
  copyJson,
  isToolPermitted,
  jsonProblem,
  readOptions,
  recordState,
  signToolCall,
} from './pass-host.js'
import type { PassStart } from './request.js'
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
  type Settlement,
  templateInput,
} from './settlement.js'

export { connectPass } from './pass-host.js'

/** What a pass reads of the registry that runs it (the registry's private state, handed over as is). */
export interface PassRegistry<App> {
  readonly toolPolicy: ToolPolicy | undefined
  readonly timeoutMs: number | undefined
  readonly keys: readonly DecisionKey[] | undefined
  readonly templates: readonly ToolTemplateProvider[]
  /** The lifecycle registered under an id. */
  get(id: string): ToolLifecycle<unknown, unknown, App> | undefined
  /** The registered ids, in registration order. */
  ids(): readonly string[]
  /** Lifecycles whose `inspect` or `finalize` run for every call, in registration order. */
  everyLifecycle(): readonly Entry[]
}

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

const WRITE_AHEAD_REASON =
  'Saved before it runs, so that a restart runs it again with the same invocation id.'

/** Checks what `decide` answered and continues the pass with it (approve with edits included). */
function continueWith<App>(pass: Pass<App>, selected: Entry, waited: ToolWaitKind, answer: unknown): void {
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
export async function runPass<App>(
  registry: PassRegistry<App>,
  start: PassStart,
  context: OperationContext<App>,
): Promise<ToolCallOutcome> {
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
    settlement = await settle(registry, pass)
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
        continueWith(pass, pass.selected, waited, answer)
      } catch (error) {
        settlement = failed('decision', error)
        break
      }
      settlement = await decided(registry, pass, pass.selected)
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
      record = await pendingRecord(registry, last, view, settlement)
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
    outcome = conclude(registry, last, settlement, view, selected, hookContext, record, finalizeErrors)
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
async function settle<App>(registry: PassRegistry<App>, pass: Pass<App>): Promise<Settlement> {
  const { start, context } = pass
  enterPhase(context, 'select')
  // The policy first: a name it does not permit gets the answer of a name nobody registered.
  const policies = [registry.toolPolicy, start.options.toolPolicy] as const
  const definition = isToolPermitted(start.toolId, ...policies) ? registry.get(start.toolId) : undefined
  if (definition === undefined) {
    const known = registry.ids().filter((id) => isToolPermitted(id, ...policies))
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
  const participants = registry.everyLifecycle()
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

  if (start.decision !== undefined) return decided(registry, pass, selected)
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
  return runStage(registry, pass, selected)
}

/** The decision phase of a resumed call (or of one decided in this process), then the rest of the pass. */
async function decided<App>(
  registry: PassRegistry<App>,
  pass: Pass<App>,
  selected: Entry,
): Promise<Settlement> {
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
  return runStage(registry, pass, selected)
}

/** The save-before-run stage, the execution (or the host's result) and `complete`. */
async function runStage<App>(
  registry: PassRegistry<App>,
  pass: Pass<App>,
  selected: Entry,
): Promise<Settlement> {
  const { start, context } = pass
  const view = pass.view as ToolCallView
  const host = selected.hooks.awaitHost
  const { saveBeforeRun, result } = start.options
  if (host === undefined && saveBeforeRun !== undefined && start.waited !== 'write-ahead') {
    enterPhase(context, 'write-ahead')
    try {
      const record = await pendingRecord(registry, start, view, {
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
      output = (await traced(registry, selected, view, context, start.timeoutMs, start.options.progress))
        .output
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
function traced<App>(
  registry: PassRegistry<App>,
  entry: Entry,
  view: ToolCallView,
  context: OperationContext<App>,
  requestTimeoutMs: number | undefined,
  progress: ToolProgressReporter | undefined,
): Promise<ToolInvocation<unknown>> {
  if (!context.diagnostics.enabled) {
    return execute(registry, entry, view, context, requestTimeoutMs, progress, undefined)
  }
  const span = context.diagnostics.span('tool-execution', {
    toolId: entry.id,
    invocationId: view.invocationId,
  })
  const running = execute(
    registry,
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
function execute<App>(
  registry: PassRegistry<App>,
  entry: Entry,
  view: ToolCallView,
  context: OperationContext<App>,
  requestTimeoutMs: number | undefined,
  progress: ToolProgressReporter | undefined,
  span: DiagnosticSpan | undefined,
): Promise<ToolInvocation<unknown>> {
  const timeoutMs = requestTimeoutMs ?? entry.timeoutMs ?? registry.timeoutMs
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
async function pendingRecord<App>(
  registry: PassRegistry<App>,
  start: PassStart,
  view: ToolCallView,
  wait: {
    readonly waitingFor: ToolWaitKind
    readonly reason: string
    readonly question?: string | undefined
  },
): Promise<PendingToolCall> {
  const record = pendingShape(start, view, wait)
  if (!registry.keys) return record
  const signature = await signToolCall(
    identity(start, view.input as JsonValue),
    registry.keys[0] as DecisionKey,
  )
  return Object.freeze({ ...record, signature })
}

/** Renders the message and builds the record and the (frozen) outcome. */
function conclude<App>(
  registry: PassRegistry<App>,
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
    rendered = render(registry, template, selected, context)
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
function render<App>(
  registry: PassRegistry<App>,
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
  for (const [index, provider] of registry.templates.entries()) {
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
