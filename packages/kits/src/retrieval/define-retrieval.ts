import {
  AbortedError,
  abortedError,
  assertNotThenable,
  BudgetExhaustedError,
  createOperationContext,
  type DiagnosticSpan,
  describeValue,
  InvalidDefinitionError,
  InvalidOutputError,
  type MaybePromise,
  type OperationContext,
  type OperationContextInit,
  Registry,
  raceSignal,
  refuseField,
  throwIfAborted,
} from '@agent-core/core'
import { DuplicateRetrievalError } from './retrieval-errors.js'
import { ledgerAccess, RetrievalLedger } from './retrieval-ledger.js'

/**
 * One retrieved item, bound to the request: `sourceId` is the reference id this request uses for it
 * (`S1`, `S2`, ... allocated by the request's ledger), not the material's own entity key, which stays in
 * `material`.
 * @example
 * ```ts
 * import type { RetrievalSource } from '@agent-core/kits/retrieval'
 * const source: RetrievalSource<{ id: string; title: string }> = {
 *   sourceId: 'S1',
 *   retrievalId: 'docs',
 *   material: { id: 'doc-42', title: 'Deploying' },
 * }
 * ```
 */
export interface RetrievalSource<Material> {
  readonly sourceId: string
  /** The retrieval that produced it. */
  readonly retrievalId: string
  /** What `execute` returned for it, as returned. */
  readonly material: Material
}

/**
 * What a run returns, and what each effect receives.
 * @example
 * ```ts
 * import type { RetrievalReceipt } from '@agent-core/kits/retrieval'
 * function cite(receipt: RetrievalReceipt<{ title: string }>): string {
 *   return receipt.sources.map((source) => `[${source.sourceId}] ${source.material.title}`).join('\n')
 * }
 * ```
 */
export interface RetrievalReceipt<Material> {
  readonly retrievalId: string
  /** The deduplication key of the input. */
  readonly key: string
  /** When the read started (the context's clock). */
  readonly startedAtMs: number
  /** The request's query count after this query (this one included). */
  readonly queryCount: number
  readonly sources: readonly RetrievalSource<Material>[]
  /** Ids of the effects applied, in order (all of them, once `run` returns). */
  readonly effects: readonly string[]
}

/**
 * What each effect receives: the receipt so far (its `effects` lists the effects applied before this
 * one) and the run's input.
 * @example
 * ```ts
 * import type { RetrievalSubmission } from '@agent-core/kits/retrieval'
 * function count(submission: RetrievalSubmission<string, unknown>): number {
 *   return submission.sources.length
 * }
 * ```
 */
export interface RetrievalSubmission<Input, Material> extends RetrievalReceipt<Material> {
  readonly input: Input
}

/**
 * A named step that submits a run's evidence somewhere (record observations, emit citations, log). Effects
 * run in declaration order after the read, each as a method of the effect object.
 * @example
 * ```ts
 * import type { RetrievalEffect } from '@agent-core/kits/retrieval'
 * const observe: RetrievalEffect<string, { text: string }, { notes: string[] }> = {
 *   id: 'observe',
 *   apply: (submission, context) => {
 *     for (const source of submission.sources) context.app.notes.push(`${source.sourceId}: ${source.material.text}`)
 *   },
 * }
 * ```
 */
export interface RetrievalEffect<Input, Material, App = unknown> {
  readonly id: string
  /** Must return nothing. Throwing stops the remaining effects; nothing is rolled back. */
  apply(submission: RetrievalSubmission<Input, Material>, context: OperationContext<App>): void
}

