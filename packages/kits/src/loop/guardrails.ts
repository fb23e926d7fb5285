import {
  AgentCoreError,
  type ChatMessage,
  describeValue,
  type ErrorDetails,
  FieldReader,
  type FieldReaderContext,
  type MaybePromise,
  type OperationContext,
  refuseField,
} from '@agent-core/core'
import type { JsonValue } from '@agent-core/kits/tools'
import { isRecord } from './internal/check.js'
import { jsonProblem } from './internal/json.js'

/**
 * What a guardrail's check answers: whether it trips (stops the run), and what it found (plain JSON, kept
 * in the result and the state). A check may also answer a bare boolean (`true` trips).
 * @example
 * ```ts
 * import type { GuardrailVerdict } from '@agent-core/kits/loop'
 * const verdict: GuardrailVerdict = { tripped: true, info: { matched: 'password' } }
 * ```
 */
export interface GuardrailVerdict {
  /** True stops the run with reason `guardrail`. */
  readonly tripped: boolean
  /** What the guardrail found (plain JSON). */
  readonly info?: JsonValue | undefined
}

/**
 * Which guardrail stopped a run and why: its name, whether it checked the run's input or its final
 * answer, and the `info` of its verdict.
 * @example
 * ```ts
 * import type { GuardrailTrip } from '@agent-core/kits/loop'
 * const show = (trip: GuardrailTrip) => `${trip.kind} guardrail ${trip.guardrail} tripped`
 * ```
 */
export interface GuardrailTrip {
  readonly guardrail: string
  /** What it checked: the run's input, its final answer, or a tool call's input or output. */
  readonly kind: 'input' | 'output' | 'tool-input' | 'tool-output'
  readonly info: JsonValue | undefined
  /** Kinds `tool-input` and `tool-output`: the guarded tool. */
  readonly toolId?: string | undefined
}

/**
 * The reason a model call in flight is aborted with when a parallel input guardrail trips (the run then
 * ends with reason `guardrail`, not with this error): a provider or a test sees which guardrail.
 * @example
 * ```ts
 * import { GuardrailTrippedError } from '@agent-core/kits/loop'
 * declare const reason: unknown // an abort signal's reason
 * if (GuardrailTrippedError.isInstance(reason)) console.log(reason.details.guardrail)
 * ```
 */
export class GuardrailTrippedError extends AgentCoreError<ErrorDetails & GuardrailTrip> {
  static override readonly code = 'guardrail-tripped'
  declare readonly code: 'guardrail-tripped'
  constructor(trip: GuardrailTrip) {
    super(
      'guardrail-tripped',
      `The ${trip.kind} guardrail "${trip.guardrail}" tripped, so the run stopped this model call and discards its reply. Read the run's result (reason "guardrail") for what it found.`,
      { details: { ...trip } },
    )
  }
}

/**
 * What an input guardrail checks: the conversation the run starts with (prompt included) and the text of
 * its last user message.
 * @example
 * ```ts
 * import type { InputGuardrailInput } from '@agent-core/kits/loop'
 * const long = (input: InputGuardrailInput) => input.text.length > 10_000
 * ```
 */
export interface InputGuardrailInput {
  /** The text of the last user message ('' when there is none). */
  readonly text: string
  /** The run's history before its first model call (its custom inputs converted by `transformInput`). */
  readonly messages: readonly ChatMessage[]
}

/**
 * What an output guardrail checks: the accepted answer, its text, and the history.
 * @example
 * ```ts
 * import type { OutputGuardrailInput } from '@agent-core/kits/loop'
 * const leaks = (input: OutputGuardrailInput) => input.text.includes('sk-')
 * ```
 */
export interface OutputGuardrailInput {
  /** The answer the AnswerFlow accepted. */
  readonly answer: unknown
  /** The model's final text. */
  readonly text: string
  readonly messages: readonly ChatMessage[]
}

/**
 * An agent of the loop kit used as a guardrail's check: it is run with the checked text as its prompt
 * (its own run, in the guarding run's context), and its answer is the verdict: a boolean or
 * `{ tripped, info? }` (give it a JSON answer flow). A run that ends without an answer fails the guarded
 * run.
 * @example
 * ```ts
 * import type { GuardrailAgent } from '@agent-core/kits/loop'
 * declare const judge: GuardrailAgent
 * const check = { name: 'judge', check: judge }
 * ```
 */
