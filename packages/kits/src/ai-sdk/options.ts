import { describeValue, FieldReader, refuseField } from '@agent-core/core'
import type { LanguageModelV4, SharedV4ProviderOptions } from '@ai-sdk/provider'

/**
 * Options of {@link createAiSdkChatModel}: the AI SDK language model to wrap, and what to add to every
 * call. Unknown fields are refused.
 * @example
 * ```ts
 * import { MockLanguageModelV4 } from 'ai/test'
 * import type { AiSdkChatModelOptions } from '@agent-core/kits/ai-sdk'
 *
 * const options: AiSdkChatModelOptions = {
 *   model: new MockLanguageModelV4({ modelId: 'mock-model' }),
 *   providerOptions: { openai: { parallelToolCalls: false } },
 * }
 * ```
 */
export interface AiSdkChatModelOptions {
  /**
   * Any AI SDK language model of the specification the current `ai` major uses (`LanguageModelV4`,
   * `specificationVersion: 'v4'`): `openai('gpt-4o-mini')`, `anthropic('claude-sonnet-4-5')`,
   * `createOpenAICompatible({ ... })('llama3')`, Google, Bedrock, Azure, Mistral, xAI, ...
   */
  readonly model: LanguageModelV4
  /** The model's `identity`. Default: the AI SDK model's `modelId`. */
  readonly identity?: string | undefined
  /** Who serves it, for errors and diagnostics. Default: the AI SDK model's `provider` (`openai.chat`, ...). */
  readonly provider?: string | undefined
  /**
   * Provider-specific options sent with every call (the AI SDK's `providerOptions`, keyed by provider:
   * `{ anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } }`).
   */
  readonly providerOptions?: SharedV4ProviderOptions | undefined
  /** Extra HTTP headers sent with every call (for providers that send HTTP). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** The options after checking. */
export interface ResolvedOptions {
  readonly model: LanguageModelV4
  readonly identity: string
  readonly provider: string
  readonly providerOptions: SharedV4ProviderOptions | undefined
  readonly headers: Readonly<Record<string, string>> | undefined
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

function checkModel(model: unknown): LanguageModelV4 {
  const candidate = model as Partial<Record<string, unknown>> | null | undefined
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.doGenerate !== 'function' ||
    typeof candidate.doStream !== 'function'
  ) {
    refuseField(
      'input',
      'options.model',
      `must be an AI SDK language model (doGenerate, doStream), e.g. openai('gpt-4o-mini'), but got ${describeValue(model)}`,
      model,
    )
  }
  if (candidate.specificationVersion !== 'v4') {
    refuseField(
      'input',
      'options.model.specificationVersion',
      `is ${describeValue(candidate.specificationVersion)} (the AI SDK language model specification the model implements), but this adapter speaks 'v4' (ai 7.x, @ai-sdk/provider 4.x). Upgrade the provider package to the release that goes with ai 7`,
      candidate.specificationVersion,
    )
  }
  if (typeof candidate.modelId !== 'string' || typeof candidate.provider !== 'string') {
    refuseField(
      'input',
      'options.model.modelId',
      `and options.model.provider must be strings, but got ${describeValue(candidate.modelId)} and ${describeValue(candidate.provider)}`,
      candidate.modelId,
    )
  }
  return model as LanguageModelV4
}

/** Checks the options (unknown fields refused). */
export function resolveOptions(options: unknown): ResolvedOptions {
  const fields = new FieldReader(
    options,
    'options',
    'AI SDK chat model options { model, identity?, provider?, providerOptions?, headers? }',
    'input',
  )
  const model = checkModel(fields.get('model'))
  const identity = fields.string('identity') ?? model.modelId
  const provider = fields.string('provider') ?? model.provider
  const providerOptions = fields.get('providerOptions')
  if (providerOptions !== undefined && !isPlainObject(providerOptions)) {
    fields.fail('providerOptions', 'must be a plain object keyed by provider, or left out', providerOptions)
  }
  const headers = fields.get('headers')
  if (headers !== undefined) {
    if (!isPlainObject(headers) || !Object.values(headers).every((value) => typeof value === 'string'))
      fields.fail('headers', 'must be a plain object of header names to string values, or left out', headers)
  }
  fields.done()
  return {
    model,
    identity: identity === '' ? 'ai-sdk' : identity,
    provider: provider === '' ? 'ai-sdk' : provider,
    providerOptions: providerOptions as SharedV4ProviderOptions | undefined,
    headers: headers as Readonly<Record<string, string>> | undefined,
  }
}