/**
 * An effect of an asynchronous retrieval: `apply` may return a Promise (a database write, a call to a log
 * service). The run waits for it, raced against the signal, before the next effect starts.
 * @example
 * ```ts
 * import { type AsyncRetrievalEffect, defineRetrieval, RetrievalLedger } from '@agent-core/kits/retrieval'
 *
 * type App = { ledger: RetrievalLedger }
 * const saved: string[] = []
 * const persist: AsyncRetrievalEffect<string, string, App> = {
 *   id: 'persist',
 *   async apply(submission) {
 *     await new Promise((resolve) => setTimeout(resolve, 1)) // stands for a database write
 *     saved.push(...submission.sources.map((source) => `${source.sourceId}: ${source.material}`))
 *   },
 * }
 * const remote = defineRetrieval({
 *   id: 'remote',
 *   mode: 'async',
 *   assertInput(input: unknown): asserts input is string {
 *     if (typeof input !== 'string') throw new TypeError('a query string')
 *   },
 *   key: (query: string) => query,
 *   ledger: (context: { app: App }) => context.app.ledger,
 *   execute: async (query: string) => [`a page about ${query}`],
 *   effects: [persist],
 * })
 * const receipt = await remote.run('deploy', { app: { ledger: new RetrievalLedger({ limit: 1 }) } })
 * // receipt.effects: ['persist'], saved: ['S1: a page about deploy']
 * ```
 */
export interface AsyncRetrievalEffect<Input, Material, App = unknown> {
  readonly id: string
  apply(submission: RetrievalSubmission<Input, Material>, context: OperationContext<App>): MaybePromise<void>
}

/**
 * What the rejection factories receive.
 * @example
 * ```ts
 * import type { RetrievalRejection } from '@agent-core/kits/retrieval'
 * const describe = (event: RetrievalRejection<string>) => `${event.retrievalId}: ${event.key} (${event.queryCount}/${event.limit})`
 * ```
 */
export interface RetrievalRejection<Input> {
  readonly retrievalId: string
  readonly key: string
  readonly input: Input
  readonly limit: number
  readonly queryCount: number
}

/**
 * The rejection reasons of a retrieval, declared in one place. Each returns the error to throw.
 * @example
 * ```ts
 * import type { RetrievalErrorFactories } from '@agent-core/kits/retrieval'
 * class AlreadyRead extends Error {}
 * const errors: RetrievalErrorFactories<string> = { duplicate: ({ key }) => new AlreadyRead(key) }
 * ```
 */
export interface RetrievalErrorFactories<Input> {
  /** The request already started a query with this key. Default: {@link DuplicateRetrievalError}. */
  duplicate?(event: RetrievalRejection<Input>): Error
  /** The request's query limit is reached. Default: core `BudgetExhaustedError`. */
  budget?(event: RetrievalRejection<Input>): Error
}

/**
 * The hooks every retrieval definition has, synchronous or not.
 * @example
 * ```ts
 * import { type RetrievalDefinitionBase, RetrievalLedger } from '@agent-core/kits/retrieval'
 * const base: RetrievalDefinitionBase<string, { ledger: RetrievalLedger }> = {
 *   id: 'docs',
 *   assertInput(input) {
 *     if (typeof input !== 'string') throw new TypeError('a query string')
 *   },
 *   key: (query) => query,
 *   ledger: (context) => context.app.ledger,
 * }
 * ```
 */
export interface RetrievalDefinitionBase<Input, App> {
  /** Names the retrieval; deduplication keys are per retrieval id. */
  readonly id: string
  /** Required, synchronous: throws when `input` is not acceptable; returns nothing. */
  assertInput(input: unknown): asserts input is Input
  /** The deduplication key of an input: a string, computed synchronously. */
  key(input: Input): string
  /**
   * Finds this request's {@link RetrievalLedger} in the run's context (usually `context.app`), so the
   * definition itself binds no request state.
   */
  ledger(context: OperationContext<App>): RetrievalLedger
  /** Rejection reasons. */
  readonly errors?: RetrievalErrorFactories<Input> | undefined
}

/**
 * A synchronous retrieval: every hook returns a plain value, and `run` returns the receipt directly. A
 * hook that returns a Promise is refused with `RejectedThenableError`.
 * @example
 * ```ts
 * import { type RetrievalDefinition, RetrievalLedger } from '@agent-core/kits/retrieval'
 * const definition: RetrievalDefinition<string, string, { ledger: RetrievalLedger }> = {
 *   id: 'words',
 *   assertInput(input) {
 *     if (typeof input !== 'string') throw new TypeError('a query string')
 *   },
 *   key: (query) => query.toLowerCase(),
 *   ledger: (context) => context.app.ledger,
 *   execute: (query) => query.split(' '),
 * }
 * ```
 */
