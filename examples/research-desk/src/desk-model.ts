/**
 * Which model answers: any OpenAI-compatible endpoint when `OPENAI_API_KEY` and `OPENAI_MODEL` are set
 * (with `OPENAI_BASE_URL` for one that is not OpenAI's), Anthropic's Messages API when `ANTHROPIC_API_KEY`
 * is set (`ANTHROPIC_BASE_URL` for another server, `ANTHROPIC_MODEL` for another model), otherwise the
 * embedded offline model. OpenAI and the offline model go through `@agent-core/kits/openai`, Anthropic
 * through `@agent-core/kits/anthropic` (prompt caching on: each turn reads the previous one's prefix).
 */
import type { ChatModel } from '@agent-core/core'
import { createAnthropicChatModel } from '@agent-core/kits/anthropic'
import { ModelProviderError } from '@agent-core/kits/models'
import { createOpenAIChatModel } from '@agent-core/kits/openai'
import { DeskError } from './desk-error.js'
import { startOfflineModel } from './offline-model.js'

/** The model of a desk run. */
export interface DeskModel {
  readonly model: ChatModel
  /** `offline` (the embedded MockGPT), `openai-compatible` or `anthropic`. */
  readonly kind: 'offline' | 'openai-compatible' | 'anthropic'
  /** Names the model and endpoint (part of the question's run id). */
  readonly identity: string
  /** One line for the user. */
  readonly description: string
  close(): Promise<void>
}

/** Picks the model from the environment. */
export async function openDeskModel(
  env: NodeJS.ProcessEnv,
  options: { streamDelayMs: number },
): Promise<DeskModel> {
  const baseURL = env.OPENAI_BASE_URL?.trim() || undefined
  const apiKey = env.OPENAI_API_KEY?.trim() || undefined
  const modelName = env.OPENAI_MODEL?.trim() || undefined
  const anthropic = openAnthropic(
    env,
    baseURL !== undefined || apiKey !== undefined || modelName !== undefined,
  )
  if (anthropic !== undefined) return anthropic
  if (baseURL !== undefined || apiKey !== undefined || modelName !== undefined) {
    const missing = [
      ...(apiKey === undefined ? ['OPENAI_API_KEY'] : []),
      ...(modelName === undefined ? ['OPENAI_MODEL'] : []),
    ]
    if (missing.length > 0) {
      throw new DeskError(
        'usage',
        `To use an OpenAI-compatible endpoint, set ${missing.join(' and ')} too (and OPENAI_BASE_URL for an endpoint other than OpenAI's); unset the OPENAI_* variables to use the offline model.`,
        { field: missing[0]! },
      )
    }
    if (baseURL !== undefined && !URL.canParse(baseURL)) {
      throw new DeskError(
        'usage',
        `OPENAI_BASE_URL is not a URL (${JSON.stringify(baseURL)}). Set it to the API root, e.g. http://127.0.0.1:8787/v1.`,
        { field: 'OPENAI_BASE_URL', received: 'a string that is not a URL' },
      )
    }
    const model = createOpenAIChatModel({
      model: modelName!,
      apiKey: apiKey!,
      ...(baseURL ? { baseURL } : {}),
    })
    const where = baseURL ?? "OpenAI's API"
    return {
      model,
      kind: 'openai-compatible',
      identity: `openai-compatible:${modelName}@${baseURL ?? 'default'}`,
      description: `model: ${modelName} at ${where} (from OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL)`,
      close: async () => {},
    }
  }
  const server = await startOfflineModel(options)
  return {
    model: createOpenAIChatModel({ model: server.model, apiKey: server.apiKey, baseURL: server.baseURL }),
    kind: 'offline',
    identity: 'offline:research-desk-extractive-1',
    description: `model: the offline model (MockGPT on ${new URL(server.baseURL).host}, extractive answers from the passages it reads); set OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL for a real one`,
    close: () => server.close(),
  }
}

/** The Anthropic model when `ANTHROPIC_API_KEY` or `ANTHROPIC_BASE_URL` is set; refuses both providers at once. */
function openAnthropic(env: NodeJS.ProcessEnv, openAISet: boolean): DeskModel | undefined {
  const baseURL = env.ANTHROPIC_BASE_URL?.trim() || undefined
  const apiKey = env.ANTHROPIC_API_KEY?.trim() || undefined
  if (baseURL === undefined && apiKey === undefined) return undefined
  if (openAISet) {
    throw new DeskError(
      'usage',
      'Both OPENAI_* and ANTHROPIC_* variables are set, so the model to use is ambiguous. Unset one of the two groups.',
      { field: 'ANTHROPIC_API_KEY' },
    )
  }
  if (apiKey === undefined) {
    throw new DeskError(
      'usage',
      'To use Anthropic, set ANTHROPIC_API_KEY too (ANTHROPIC_BASE_URL alone names no key); unset ANTHROPIC_BASE_URL to use the offline model.',
      { field: 'ANTHROPIC_API_KEY' },
    )
  }
  if (baseURL !== undefined && !URL.canParse(baseURL)) {
    throw new DeskError(
      'usage',
      `ANTHROPIC_BASE_URL is not a URL (${JSON.stringify(baseURL)}). Set it to the server root, without /v1, e.g. http://127.0.0.1:8787.`,
      { field: 'ANTHROPIC_BASE_URL', received: 'a string that is not a URL' },
    )
  }
  const chosen = env.ANTHROPIC_MODEL?.trim() || undefined
  const modelName = chosen ?? 'claude-sonnet-4-6'
  const from = [
    'ANTHROPIC_API_KEY',
    ...(baseURL ? ['ANTHROPIC_BASE_URL'] : []),
    ...(chosen ? ['ANTHROPIC_MODEL'] : []),
  ]
  return {
    model: createAnthropicChatModel({ model: modelName, apiKey, ...(baseURL ? { baseURL } : {}) }),
    kind: 'anthropic',
    identity: `anthropic:${modelName}@${baseURL ?? 'default'}`,
    description: `model: ${modelName} at ${baseURL ?? "Anthropic's API"} (from ${from.join(', ')})`,
    close: async () => {},
  }
}

/** Turns a model failure into what the user should do about it. */
export function explainModelFailure(error: unknown, model: DeskModel): DeskError | undefined {
  if (!ModelProviderError.isInstance(error)) return undefined
  const vars = model.kind === 'anthropic' ? 'ANTHROPIC' : 'OPENAI'
  const where =
    model.kind === 'offline'
      ? 'the offline model'
      : model.kind === 'anthropic'
        ? 'the Anthropic API'
        : 'the endpoint in OPENAI_BASE_URL'
  if (error.kind === 'authentication' || error.kind === 'permission') {
    return new DeskError(
      'authentication',
      `${where} refused the API key (${error.message}). Check ${vars}_API_KEY. The run's progress is saved: the same command continues it.`,
      { cause: error },
    )
  }
  if (error.kind === 'network' || error.kind === 'not-found' || error.kind === 'timeout') {
    return new DeskError(
      'endpoint',
      `Could not reach ${where} (${error.message}). Check ${vars}_BASE_URL (${vars === 'OPENAI' ? 'the API root, usually ending in /v1' : 'the server root, without /v1'}) and ${vars}_MODEL, and that the server is up. The run's progress is saved: the same command continues it.`,
      { cause: error },
    )
  }
  return new DeskError(
    'model',
    `${where} failed (${error.kind}: ${error.message}). The run's progress is saved: run the same command again to continue.`,
    { cause: error },
  )
}
