import {
  assertNotThenable,
  describeValue,
  FieldReader,
  type OperationContext,
  refuseField,
} from '@agent-core/core'
import { defineModelTool, type ModelTool } from '@agent-core/core/tools'
import { checkId, MAX_FACT_LENGTH, MAX_ID_LENGTH } from './internal/checks.js'
import type { Fact, FactStore } from './session-store.js'

/**
 * Options of {@link defineFactTools}: the store, and how a run's context names its scope (the user, the
 * session): the tools are static, the scope comes from each run's `context.app`.
 * @example
 * ```ts
 * import { createMemorySessionStore, type FactToolsOptions } from '@agent-core/kits/memory'
 * const options: FactToolsOptions<{ userId: string }> = {
 *   store: createMemorySessionStore(),
 *   scope: (context) => `user:${context.app.userId}`,
 * }
 * ```
 */
export interface FactToolsOptions<App = unknown> {
  readonly store: FactStore
  /** The scope of a run, from its context (synchronous): `user:${context.app.userId}`, say. */
  readonly scope: (context: OperationContext<App>) => string
  /** Prefix of the tool ids (`remember`, `recall`, `forget`). Default none. */
  readonly prefix?: string | undefined
}

/**
 * What the `recall` tool answers.
 * @example
 * ```ts
 * import type { RecallOutput } from '@agent-core/kits/memory'
 * const empty: RecallOutput = { facts: [] }
 * ```
 */
export interface RecallOutput {
  readonly facts: readonly { readonly key: string; readonly value: string }[]
}

const KEY_SCHEMA = { type: 'string', minLength: 1, maxLength: MAX_ID_LENGTH } as const

/**
 * Three model tools over a {@link FactStore}, so an agent keeps a small memory of its own: `remember`
 * (`{ key, value }`), `recall` (`{ key? }`: one fact, or all of the scope) and `forget` (`{ key }`). The
 * App reads the same facts from the store (`store.recallAll(scope)`), or puts them in the prompt itself.
 * @example
 * ```ts
 * import { defineAgent } from '@agent-core/kits/loop'
 * import { createScriptedModel } from '@agent-core/kits/loop/testing'
 * import { createMemorySessionStore, defineFactTools } from '@agent-core/kits/memory'
 *
 * const store = createMemorySessionStore()
 * const tools = defineFactTools<{ userId: string }>({ store, scope: (context) => `user:${context.app.userId}` })
 * const model = createScriptedModel([
 *   { toolCalls: [{ name: 'remember', input: { key: 'city', value: 'Lyon' } }] },
 *   { text: 'Noted: you live in Lyon.' },
 * ])
 * await defineAgent({ model, tools }).run({ prompt: 'I live in Lyon.' }, { app: { userId: '42' } })
 * await store.recall('user:42', 'city') // { key: 'city', value: 'Lyon', ... }
 * ```
 */
export function defineFactTools<App = unknown>(
  options: FactToolsOptions<App>,
): readonly ModelTool<Record<string, string>, unknown, App>[] {
  const fields: FieldReader = new FieldReader(
    options,
    'options',
    'fact tools options { store, scope, prefix? }',
    'definition',
  )
  const store = fields.get('store') as FactStore
  for (const method of ['remember', 'recall', 'recallAll', 'forget'] as const)
    if (typeof (store as unknown as Record<string, unknown> | undefined)?.[method] !== 'function')
      fields.fail(
        'store',
        `must be a fact store with remember, recall, recallAll and forget, but got ${describeValue(store)}`,
        store,
      )
  const scopeOf = fields.func<FactToolsOptions<App>['scope']>('scope')
  if (!scopeOf)
    fields.fail('scope', 'is required: a function of the run context that names the scope', undefined)
  const prefix = fields.string('prefix', { empty: true }) ?? ''
  fields.done()
  const scope = (context: OperationContext<App>): string => {
    const value = assertNotThenable(scopeOf(context), 'options.scope')
    if (typeof value !== 'string' || value === '' || value.length > MAX_ID_LENGTH) {
      refuseField(
        'output',
        'options.scope',
        `must return a non-empty string of at most ${MAX_ID_LENGTH} characters, but returned ${describeValue(value)}`,
        value,
        { details: { hook: 'options.scope' } },
      )
    }
    return value
  }
  const plain = (fact: Fact) => ({ key: fact.key, value: fact.value })
  return [
    defineModelTool<Record<string, string>, { remembered: string }, App>({
      id: `${prefix}remember`,
      description:
        'Remember a fact for later conversations (a preference, a name, a decision). Replaces the value of an existing key.',
      inputSchema: {
        type: 'object',
        required: ['key', 'value'],
        additionalProperties: false,
        properties: { key: KEY_SCHEMA, value: { type: 'string', maxLength: MAX_FACT_LENGTH } },
      },
      execute: async (input, context) => {
        const fact = await store.remember(scope(context), checkId(input.key, 'key', 'remember'), input.value!)
        return { remembered: fact.key }
      },
    }),
    defineModelTool<Record<string, string>, RecallOutput, App>({
      id: `${prefix}recall`,
      description: 'Recall remembered facts: the one under `key`, or all of them when no key is given.',
      inputSchema: { type: 'object', additionalProperties: false, properties: { key: KEY_SCHEMA } },
      execute: async (input, context) => {
        const where = scope(context)
        if (input.key === undefined) return { facts: (await store.recallAll(where)).map(plain) }
        const fact = await store.recall(where, input.key)
        return { facts: fact ? [plain(fact)] : [] }
      },
    }),
    defineModelTool<Record<string, string>, { forgotten: boolean }, App>({
      id: `${prefix}forget`,
      description: 'Forget the fact remembered under `key`.',
      inputSchema: {
        type: 'object',
        required: ['key'],
        additionalProperties: false,
        properties: { key: KEY_SCHEMA },
      },
      execute: async (input, context) => ({ forgotten: await store.forget(scope(context), input.key!) }),
    }),
  ]
}