export interface RetrievalDefinition<Input, Material, App = unknown>
  extends RetrievalDefinitionBase<Input, App> {
  readonly mode?: 'sync' | undefined
  /** Must return nothing; throw to refuse (nothing is reserved then). */
  authorize?(input: Input, context: OperationContext<App>): void
  /** The read: returns the materials found, best first. */
  execute(input: Input, context: OperationContext<App>): readonly Material[]
  /** Throws when the read's result is not acceptable; returns nothing. */
  assertResult?(result: readonly Material[]): void
  readonly effects?: readonly RetrievalEffect<Input, Material, App>[] | undefined
}

/**
 * An asynchronous retrieval (`mode: 'async'`): `authorize`, `execute` and effects may return Promises,
 * and `run` returns a Promise of the receipt. Waits are raced against the signal.
 * @example
 * ```ts
 * import { type AsyncRetrievalDefinition, RetrievalLedger } from '@agent-core/kits/retrieval'
 * const definition: AsyncRetrievalDefinition<string, string, { ledger: RetrievalLedger }> = {
 *   id: 'remote',
 *   mode: 'async',
 *   assertInput(input) {
 *     if (typeof input !== 'string') throw new TypeError('a query string')
 *   },
 *   key: (query) => query,
 *   ledger: (context) => context.app.ledger,
 *   execute: async (query) => [query],
 * }
 * ```
 */
export interface AsyncRetrievalDefinition<Input, Material, App = unknown>
  extends RetrievalDefinitionBase<Input, App> {
  readonly mode: 'async'
  authorize?(input: Input, context: OperationContext<App>): MaybePromise<void>
  execute(input: Input, context: OperationContext<App>): MaybePromise<readonly Material[]>
  assertResult?(result: readonly Material[]): void
  readonly effects?: readonly AsyncRetrievalEffect<Input, Material, App>[] | undefined
}

/**
 * A compiled synchronous retrieval.
 * @example
 * ```ts
 * import { defineRetrieval, RetrievalLedger } from '@agent-core/kits/retrieval'
 * const words = defineRetrieval({
 *   id: 'words',
 *   assertInput(input: unknown): asserts input is string {
 *     if (typeof input !== 'string') throw new TypeError('a query string')
 *   },
 *   key: (query: string) => query,
 *   ledger: (context: { app: { ledger: RetrievalLedger } }) => context.app.ledger,
 *   execute: (query: string) => query.split(' '),
 * })
 * const receipt = words.run('a b', { app: { ledger: new RetrievalLedger({ limit: 1 }) } })
 * ```
 */
export interface Retrieval<Input, Material, App = unknown> {
  readonly id: string
  /**
   * Runs the retrieval: input check, deduplication, limit, authorization, reservation, read, result check,
   * source binding, cancellation check, effects in order. Returns synchronously.
   */
  run(input: Input, context?: OperationContextInit<App>): RetrievalReceipt<Material>
}

/**
 * A compiled asynchronous retrieval: like {@link Retrieval}, but `run` returns a Promise.
 * @example
 * ```ts
 * import type { AsyncRetrieval } from '@agent-core/kits/retrieval'
 * async function search(retrieval: AsyncRetrieval<string, string>, query: string) {
 *   return (await retrieval.run(query)).sources
 * }
 * ```
 */
export interface AsyncRetrieval<Input, Material, App = unknown> {
  readonly id: string
  run(input: Input, context?: OperationContextInit<App>): Promise<RetrievalReceipt<Material>>
}

type AnyDefinition = RetrievalDefinitionBase<unknown, unknown> & {
  readonly mode?: 'sync' | 'async' | undefined
  authorize?(input: unknown, context: OperationContext<unknown>): unknown
  execute(input: unknown, context: OperationContext<unknown>): unknown
  assertResult?(result: unknown): unknown
  readonly effects?:
    | readonly { readonly id: string; apply(submission: unknown, context: unknown): unknown }[]
    | undefined
}