export interface GuardrailAgent {
  run(
    request: { readonly prompt: string },
    context: OperationContext<never>,
  ): Promise<{ readonly reason: string; readonly answer?: unknown; readonly error?: unknown }>
}

/**
 * A guardrail's check: a function of what it checks (sync or async), or an agent.
 * @example
 * ```ts
 * import type { GuardrailCheck, InputGuardrailInput } from '@agent-core/kits/loop'
 * const check: GuardrailCheck<InputGuardrailInput> = ({ text }) => /password/i.test(text)
 * ```
 */
export type GuardrailCheck<Input, App = unknown> =
  | ((input: Input, context: OperationContext<App>) => MaybePromise<GuardrailVerdict | boolean>)
  | GuardrailAgent

/**
 * A check of the run's input. `mode: 'parallel'` (the default) runs it beside the first model call: the
 * call is not delayed when it passes, and when it trips the call in flight is aborted and its reply
 * discarded (nothing of it reaches the history; streamed `text-delta` events may already have gone out).
 * Tools never run before every input guardrail passed. `mode: 'before'` runs it before the first model
 * call. A resumed run does not check its input again (a saved state is past its input guardrails).
 * @example
 * ```ts
 * import { defineAgent, type InputGuardrail } from '@agent-core/kits/loop'
 * import type { ChatModel } from '@agent-core/core'
 * declare const model: ChatModel
 * const noSecrets: InputGuardrail = { name: 'no-secrets', check: ({ text }) => /password/i.test(text) }
 * const agent = defineAgent({ model, inputGuardrails: [noSecrets] })
 * ```
 */
export interface InputGuardrail<App = unknown> {
  /** Unique among the agent's input guardrails; names the guardrail in results, events and spans. */
  readonly name: string
  readonly check: GuardrailCheck<InputGuardrailInput, App>
  /** Default `parallel`. */
  readonly mode?: 'parallel' | 'before' | undefined
}

/**
 * A check of the run's accepted final answer, before the run returns it.
 * @example
 * ```ts
 * import { defineAgent, type OutputGuardrail } from '@agent-core/kits/loop'
 * import type { ChatModel } from '@agent-core/core'
 * declare const model: ChatModel
 * const noKeys: OutputGuardrail = { name: 'no-keys', check: ({ text }) => ({ tripped: text.includes('sk-') }) }
 * const agent = defineAgent({ model, outputGuardrails: [noKeys] })
 * ```
 */
export interface OutputGuardrail<App = unknown> {
  /** Unique among the agent's output guardrails. */
  readonly name: string
  readonly check: GuardrailCheck<OutputGuardrailInput, App>
}

/** A guardrail after its checks. */
export interface CompiledGuardrail {
  readonly name: string
  readonly kind: 'input' | 'output'
  readonly mode: 'parallel' | 'before'
  readonly check:
    | {
        readonly type: 'function'
        readonly fn: (input: unknown, context: OperationContext<unknown>) => unknown
      }
    | { readonly type: 'agent'; readonly agent: GuardrailAgent }
  readonly holder: unknown
}

function isGuardrailAgent(value: unknown): value is GuardrailAgent {
  return (
    isRecord(value) &&
    typeof value.run === 'function' &&
    typeof (value as { stream?: unknown }).stream === 'function'
  )
}

/** What the guardrail readers add to their refusals: the path starts at the agent's definition. */
const DEFINITION_CONTEXT: FieldReaderContext = Object.freeze({ prefix: 'definition.' })

