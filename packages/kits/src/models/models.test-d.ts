import {
  type ChatModel,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  type OperationContext,
  Registry,
  ZERO_USAGE,
} from '@agent-core/core'
import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import {
  chooseRoute,
  defineModelBinding,
  generateStructured,
  type ModelBinding,
  ModelCalls,
  type ModelResult,
  withRetry,
} from './index.js'

const draft = defineModelBinding({
  id: 'draft',
  identity: 'gpt-4o-mini',
  invoke: (request: ModelRequest): Promise<ModelResponse> => Promise.reject(request),
})
const embed = defineModelBinding({
  id: 'embed',
  identity: 'text-embedding-3-small',
  invoke: (texts: readonly string[]) => texts.map(() => [0]),
})
const models = new ModelCalls([draft, embed])

describe('ModelCalls types', () => {
  it('infers input and output from the registration id', () => {
    expectTypeOf(models.invoke({ modelId: 'embed', input: ['a'], timeoutMs: 1 })).toEqualTypeOf<
      Promise<ModelResult<number[][]>>
    >()
    expectTypeOf(models.invoke({ modelId: 'draft', input: { messages: [] }, timeoutMs: 1 })).toEqualTypeOf<
      Promise<ModelResult<ModelResponse>>
    >()
    // @ts-expect-error: embed takes strings
    models.invoke({ modelId: 'embed', input: [1], timeoutMs: 1 })
    // @ts-expect-error: no binding has this id
    models.invoke({ modelId: 'summarize', input: 'x', timeoutMs: 1 })
    // @ts-expect-error: timeoutMs is required
    models.invoke({ modelId: 'embed', input: ['a'] })
  })

  it('keeps a dynamic id unknown', () => {
    const id: string = 'embed'
    expectTypeOf(models.invoke({ modelId: id, input: 123, timeoutMs: 1 })).toEqualTypeOf<
      Promise<ModelResult<unknown>>
    >()
  })

  it('a registry of one binding type keeps that type', () => {
    const registry = Registry.create<ModelBinding<string, number>>([], { kind: 'model' })
    const fromRegistry = new ModelCalls(registry)
    expectTypeOf(fromRegistry.invoke({ modelId: 'any', input: 'x', timeoutMs: 1 })).toEqualTypeOf<
      Promise<ModelResult<unknown>>
    >()
  })

  it('types the binding context app', () => {
    const scoped = defineModelBinding({
      id: 'scoped',
      identity: 'x',
      invoke: (_input: string, context: { app: { userId: string } } & Parameters<ChatModel['generate']>[1]) =>
        context.app.userId,
    })
    const calls = new ModelCalls([scoped])
    calls.invoke({ modelId: 'scoped', input: 'x', timeoutMs: 1 }, { app: { userId: 'u' } })
  })
})

describe('withRetry types', () => {
  it('returns the same kind of thing it wraps', () => {
    expectTypeOf(withRetry(embed)).toEqualTypeOf<
      ModelBinding<readonly string[], number[][], unknown, 'embed'>
    >()
    const chat = {} as ChatModel<{ tenant: string }>
    expectTypeOf(withRetry(chat)).toEqualTypeOf<ChatModel<{ tenant: string }>>()
  })

  it('keeps stream required when the wrapped chat model has one, and optional when it may not', () => {
    const streaming = {
      identity: 'streamer',
      generate: async (): Promise<ModelResponse> => ({
        message: { role: 'assistant', content: '' },
        finishReason: 'stop',
        usage: ZERO_USAGE,
      }),
      async *stream(_request: ModelRequest, context: OperationContext<{ tenant: string }>) {
        yield { type: 'text-delta', text: context.app.tenant } satisfies ModelStreamEvent
      },
    } satisfies ChatModel<{ tenant: string }>
    const retrying = withRetry(streaming)
    expectTypeOf(retrying.stream).toBeFunction()
    expectTypeOf(retrying.stream).parameter(1).toEqualTypeOf<OperationContext<{ tenant: string }>>()
    expectTypeOf(retrying.stream).returns.toEqualTypeOf<AsyncIterable<ModelStreamEvent>>()
    expectTypeOf(retrying).toExtend<ChatModel<{ tenant: string }>>()
    // callers read it without `?.`
    const events: AsyncIterable<ModelStreamEvent> = retrying.stream(
      { messages: [] },
      {} as OperationContext<{ tenant: string }>,
    )
    expectTypeOf(events).toEqualTypeOf<AsyncIterable<ModelStreamEvent>>()

    const maybe = {} as ChatModel
    expectTypeOf(withRetry(maybe).stream).toEqualTypeOf<ChatModel['stream']>()
    // @ts-expect-error: a chat model typed without a guaranteed stream stays optional
    withRetry(maybe).stream({ messages: [] }, {} as OperationContext)
  })
})

describe('structured output types', () => {
  it('infers the value from a Standard Schema, and takes it from the type argument for JSON Schema', async () => {
    const fromZod = await generateStructured({
      model: async () => '{}',
      schema: z.object({ n: z.number().transform(String) }),
      prompt: 'x',
    })
    expectTypeOf(fromZod.value).toEqualTypeOf<{ n: string }>()
    const fromJson = await generateStructured<{ n: number }>({
      model: async () => '{}',
      schema: { type: 'object' },
      prompt: 'x',
    })
    expectTypeOf(fromJson.value).toEqualTypeOf<{ n: number }>()
  })

  it('types the route as the union of the route names', async () => {
    const choice = await chooseRoute({
      model: async () => 'a',
      routes: [
        { name: 'billing', description: '' },
        { name: 'tech', description: '' },
      ],
      prompt: 'x',
    })
    expectTypeOf(choice.route).toEqualTypeOf<'billing' | 'tech'>()
  })
})