function returnedNothing(value: unknown, hook: string): void {
  const plain = assertNotThenable(value, hook)
  if (plain !== undefined) {
    refuseField(
      'output',
      hook,
      `returned ${describeValue(plain)}, but it must return nothing: throw to refuse. If it is a predicate, throw when it is false`,
      plain,
      { details: { hook } },
    )
  }
}

function definitionError(id: unknown, field: string, what: string, value: unknown): InvalidDefinitionError {
  const name = typeof id === 'string' && id ? `Retrieval "${id}"` : 'A retrieval'
  return new InvalidDefinitionError(`${name}: ${field} must be ${what}, but got ${describeValue(value)}.`, {
    details: { ...(typeof id === 'string' ? { id } : {}), field, received: describeValue(value) },
  })
}

function checkDefinition(definition: unknown): AnyDefinition {
  if (typeof definition !== 'object' || definition === null) {
    refuseField(
      'definition',
      'definition',
      `must be a definition { id, assertInput, key, ledger, execute, ... }, but got ${describeValue(definition)}`,
      definition,
      { prefix: 'defineRetrieval: ' },
    )
  }
  const d = definition as AnyDefinition
  const { id } = d
  if (typeof id !== 'string' || id.length === 0) throw definitionError(id, 'id', 'a non-empty string', id)
  for (const field of ['assertInput', 'key', 'ledger', 'execute'] as const) {
    if (typeof d[field] !== 'function') {
      throw definitionError(
        id,
        field,
        field === 'assertInput'
          ? 'a function (it is required: it throws when an input is not acceptable)'
          : 'a function',
        d[field],
      )
    }
  }
  for (const field of ['authorize', 'assertResult'] as const) {
    if (d[field] !== undefined && typeof d[field] !== 'function')
      throw definitionError(id, field, 'a function or left out', d[field])
  }
  if (d.mode !== undefined && d.mode !== 'sync' && d.mode !== 'async') {
    throw definitionError(id, 'mode', '"sync", "async" or left out', d.mode)
  }
  const { errors } = d
  if (errors !== undefined) {
    if (typeof errors !== 'object' || errors === null)
      throw definitionError(id, 'errors', 'an object or left out', errors)
    for (const field of ['duplicate', 'budget'] as const) {
      if (errors[field] !== undefined && typeof errors[field] !== 'function') {
        throw definitionError(
          id,
          `errors.${field}`,
          'a function returning the error, or left out',
          errors[field],
        )
      }
    }
  }
  if (d.effects !== undefined && !Array.isArray(d.effects))
    throw definitionError(id, 'effects', 'an array or left out', d.effects)
  Registry.create(d.effects ?? [], {
    kind: `effect of retrieval "${id}"`,
    assertDefinition: (effect) => {
      if (typeof (effect as { apply?: unknown }).apply !== 'function') {
        throw definitionError(
          id,
          `effect "${effect.id}" apply`,
          'a function',
          (effect as { apply?: unknown }).apply,
        )
      }
    },
  })
  for (const [field, value] of Object.entries(d)) {
    if (value instanceof RetrievalLedger) {
      refuseField(
        'definition',
        field,
        'holds a RetrievalLedger. A definition binds no request state: keep the ledger in context.app and return it from ledger(context)',
        value,
        { prefix: `Retrieval "${id}": `, details: { id } },
      )
    }
  }
  return d
}

interface Prepared {
  readonly operation: OperationContext<unknown>
  readonly key: string
  readonly ledger: RetrievalLedger
  readonly span: DiagnosticSpan
}