/** Reads `definition.inputGuardrails` / `definition.outputGuardrails`; typed errors for what is wrong. */
export function readGuardrails(value: unknown, kind: 'input' | 'output'): readonly CompiledGuardrail[] {
  const field = `${kind}Guardrails`
  if (value === undefined) return []
  if (!Array.isArray(value)) {
    refuseField(
      'definition',
      field,
      `must be an array of guardrails { name, check${kind === 'input' ? ', mode?' : ''} }, but got ${describeValue(value)}`,
      value,
      DEFINITION_CONTEXT,
    )
  }
  const seen = new Set<string>()
  const allowed = kind === 'input' ? ['name', 'check', 'mode'] : ['name', 'check']
  return (value as unknown[]).map((entry, index) => {
    const fields = new FieldReader(
      entry,
      `${field}[${index}]`,
      'a guardrail { name, check }',
      'definition',
      DEFINITION_CONTEXT,
    )
    const record = entry as Record<string, unknown>
    for (const key of Object.keys(record)) {
      if (!allowed.includes(key))
        fields.fail(key, `is not a field of an ${kind} guardrail (${allowed.join(', ')})`, record[key])
    }
    const name = fields.requiredString('name')
    if (seen.has(name))
      fields.fail('name', `is a second ${kind} guardrail "${name}"; give each a unique name`, name)
    seen.add(name)
    const check = fields.get('check')
    let compiled: CompiledGuardrail['check']
    if (typeof check === 'function')
      compiled = {
        type: 'function',
        fn: check as (input: unknown, context: OperationContext<unknown>) => unknown,
      }
    else if (isGuardrailAgent(check)) compiled = { type: 'agent', agent: check }
    else
      return fields.fail(
        'check',
        `must be a function of what it checks (returning a boolean or { tripped, info? }) or an agent (defineAgent), but got ${describeValue(check)}`,
        check,
      )
    const mode = (kind === 'input' ? fields.oneOf('mode', MODES) : undefined) ?? 'parallel'
    return Object.freeze({ name, kind, mode, check: compiled, holder: entry })
  })
}

const MODES = ['parallel', 'before'] as const

/**
 * A tool call as a tool guardrail sees it: the tool, the call's invocation id and its input (checked
 * against the tool's schema).
 * @example
 * ```ts
 * import type { ToolGuardrailCall } from '@agent-core/kits/loop'
 * const big = (call: ToolGuardrailCall) => JSON.stringify(call.input).length > 1_000
 * ```
 */
export interface ToolGuardrailCall {
  readonly toolId: string
  readonly invocationId: string
  readonly input: JsonValue
}

/**
 * What a tool input guardrail answers: nothing (or `allow`) lets the call run; `refuse` fails the call
 * without running it, with `message` as what the model reads; `stop` ends the run with reason `guardrail`.
 * @example
 * ```ts
 * import type { ToolGuardrailAnswer } from '@agent-core/kits/loop'
 * const answer: ToolGuardrailAnswer = { type: 'refuse', message: 'Only paths under /tmp may be deleted.' }
 * ```
 */
export type ToolGuardrailAnswer =
  | undefined
  | { readonly type: 'allow' }
  | { readonly type: 'refuse'; readonly message: string }
  | { readonly type: 'stop'; readonly info?: JsonValue | undefined }

/**
 * What a tool output guardrail answers: a {@link ToolGuardrailAnswer} (`refuse` then drops the output:
 * the call fails with `message`), or `replace` to give the model other output (plain JSON).
 * @example
 * ```ts
 * import type { ToolOutputGuardrailAnswer } from '@agent-core/kits/loop'
 * const answer: ToolOutputGuardrailAnswer = { type: 'replace', output: '[redacted]' }
 * ```
 */
export type ToolOutputGuardrailAnswer =
  | ToolGuardrailAnswer
  | { readonly type: 'replace'; readonly output: JsonValue }

/**
 * A guardrail on tool calls: `input` runs before the tool executes (after its approval), `output` after
 * it returned. Applies to the tools named in `tools` (default: every tool the agent runs itself; tools the
 * host runs or a person answers are not executed in the run and are not checked).
 * @example
 * ```ts
 * import { defineAgent, type ToolGuardrail } from '@agent-core/kits/loop'
 * import type { ChatModel } from '@agent-core/core'
 * declare const model: ChatModel
 * const tmpOnly: ToolGuardrail = {
 *   name: 'tmp-only',
 *   tools: ['delete'],
 *   input: ({ input }) =>
 *     String((input as { path?: unknown }).path).startsWith('/tmp/')
 *       ? undefined
 *       : { type: 'refuse', message: 'Only paths under /tmp/ may be deleted.' },
 * }
 * const agent = defineAgent({ model, toolGuardrails: [tmpOnly] })
 * ```
 */
