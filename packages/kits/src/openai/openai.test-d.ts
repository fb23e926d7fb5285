import type {
  ChatModel,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  OperationContext,
} from '@agent-core/core'
import { type ModelBinding, ModelCalls, type ModelResult, withRetry } from '@agent-core/kits/models'
import { describe, expectTypeOf, it } from 'vitest'
import { createOpenAIChatModel, type OpenAIChatModel, openAIChatBinding } from './index.js'

declare const model: OpenAIChatModel

describe('OpenAI adapter types', () => {
  it('the chat model is a core ChatModel for any App, and stays one under withRetry', () => {
    expectTypeOf(model).toExtend<ChatModel<{ readonly userId: string }>>()
    expectTypeOf(withRetry(model)).toExtend<ChatModel<unknown>>()
    // the adapter always streams, and so does its retrying wrapper: no `stream?.` for callers
    expectTypeOf(withRetry(model).stream).toBeFunction()
    expectTypeOf(withRetry(model).stream({ messages: [] }, {} as OperationContext)).toEqualTypeOf<
      AsyncIterable<ModelStreamEvent>
    >()
    expectTypeOf(model.stream({ messages: [] })).toEqualTypeOf<AsyncIterable<ModelStreamEvent>>()
    expectTypeOf(model.generate({ messages: [] })).toEqualTypeOf<Promise<ModelResponse>>()
    expectTypeOf(createOpenAIChatModel({ model: 'm' })).toEqualTypeOf<OpenAIChatModel>()
  })

  it('the binding keeps its literal id, so ModelCalls infers ModelRequest in, ModelResponse out', () => {
    const chat = openAIChatBinding({ id: 'chat', chatModel: model })
    expectTypeOf(chat).toEqualTypeOf<ModelBinding<ModelRequest, ModelResponse, unknown, 'chat'>>()
    const models = new ModelCalls([withRetry(chat), openAIChatBinding({ id: 'fast', model: 'gpt-4o-mini' })])
    expectTypeOf(models.invoke({ modelId: 'chat', input: { messages: [] }, timeoutMs: 1 })).toEqualTypeOf<
      Promise<ModelResult<ModelResponse>>
    >()
    // @ts-expect-error: the input is a ModelRequest
    models.invoke({ modelId: 'fast', input: 'hello', timeoutMs: 1 })
  })

  it('options refuse what cannot be meant', () => {
    // @ts-expect-error: retries belong to withRetry
    createOpenAIChatModel({ model: 'm', clientOptions: { maxRetries: 2 } })
    // @ts-expect-error: a chat model already has its options
    openAIChatBinding({ id: 'x', chatModel: model, model: 'other' })
    // @ts-expect-error: the model name is required
    createOpenAIChatModel({ apiKey: 'k' })
  })
})
