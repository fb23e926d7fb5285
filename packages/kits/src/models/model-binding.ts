import { describeValue, type MaybePromise, type OperationContext, refuseField } from '@agent-core/core'

/**
 * One model a {@link ModelCalls} catalog can call. `id` is the registration key callers use; `identity`
 * is the real model behind it (`gpt-4o-mini`, `text-embedding-3-small`). `invoke` returns the business
 * value; ModelCalls wraps it as `{ value, invocation }`.
 *
 * `assertInput` and `assertOutput` are synchronous assertions: they return nothing and throw to refuse.
 * Both are optional; without them input and output pass unchecked.
 *
 * @example
 * ```ts
 * import type { ModelBinding } from '@agent-core/kits/models'
 * const echo: ModelBinding<string, string> = {
 *   id: 'echo',
 *   identity: 'echo-1',
 *   assertInput(input) {
 *     if (typeof input !== 'string') throw new TypeError('echo takes a string')
 *   },
 *   invoke: (text) => text,
 * }
 * ```
 */
export interface ModelBinding<Input = unknown, Output = unknown, App = unknown, Id extends string = string> {
  /** The registration key, unique within its catalog. */
  readonly id: Id
  /** The real model identity. */
  readonly identity: string
  /**
   * Calls the model. Receives the call's context: its `signal` aborts on cancellation and on the call's
   * timeout (hand it to `fetch`), its `diagnostics` belong to the call's span.
   */
  invoke(input: Input, context: OperationContext<App>): MaybePromise<Output>
  /** Throws when `input` is not acceptable. Called before any attempt is taken. */
  assertInput?(input: unknown): asserts input is Input
  /** Throws when the model's `output` is not acceptable. */
  assertOutput?(output: unknown): asserts output is Output
}

/**
 * Any binding, whatever its input and output (optionally narrowed to the App its context carries): the
 * bound of a {@link ModelCalls} catalog's bindings, and the type to collect bindings of several kinds in
 * before the catalog is built (calls then take and return `unknown`, since the ids are no longer literals).
 * @example
 * ```ts
 * import { type AnyModelBinding, defineModelBinding, ModelCalls } from '@agent-core/kits/models'
 *
 * const bindings: AnyModelBinding[] = [
 *   defineModelBinding({ id: 'shout', identity: 'toy-shouter', invoke: (text: string) => text.toUpperCase() }),
 *   defineModelBinding({ id: 'count', identity: 'toy-counter', invoke: (text: string) => text.length }),
 * ]
 * const models = new ModelCalls(bindings)
 * const { value } = await models.invoke({ modelId: 'count', input: 'four', timeoutMs: 1000 }) // value: unknown
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: the widest binding type, so that every binding is assignable
export type AnyModelBinding<App = any> = ModelBinding<any, any, App>

/**
 * The input type of a binding, for code that prepares inputs for a binding it is handed.
 * @example
 * ```ts
 * import { defineModelBinding, type ModelInputOf } from '@agent-core/kits/models'
 *
 * const embed = defineModelBinding({
 *   id: 'embed',
 *   identity: 'toy-embedder',
 *   invoke: (texts: readonly string[]) => texts.map((text) => [text.length]),
 * })
 * const batch: ModelInputOf<typeof embed> = ['first passage', 'second passage'] // readonly string[]
 * ```
 */
export type ModelInputOf<Binding> =
  Binding extends ModelBinding<infer Input, infer _Output, infer _App> ? Input : never
/**
 * The output type of a binding: what its `invoke` resolves to (promises unwrapped by the caller's `await`).
 * @example
 * ```ts
 * import { defineModelBinding, type ModelOutputOf } from '@agent-core/kits/models'
 *
 * const embed = defineModelBinding({
 *   id: 'embed',
 *   identity: 'toy-embedder',
 *   invoke: (texts: readonly string[]) => texts.map((text) => [text.length]),
 * })
 * const vectors: ModelOutputOf<typeof embed> = [[13], [14]] // number[][]
 * ```
 */
export type ModelOutputOf<Binding> =
  Binding extends ModelBinding<infer _Input, infer Output, infer _App> ? Output : never

/**
 * Checks a binding's shape (id, identity, invoke, the optional assertions) and returns it unchanged,
 * with its id kept as a literal type so that {@link ModelCalls} can infer input and output from it.
 * @throws `InvalidDefinitionError` for a malformed binding
 * @example
 * ```ts
 * import { defineModelBinding } from '@agent-core/kits/models'
 * const embed = defineModelBinding({
 *   id: 'embed',
 *   identity: 'toy-embedder',
 *   invoke: (texts: readonly string[]) => texts.map((text) => [text.length, 1]),
 * })
 * ```
 */
export function defineModelBinding<const Id extends string, Input, Output, App = unknown>(
  binding: ModelBinding<Input, Output, App, Id>,
): ModelBinding<Input, Output, App, Id> {
  assertModelBinding(binding)
  return binding
}

/** The shape check behind {@link defineModelBinding} and {@link ModelCalls}. */
export function assertModelBinding(binding: unknown): asserts binding is AnyModelBinding {
  if (typeof binding !== 'object' || binding === null) {
    refuseField(
      'definition',
      'binding',
      `must be an object { id, identity, invoke }, but got ${describeValue(binding)}`,
      binding,
      { prefix: 'A model binding: ' },
    )
  }
  const { id, identity, invoke, assertInput, assertOutput } = binding as Record<string, unknown>
  if (typeof id !== 'string' || id.length === 0) {
    refuseField(
      'definition',
      'id',
      `must be a non-empty string (the key callers use), but got ${describeValue(id)}`,
      id,
      { prefix: 'A model binding: ' },
    )
  }
  if (typeof identity !== 'string' || identity.length === 0) {
    refuseField(
      'definition',
      'identity',
      `must be a non-empty string (the real model, e.g. "gpt-4o-mini"), but got ${describeValue(identity)}`,
      identity,
      { prefix: `Model binding "${id}": `, details: { id } },
    )
  }
  if (typeof invoke !== 'function') {
    refuseField(
      'definition',
      'invoke',
      `must be an invoke(input, context) function, but got ${describeValue(invoke)}`,
      invoke,
      { prefix: `Model binding "${id}": `, details: { id } },
    )
  }
  for (const [field, value] of [
    ['assertInput', assertInput],
    ['assertOutput', assertOutput],
  ] as const) {
    if (value !== undefined && typeof value !== 'function') {
      refuseField(
        'definition',
        field,
        `must be a function that throws to refuse, or left out, but got ${describeValue(value)}`,
        value,
        { prefix: `Model binding "${id}": `, details: { id } },
      )
    }
  }
}