export interface ToolGuardrail<App = unknown> {
  /** Unique among the agent's tool guardrails. */
  readonly name: string
  /** The tools it guards (ids); default all. */
  readonly tools?: readonly string[] | undefined
  readonly input?:
    | ((call: ToolGuardrailCall, context: OperationContext<App>) => MaybePromise<ToolGuardrailAnswer>)
    | undefined
  readonly output?:
    | ((
        call: ToolGuardrailCall & { readonly output: JsonValue | undefined },
        context: OperationContext<App>,
      ) => MaybePromise<ToolOutputGuardrailAnswer>)
    | undefined
}

/**
 * What a tool fails with when a tool guardrail refused its input or its output: the message is what the
 * model reads about the call.
 * @example
 * ```ts
 * import { ToolGuardrailError } from '@agent-core/kits/loop'
 * declare const error: unknown // a failed call's error
 * if (ToolGuardrailError.isInstance(error)) console.log(error.details.guardrail)
 * ```
 */
export class ToolGuardrailError extends AgentCoreError<
  ErrorDetails & {
    readonly guardrail: string
    readonly toolId: string
    readonly kind: 'tool-input' | 'tool-output'
  }
> {
  static override readonly code = 'tool-guardrail'
  declare readonly code: 'tool-guardrail'
}

interface CompiledToolGuardrail {
  readonly name: string
  readonly tools: ReadonlySet<string> | undefined
  readonly input: ToolGuardrail['input']
  readonly output: ToolGuardrail['output']
  readonly holder: unknown
}

/** Reads `definition.toolGuardrails`; typed errors for what is wrong. */
export function readToolGuardrails(
  value: unknown,
  toolIds: ReadonlySet<string>,
): readonly CompiledToolGuardrail[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) {
    refuseField(
      'definition',
      'toolGuardrails',
      `must be an array of tool guardrails { name, tools?, input?, output? }, but got ${describeValue(value)}`,
      value,
      DEFINITION_CONTEXT,
    )
  }
  const seen = new Set<string>()
  return (value as unknown[]).map((entry, index) => {
    const fields = new FieldReader(
      entry,
      `toolGuardrails[${index}]`,
      'a tool guardrail { name, tools?, input?, output? }',
      'definition',
      DEFINITION_CONTEXT,
    )
    const record = entry as Record<string, unknown>
    for (const key of Object.keys(record)) {
      if (!TOOL_GUARDRAIL_FIELDS.includes(key))
        fields.fail(key, 'is not a field of a tool guardrail (name, tools, input, output)', record[key])
    }
    const name = fields.requiredString('name')
    if (seen.has(name))
      fields.fail('name', `is a second tool guardrail "${name}"; give each a unique name`, name)
    seen.add(name)
    const input = fields.func<ToolGuardrail['input']>('input')
    const output = fields.func<ToolGuardrail['output']>('output')
    if (input === undefined && output === undefined)
      fields.failObject('needs an input or an output check (or both)')
    const tools = fields.array('tools')
    let ids: Set<string> | undefined
    if (tools !== undefined) {
      ids = new Set()
      for (let at = 0; at < tools.length; at++) {
        const id = tools[at]
        if (typeof id !== 'string' || !toolIds.has(id))
          fields.fail(
            `tools[${at}]`,
            `must name one of the agent's tools (${[...toolIds].join(', ') || 'none'}), but got ${describeValue(id)}`,
            id,
          )
        ids.add(id as string)
      }
    }
    return Object.freeze({ name, tools: ids, input, output, holder: entry })
  })
}

const TOOL_GUARDRAIL_FIELDS = ['name', 'tools', 'input', 'output']

