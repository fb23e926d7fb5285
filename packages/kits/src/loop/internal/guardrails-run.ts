import {
  type ChatMessage,
  describeValue,
  isRecord,
  type OperationContext,
  refuseField,
} from '@agent-core/core'
import type { JsonValue, ToolCallOutcome } from '@agent-core/kits/tools'
import type { AgentEvent } from '../events.js'
import type { CompiledGuardrail, GuardrailTrip } from '../guardrails.js'
import { GuardrailTrippedError, jsonProblem } from './engine-host.js'
import type { ProgressRegistry } from './tool-progress.js'

/** How the guardrails stopped a run: one tripped, or one's check failed. */
export type GuardrailStop =
  | { readonly kind: 'guardrail'; readonly trip: GuardrailTrip }
  | { readonly kind: 'error'; readonly error: unknown }

function lastUserText(messages: readonly ChatMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!
    if (message.role === 'user') return typeof message.content === 'string' ? message.content : ''
  }
  return ''
}

function readVerdict(
  value: unknown,
  guardrail: CompiledGuardrail,
): { tripped: boolean; info: JsonValue | undefined } {
  const hook = `${guardrail.kind}Guardrails "${guardrail.name}"`
  if (typeof value === 'boolean') return { tripped: value, info: undefined }
  if (isRecord(value) && typeof value.tripped === 'boolean') {
    const info = value.info
    if (info !== undefined) {
      const problem = jsonProblem(info, 'info')
      if (problem !== undefined) {
        refuseField(
          'output',
          hook,
          `answered info that is not plain JSON (${problem}). Answer JSON info (it is kept in the state)`,
          info,
          { prefix: 'The ', details: { hook }, received: problem },
        )
      }
    }
    return { tripped: value.tripped, info: info === undefined ? undefined : JSON.parse(JSON.stringify(info)) }
  }
  refuseField(
    'output',
    hook,
    `must answer a boolean or { tripped: boolean, info? }, but answered ${describeValue(value)}${
      guardrail.check.type === 'agent' ? '. Give the guardrail agent a JSON answer flow of that shape' : ''
    }`,
    value,
    { prefix: 'The ', details: { hook } },
  )
}

/**
 * One run's guardrails: its input guardrails (`before` ones awaited, `parallel` ones beside the first model
 * call, gated before anything of that call is kept) and its output guardrails on the accepted answer. A
 * trip or failure of a parallel guardrail stops the model call in flight through `stopCalls`.
 */
export class GuardrailRun {
  readonly #input: readonly CompiledGuardrail[]
  readonly #output: readonly CompiledGuardrail[]
  readonly #emit: (event: AgentEvent) => void
  readonly #stopCalls: (reason: unknown) => void
  /** Whether the agent's tools run with guardrails. */
  readonly tool: boolean
  #parallel: Promise<void> | undefined
  /** Set once a guardrail stopped the run. */
  stop: GuardrailStop | undefined

  constructor(
    input: readonly CompiledGuardrail[],
    output: readonly CompiledGuardrail[],
    emit: (event: AgentEvent) => void,
    stopCalls: (reason: unknown) => void,
    tool: boolean,
  ) {
    this.tool = tool
    this.#input = input
    this.#output = output
    this.#emit = emit
    this.#stopCalls = stopCalls
  }

  /** The agent's registry, where a tool guardrail that stops the run (a failed call) is seen. */
  registry(registry: ProgressRegistry): ProgressRegistry {
    const seen = (outcome: ToolCallOutcome): ToolCallOutcome => {
      if (
        outcome.status === 'failed' &&
        this.stop === undefined &&
        GuardrailTrippedError.isInstance(outcome.error)
      ) {
        const { guardrail, kind, info, toolId } = outcome.error.details
        this.stop = { kind: 'guardrail', trip: Object.freeze({ guardrail, kind, info, toolId }) }
      }
      return outcome
    }
    return {
      run: async (request, context, options) => seen(await registry.run(request, context, options)),
      resume: async (state, decision, context, options) =>
        seen(await registry.resume(state, decision, context, options)),
    } as ProgressRegistry
  }

