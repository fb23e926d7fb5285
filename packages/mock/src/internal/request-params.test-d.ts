import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages/messages'
import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions/completions'
import type { EmbeddingCreateParams } from 'openai/resources/embeddings'
import type { ResponseCreateParamsBase } from 'openai/resources/responses/responses'
import { describe, expectTypeOf, it } from 'vitest'
import type { CHAT_PARAMS, EMBEDDINGS_PARAMS, MESSAGES_PARAMS, RESPONSES_PARAMS } from './request-params.js'

// The parameter tables are taken from the installed official SDKs: a key the SDK adds or removes breaks
// this test until the table follows.
describe('request parameter tables match the installed SDKs', () => {
  it('chat completions: ChatCompletionCreateParamsBase', () => {
    expectTypeOf<keyof typeof CHAT_PARAMS>().toEqualTypeOf<keyof ChatCompletionCreateParamsBase>()
  })
  it('responses: ResponseCreateParamsBase', () => {
    expectTypeOf<keyof typeof RESPONSES_PARAMS>().toEqualTypeOf<keyof ResponseCreateParamsBase>()
  })
  it('embeddings: EmbeddingCreateParams', () => {
    expectTypeOf<keyof typeof EMBEDDINGS_PARAMS>().toEqualTypeOf<keyof EmbeddingCreateParams>()
  })
  it('messages: MessageCreateParamsBase', () => {
    expectTypeOf<keyof typeof MESSAGES_PARAMS>().toEqualTypeOf<keyof MessageCreateParamsBase>()
  })
})