function readToolAnswer(
  value: unknown,
  guardrail: CompiledToolGuardrail,
  stage: 'input' | 'output',
): Exclude<ToolOutputGuardrailAnswer, undefined> {
  const hook = `toolGuardrails "${guardrail.name}" ${stage}`
  if (value === undefined) return { type: 'allow' }
  if (isRecord(value)) {
    if (value.type === 'allow') return { type: 'allow' }
    if (value.type === 'refuse' && typeof value.message === 'string' && value.message !== '')
      return { type: 'refuse', message: value.message }
    if (value.type === 'stop') {
      const problem = value.info === undefined ? undefined : jsonProblem(value.info, 'info')
      if (problem === undefined) return { type: 'stop', info: value.info as JsonValue | undefined }
    }
    if (stage === 'output' && value.type === 'replace' && jsonProblem(value.output, 'output') === undefined)
      return { type: 'replace', output: value.output as JsonValue }
  }
  refuseField(
    'output',
    hook,
    `must answer nothing, { type: 'allow' }, { type: 'refuse', message }, { type: 'stop', info? }${
      stage === 'output' ? " or { type: 'replace', output } (plain JSON)" : ''
    }, but answered ${describeValue(value)}`,
    value,
    { prefix: 'The ', details: { hook } },
  )
}

/**
 * The tool with its guardrails around `execute`: a refusal fails the call with a {@link ToolGuardrailError}
 * (its message is what the model reads), a stop with a {@link GuardrailTrippedError} that the run turns
 * into its end (reason `guardrail`).
 */
export function guardTool<T extends { readonly id: string; readonly execute: (...args: never[]) => unknown }>(
  tool: T,
  guardrails: readonly CompiledToolGuardrail[],
): T {
  const mine = guardrails.filter((guardrail) => guardrail.tools === undefined || guardrail.tools.has(tool.id))
  if (mine.length === 0) return tool
  const execute = tool.execute as unknown as (
    input: unknown,
    context: OperationContext<unknown> & { invocationId: string },
  ) => unknown
  const guarded = async (input: unknown, context: OperationContext<unknown> & { invocationId: string }) => {
    const call = Object.freeze({
      toolId: tool.id,
      invocationId: context.invocationId,
      input: input as JsonValue,
    })
    for (const guardrail of mine) {
      if (guardrail.input === undefined) continue
      await check(guardrail, 'tool-input', context, tool.id, (ctx) =>
        Reflect.apply(guardrail.input!, guardrail.holder, [call, ctx]),
      )
    }
    let output = (await Reflect.apply(execute, tool, [input, context])) as JsonValue | undefined
    for (const guardrail of mine) {
      if (guardrail.output === undefined) continue
      const seen = Object.freeze({ ...call, output })
      const replaced = await check(guardrail, 'tool-output', context, tool.id, (ctx) =>
        Reflect.apply(guardrail.output!, guardrail.holder, [seen, ctx]),
      )
      if (replaced !== undefined) output = replaced.output
    }
    return output
  }
  return Object.freeze({ ...tool, execute: guarded }) as T
}

/** One tool guardrail check in its span: refuses, stops, or answers a replacement output. */
async function check(
  guardrail: CompiledToolGuardrail,
  kind: 'tool-input' | 'tool-output',
  context: OperationContext<unknown>,
  toolId: string,
  run: (context: OperationContext<unknown>) => unknown,
): Promise<{ readonly output: JsonValue } | undefined> {
  const span = context.diagnostics.span('guardrail', { guardrail: guardrail.name, kind, toolId })
  try {
    const answer = readToolAnswer(
      await run({ ...context, diagnostics: span.diagnostics }),
      guardrail,
      kind === 'tool-input' ? 'input' : 'output',
    )
    span.end('ok', { answer: answer.type })
    if (answer.type === 'replace') return { output: answer.output }
    settle(answer, guardrail, toolId, kind)
    return undefined
  } catch (error) {
    if (!ToolGuardrailError.isInstance(error) && !GuardrailTrippedError.isInstance(error)) span.fail(error)
    throw error
  }
}

function settle(
  answer: Exclude<ToolOutputGuardrailAnswer, undefined>,
  guardrail: CompiledToolGuardrail,
  toolId: string,
  kind: 'tool-input' | 'tool-output',
): void {
  if (answer.type === 'refuse') {
    throw new ToolGuardrailError('tool-guardrail', answer.message, {
      details: { guardrail: guardrail.name, toolId, kind },
    })
  }
  if (answer.type === 'stop') {
    throw new GuardrailTrippedError(
      Object.freeze({ guardrail: guardrail.name, kind, info: answer.info, toolId }),
    )
  }
}
