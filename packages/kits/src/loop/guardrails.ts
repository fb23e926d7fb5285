import {
  AgentCoreError,
  type ChatMessage,
  describeValue,
  type ErrorDetails,
  InvalidDefinitionError,
  type MaybePromise,
  type OperationContext,
} from '@agent-core/core'
import type { JsonValue } from '@agent-core/kits/tools'
import { isRecord } from './internal/check.js'

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
  readonly kind: 'input' | 'output'
  readonly info: JsonValue | undefined
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
  /** The run's history before its first model call. */
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

/** Reads `definition.inputGuardrails` / `definition.outputGuardrails`; typed errors for what is wrong. */
export function readGuardrails(value: unknown, kind: 'input' | 'output'): readonly CompiledGuardrail[] {
  const field = `${kind}Guardrails`
  if (value === undefined) return []
  const fail = (path: string, problem: string, received: unknown): never => {
    throw new InvalidDefinitionError(`definition.${path} ${problem}.`, {
      details: { field: path, received: describeValue(received) },
    })
  }
  if (!Array.isArray(value))
    fail(field, `must be an array of guardrails { name, check${kind === 'input' ? ', mode?' : ''} }`, value)
  const seen = new Set<string>()
  return (value as unknown[]).map((entry, index) => {
    const path = `${field}[${index}]`
    if (!isRecord(entry)) fail(path, 'must be a guardrail { name, check }', entry)
    const record = entry as Record<string, unknown>
    const allowed = kind === 'input' ? ['name', 'check', 'mode'] : ['name', 'check']
    for (const key of Object.keys(record)) {
      if (!allowed.includes(key))
        fail(`${path}.${key}`, `is not a field of an ${kind} guardrail (${allowed.join(', ')})`, record[key])
    }
    const name = record.name
    if (typeof name !== 'string' || name === '')
      fail(`${path}.name`, 'must be a non-empty string naming the guardrail', name)
    if (seen.has(name as string))
      fail(`${path}.name`, `is a second ${kind} guardrail "${String(name)}"; give each a unique name`, name)
    seen.add(name as string)
    const check = record.check
    let compiled: CompiledGuardrail['check']
    if (typeof check === 'function')
      compiled = {
        type: 'function',
        fn: check as (input: unknown, context: OperationContext<unknown>) => unknown,
      }
    else if (isGuardrailAgent(check)) compiled = { type: 'agent', agent: check }
    else
      return fail(
        `${path}.check`,
        'must be a function of what it checks (returning a boolean or { tripped, info? }) or an agent (defineAgent)',
        check,
      )
    const mode = record.mode ?? 'parallel'
    if (mode !== 'parallel' && mode !== 'before') fail(`${path}.mode`, 'must be "parallel" or "before"', mode)
    return Object.freeze({
      name: name as string,
      kind,
      mode: mode as 'parallel' | 'before',
      check: compiled,
      holder: entry,
    })
  })
}