/** The outcome of the checks before a read; the rejection to throw otherwise. */
function rejection(
  definition: AnyDefinition,
  reason: 'duplicate' | 'budget',
  event: RetrievalRejection<unknown>,
): unknown {
  const factory = definition.errors?.[reason]
  if (factory !== undefined) {
    const error = assertNotThenable(
      Reflect.apply(factory, definition.errors, [Object.freeze({ ...event })]),
      `retrieval "${definition.id}" errors.${reason}`,
    )
    if (typeof error !== 'object' || error === null) {
      return new InvalidOutputError(
        `Retrieval "${definition.id}" errors.${reason} must return an Error to throw, but returned ${describeValue(error)}.`,
        { details: { hook: `errors.${reason}`, received: describeValue(error) } },
      )
    }
    return error
  }
  if (reason === 'duplicate') {
    return new DuplicateRetrievalError(
      `Retrieval "${event.retrievalId}" already started a query with key ${JSON.stringify(event.key)} in this request. Use the evidence of the first query instead of reading again.`,
      { details: { retrievalId: event.retrievalId, key: event.key } },
    )
  }
  return new BudgetExhaustedError(
    `The request may start ${event.limit} ${event.limit === 1 ? 'query' : 'queries'} and started ${event.queryCount}, so retrieval "${event.retrievalId}" does not read. Answer from the evidence already gathered, or give the request a larger limit.`,
    { details: { limit: event.limit, used: event.queryCount, label: event.retrievalId } },
  )
}

class RetrievalRunner {
  readonly id: string
  readonly #definition: AnyDefinition

  constructor(definition: AnyDefinition) {
    this.#definition = definition
    this.id = definition.id
  }