  get hasOutput(): boolean {
    return this.#output.length > 0
  }

  /** Runs the `before` input guardrails, then starts the `parallel` ones; resolves to a stop, if any. */
  async startInput(
    ctx: OperationContext<unknown>,
    messages: readonly ChatMessage[],
  ): Promise<GuardrailStop | undefined> {
    if (this.#input.length === 0) return undefined
    const input = Object.freeze({ text: lastUserText(messages), messages: Object.freeze([...messages]) })
    const before = this.#input.filter((guardrail) => guardrail.mode === 'before')
    const parallel = this.#input.filter((guardrail) => guardrail.mode === 'parallel')
    if (before.length > 0) {
      await Promise.all(before.map((guardrail) => this.#run(guardrail, input, input.text, ctx)))
      if (this.stop) return this.stop
    }
    if (parallel.length > 0) {
      this.#parallel = Promise.all(
        parallel.map((guardrail) => this.#run(guardrail, input, input.text, ctx)),
      ).then(() => undefined)
    }
    return undefined
  }

  /** Waits for the parallel input guardrails (before anything of the first model call is kept or run). */
  async gate(): Promise<GuardrailStop | undefined> {
    if (this.#parallel) {
      await this.#parallel
      this.#parallel = undefined
    }
    return this.stop
  }

  /** Runs the output guardrails on an accepted answer. */
  async checkOutput(
    ctx: OperationContext<unknown>,
    answer: unknown,
    text: string,
    messages: readonly ChatMessage[],
  ): Promise<GuardrailStop | undefined> {
    const input = Object.freeze({ answer, text, messages: Object.freeze([...messages]) })
    await Promise.all(this.#output.map((guardrail) => this.#run(guardrail, input, text, ctx)))
    return this.stop
  }

  /** One guardrail: its span and events, its verdict; never rejects (a failure becomes the stop). */
  async #run(
    guardrail: CompiledGuardrail,
    input: object,
    text: string,
    ctx: OperationContext<unknown>,
  ): Promise<void> {
    const { name, kind } = guardrail
    const span = ctx.diagnostics.span('guardrail', { guardrail: name, kind })
    this.#emit({ type: 'guardrail-start', guardrail: name, kind })
    try {
      const checkCtx = { ...ctx, diagnostics: span.diagnostics }
      let answered: unknown
      if (guardrail.check.type === 'function') {
        answered = await Reflect.apply(guardrail.check.fn, guardrail.holder, [input, checkCtx])
      } else {
        const result = await guardrail.check.agent.run({ prompt: text }, checkCtx as OperationContext<never>)
        if (result.reason !== 'final') {
          const hook = `${kind}Guardrails "${name}"`
          refuseField(
            'output',
            hook,
            `is an agent whose run ended with reason "${result.reason}" instead of an answer. Give it maxTurns and tools that let it answer, or use a function check`,
            result.reason,
            { prefix: 'The ', details: { hook }, received: result.reason, cause: result.error },
          )
        }
        answered = result.answer
      }
      const verdict = readVerdict(answered, guardrail)
      span.end('ok', { tripped: verdict.tripped })
      this.#emit({
        type: 'guardrail-end',
        guardrail: name,
        kind,
        tripped: verdict.tripped,
        info: verdict.info,
      })
      if (verdict.tripped && this.stop === undefined) {
        const trip: GuardrailTrip = Object.freeze({ guardrail: name, kind, info: verdict.info })
        this.stop = { kind: 'guardrail', trip }
        this.#stopCalls(new GuardrailTrippedError(trip))
      }
    } catch (error) {
      span.fail(error)
      this.#emit({ type: 'guardrail-end', guardrail: name, kind, tripped: false, info: undefined, error })
      if (this.stop === undefined) {
        this.stop = { kind: 'error', error }
        this.#stopCalls(error)
      }
    }
  }
}