  /** Context, signal, input, key, ledger; then the span starts. */
  #prepare(input: unknown, context: OperationContextInit<unknown> | undefined): Prepared {
    const definition = this.#definition
    const operation = createOperationContext(context ?? {})
    throwIfAborted(operation.signal, `before retrieval "${this.id}"`)
    returnedNothing(definition.assertInput(input), `retrieval "${this.id}" assertInput`)
    const key = assertNotThenable(definition.key(input), `retrieval "${this.id}" key`)
    if (typeof key !== 'string') {
      refuseField('output', 'key', `must return a string, but returned ${describeValue(key)}`, key, {
        prefix: `Retrieval "${this.id}" `,
        details: { hook: 'key' },
      })
    }
    const ledger = assertNotThenable(definition.ledger(operation), `retrieval "${this.id}" ledger`)
    if (!(ledger instanceof RetrievalLedger)) {
      refuseField(
        'output',
        'ledger',
        `must return the request's RetrievalLedger (kept in context.app) from ledger(context), but returned ${describeValue(ledger)}`,
        ledger,
        { prefix: `Retrieval "${this.id}" `, details: { hook: 'ledger' } },
      )
    }
    const span = operation.diagnostics.span('retrieval', { retrievalId: this.id, key })
    return { operation: { ...operation, diagnostics: span.diagnostics }, key, ledger, span }
  }

  /** Deduplication before the limit; throws the declared rejection. */
  #check(prepared: Prepared, input: unknown): void {
    const { ledger, key } = prepared
    const reason = ledger.has(this.id, key)
      ? 'duplicate'
      : ledger.queryCount >= ledger.limit
        ? 'budget'
        : undefined
    if (reason !== undefined) throw rejection(this.#definition, reason, this.#event(prepared, input))
  }

  /** Atomically re-checks and reserves the query (an async authorization may have raced another run). */
  #reserve(prepared: Prepared, input: unknown): number {
    throwIfAborted(prepared.operation.signal, `before retrieval "${this.id}" reads`)
    const outcome = ledgerAccess.reserve(prepared.ledger, this.id, prepared.key)
    if (outcome !== 'reserved') throw rejection(this.#definition, outcome, this.#event(prepared, input))
    return prepared.operation.now()
  }

  #event(prepared: Prepared, input: unknown): RetrievalRejection<unknown> {
    return {
      retrievalId: this.id,
      key: prepared.key,
      input,
      limit: prepared.ledger.limit,
      queryCount: prepared.ledger.queryCount,
    }
  }

  /** Checks the read's result and binds each material to a source id of the request. */
  #bind(prepared: Prepared, result: unknown, startedAtMs: number): RetrievalReceipt<unknown> {
    if (!Array.isArray(result)) {
      refuseField(
        'output',
        'execute',
        `must return an array of materials (best first), but returned ${describeValue(result)}`,
        result,
        { prefix: `Retrieval "${this.id}" `, details: { hook: 'execute' } },
      )
    }
    const materials = [...result]
    if (this.#definition.assertResult !== undefined) {
      returnedNothing(this.#definition.assertResult(materials), `retrieval "${this.id}" assertResult`)
    }
    const ids = ledgerAccess.allocateSourceIds(prepared.ledger, materials.length)
    const sources = Object.freeze(
      materials.map((material, index) =>
        Object.freeze({ sourceId: ids[index] as string, retrievalId: this.id, material }),
      ),
    )
    return {
      retrievalId: this.id,
      key: prepared.key,
      startedAtMs,
      queryCount: prepared.ledger.queryCount,
      sources,
      effects: [],
    }
  }

  #submission(
    receipt: RetrievalReceipt<unknown>,
    input: unknown,
    applied: readonly string[],
  ): RetrievalSubmission<unknown, unknown> {
    return Object.freeze({ ...receipt, effects: Object.freeze([...applied]), input })
  }

  runSync(input: unknown, context: OperationContextInit<unknown> | undefined): RetrievalReceipt<unknown> {
    const prepared = this.#prepare(input, context)
    const { operation, span } = prepared
    const applied: string[] = []
    try {
      this.#check(prepared, input)
      const definition = this.#definition
      if (definition.authorize !== undefined) {
        returnedNothing(definition.authorize(input, operation), `retrieval "${this.id}" authorize`)
      }
      const startedAtMs = this.#reserve(prepared, input)
      const result = assertNotThenable(definition.execute(input, operation), `retrieval "${this.id}" execute`)
      const receipt = this.#bind(prepared, result, startedAtMs)
      const submitting = `before submitting the evidence of retrieval "${this.id}"`
      if (operation.signal.aborted) stop(operation.signal, submitting, applied)
      for (const effect of definition.effects ?? []) {
        if (operation.signal.aborted)
          stop(operation.signal, `before effect "${effect.id}" of retrieval "${this.id}"`, applied)
        returnedNothing(
          effect.apply(this.#submission(receipt, input, applied), operation),
          `retrieval "${this.id}" effect "${effect.id}"`,
        )
        applied.push(effect.id)
      }
      const done = Object.freeze({ ...receipt, effects: Object.freeze(applied.slice()) })
      span.end('ok', {
        queryCount: done.queryCount,
        sources: done.sources.length,
        effectsApplied: done.effects,
      })
      return done
    } catch (error) {
      span.fail(error, { effectsApplied: applied.slice() })
      throw error
    }
  }

  async runAsync(
    input: unknown,
    context: OperationContextInit<unknown> | undefined,
  ): Promise<RetrievalReceipt<unknown>> {
    const prepared = this.#prepare(input, context)
    const { operation, span } = prepared
    const applied: string[] = []
    try {
      this.#check(prepared, input)
      const definition = this.#definition
      if (definition.authorize !== undefined) {
        const verdict = await raceSignal(
          Promise.resolve(call(() => definition.authorize?.(input, operation))),
          operation.signal,
          `authorizing retrieval "${this.id}"`,
        )
        returnedNothing(verdict, `retrieval "${this.id}" authorize`)
      }
      const startedAtMs = this.#reserve(prepared, input)
      const result = await raceSignal(
        Promise.resolve(call(() => definition.execute(input, operation))),
        operation.signal,
        `reading retrieval "${this.id}"`,
      )
      const receipt = this.#bind(prepared, result, startedAtMs)
      if (operation.signal.aborted)
        stop(operation.signal, `before submitting the evidence of retrieval "${this.id}"`, applied)
      for (const effect of definition.effects ?? []) {
        if (operation.signal.aborted)
          stop(operation.signal, `before effect "${effect.id}" of retrieval "${this.id}"`, applied)
        const returned = await raceSignal(
          Promise.resolve(call(() => effect.apply(this.#submission(receipt, input, applied), operation))),
          operation.signal,
          `effect "${effect.id}" of retrieval "${this.id}"`,
        ).catch((error: unknown) => {
          if (AbortedError.isInstance(error)) {
            throw new AbortedError(error.message, {
              cause: error.cause,
              details: { ...error.details, effectsApplied: [...applied] },
            })
          }
          throw error
        })
        returnedNothing(returned, `retrieval "${this.id}" effect "${effect.id}"`)
        applied.push(effect.id)
      }
      const done = Object.freeze({ ...receipt, effects: Object.freeze(applied.slice()) })
      span.end('ok', {
        queryCount: done.queryCount,
        sources: done.sources.length,
        effectsApplied: done.effects,
      })
      return done
    } catch (error) {
      span.fail(error, { effectsApplied: applied.slice() })
      throw error
    }
  }
}

/** Throws the cancellation seen at `point`, naming the effects already applied (they are not rolled back). */
function stop(signal: AbortSignal, point: string, applied: readonly string[]): never {
  const error = abortedError(signal, point)
  if (AbortedError.isInstance(error)) {
    throw new AbortedError(error.message, {
      cause: error.cause,
      details: { point, effectsApplied: [...applied] },
    })
  }
  throw error
}

/** Calls a hook that may return a Promise; a synchronous throw becomes a rejection. */
function call(hook: () => unknown): unknown {
  try {
    return hook()
  } catch (error) {
    return Promise.reject(error)
  }
}

/**
 * Builds a retrieval: a read with its checks in a fixed order. `run(input, context)`:
 *
 * 1. checks the signal, then `assertInput` (required), computes `key(input)` and finds the request's
 *    {@link RetrievalLedger} with `ledger(context)`;
 * 2. deduplication comes before the limit: a key the request already read is `errors.duplicate`, then a
 *    reached limit (a limit of 0 included) is `errors.budget`, and no read starts;
 * 3. `authorize` runs; a refusal reserves nothing;
 * 4. the query is reserved atomically (checked again, since an async authorization may have raced another
 *    run): the query count grows and the key is remembered, for good: a failed read keeps both;
 * 5. `execute` reads; `assertResult` checks the materials; each becomes a {@link RetrievalSource} with a
 *    request-wide source id;
 * 6. the signal is checked again, then the evidence is submitted: effects run in order, the signal checked
 *    before each; a cancellation or a failure stops the rest, and nothing applied is rolled back.
 *
 * A synchronous definition (the default) runs synchronously and refuses any hook that returns a Promise;
 * `mode: 'async'` lets `authorize`, `execute` and effects return Promises and races each wait against the
 * signal. A `retrieval` diagnostics span covers every run after its input was read.
 *
 * @throws `InvalidDefinitionError` for a malformed definition, or one that holds a ledger
 * @example
 * ```ts
 * import { defineRetrieval, RetrievalLedger } from '@agent-core/kits/retrieval'
 * const notes = ['deploy with cf push', 'preview locally', 'deploy checklist']
 * const search = defineRetrieval({
 *   id: 'notes',
 *   assertInput(input: unknown): asserts input is string {
 *     if (typeof input !== 'string' || input === '') throw new TypeError('a non-empty query')
 *   },
 *   key: (query: string) => query.trim().toLowerCase(),
 *   ledger: (context: { app: { ledger: RetrievalLedger } }) => context.app.ledger,
 *   execute: (query: string) => notes.filter((note) => note.includes(query)),
 * })
 * const app = { ledger: new RetrievalLedger({ limit: 2 }) }
 * const receipt = search.run('deploy', { app })
 * // receipt.sources: [{ sourceId: 'S1', ... }, { sourceId: 'S2', ... }], receipt.queryCount: 1
 * ```
 */
export function defineRetrieval<Input, Material, App = unknown>(
  definition: AsyncRetrievalDefinition<Input, Material, App>,
): AsyncRetrieval<Input, Material, App>
export function defineRetrieval<Input, Material, App = unknown>(
  definition: RetrievalDefinition<Input, Material, App>,
): Retrieval<Input, Material, App>
export function defineRetrieval(
  definition: unknown,
): Retrieval<unknown, unknown> | AsyncRetrieval<unknown, unknown> {
  const checked = checkDefinition(definition)
  const runner = new RetrievalRunner(checked)
  if (checked.mode === 'async') {
    return Object.freeze({
      id: checked.id,
      run: (input: unknown, context?: OperationContextInit<unknown>) => runner.runAsync(input, context),
    })
  }
  return Object.freeze({
    id: checked.id,
    run: (input: unknown, context?: OperationContextInit<unknown>) => runner.runSync(input, context),
  })
}
