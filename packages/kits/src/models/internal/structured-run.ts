/**
 * The code of {@link generateStructured}: the request checks, the model call and the correction loop
 * (`runStructured`, which chooseRoute shares). Loaded by the first call of either (structured-calls.ts),
 * not at import; it reaches the rest of the kit through structured-host.ts only.
 */
import {
  addUsage,
  type ChatMessage,
  type ChatModel,
  createOperationContext,
  deadlineSignal,
  describeValue,
  type ModelRequest,
  type ModelUsage,
  type OperationContext,
  type OperationContextInit,
  raceSignal,
  refuseField,
  throwIfAborted,
} from '@agent-core/core'
import type {
  ChatCall,
  GenerateStructuredRequest,
  ModelCallsTarget,
  StructuredModel,
  StructuredResult,
} from '../generate-structured.js'
import type { StructuredAttempt, StructuredOutput } from '../structured-output.js'
import { defineStructuredOutput, isStructuredOutput, MAX_TIMEOUT_MS, ModelCalls } from './structured-host.js'

interface Reply {
  readonly text: string
  readonly usage: ModelUsage | undefined
}

function isModelCallsTarget(value: object): value is ModelCallsTarget {
  return (value as { models?: unknown }).models instanceof ModelCalls
}

function readReply(value: unknown, source: string): Reply {
  if (typeof value === 'string') return { text: value, usage: undefined }
  const message = (value as { message?: { content?: unknown } } | null | undefined)?.message
  if (typeof message === 'object' && message !== null && typeof message.content === 'string') {
    const usage = (value as { usage?: unknown }).usage
    return { text: message.content, usage: isUsage(usage) ? usage : undefined }
  }
  refuseField(
    'output',
    source,
    `must answer the reply text or a ModelResponse ({ message: { content } }), but answered ${describeValue(value)}`,
    value,
    { details: { hook: source } },
  )
}

function isUsage(value: unknown): value is ModelUsage {
  const usage = value as Partial<ModelUsage> | null | undefined
  return (
    typeof usage === 'object' &&
    usage !== null &&
    Number.isFinite(usage.inputTokens) &&
    Number.isFinite(usage.outputTokens) &&
    Number.isFinite(usage.totalTokens)
  )
}

function checkModel(model: unknown): StructuredModel<unknown> {
  if (typeof model === 'function') return model as ChatCall<unknown>
  if (typeof model === 'object' && model !== null) {
    if (typeof (model as { generate?: unknown }).generate === 'function') return model as ChatModel<unknown>
    if (isModelCallsTarget(model)) {
      const { modelId, timeoutMs } = model
      if (typeof modelId !== 'string' || !model.models.bindings.has(modelId)) {
        refuseField(
          'input',
          'model.modelId',
          `must name a binding of model.models (${model.models.ids().join(', ') || 'none registered'}), but got ${describeValue(modelId)}`,
          modelId,
        )
      }
      checkTimeout(timeoutMs, 'model.timeoutMs', true)
      return model
    }
  }
  refuseField(
    'input',
    'model',
    `must be a chat model { identity, generate }, a { models, modelId, timeoutMs } ModelCalls target or a function (request, context) => reply, but got ${describeValue(model)}`,
    model,
  )
}

function checkTimeout(value: unknown, field: string, required: boolean): void {
  if (value === undefined && !required) return
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_TIMEOUT_MS) {
    refuseField(
      'input',
      field,
      `must be a safe integer from 1 to ${MAX_TIMEOUT_MS}, but got ${describeValue(value)}`,
      value,
      { details: { min: 1, max: MAX_TIMEOUT_MS } },
    )
  }
}

function checkMessages(messages: unknown, prompt: unknown): readonly ChatMessage[] {
  if (messages !== undefined && !Array.isArray(messages)) {
    refuseField(
      'input',
      'messages',
      `must be an array of chat messages or left out, but got ${describeValue(messages)}`,
      messages,
    )
  }
  const list: ChatMessage[] = []
  for (const [index, message] of (messages ?? []).entries()) {
    const role = (message as { role?: unknown } | null)?.role
    if (
      typeof message !== 'object' ||
      message === null ||
      !['system', 'user', 'assistant', 'tool'].includes(role as string)
    ) {
      refuseField(
        'input',
        `messages[${index}]`,
        `must be a chat message with role system, user, assistant or tool, but got ${describeValue(message)}`,
        message,
      )
    }
    list.push(message as ChatMessage)
  }
  if (prompt !== undefined) {
    if (typeof prompt !== 'string') {
      refuseField('input', 'prompt', `must be a string or left out, but got ${describeValue(prompt)}`, prompt)
    }
    list.push({ role: 'user', content: prompt })
  }
  if (list.length === 0) {
    refuseField(
      'input',
      'prompt',
      'is missing: give the model something to answer (a prompt, or messages)',
      prompt,
    )
  }
  return list
}

async function ask(
  model: StructuredModel<unknown>,
  request: ModelRequest,
  context: OperationContext<unknown>,
  timeoutMs: number | undefined,
): Promise<Reply> {
  if (typeof model === 'object' && isModelCallsTarget(model)) {
    const { value } = await model.models.invoke(
      { modelId: model.modelId, input: request, timeoutMs: model.timeoutMs },
      context,
    )
    return readReply(value, `model binding "${model.modelId}"`)
  }
  const identity = typeof model === 'function' ? model.name || 'chat call' : String(model.identity)
  throwIfAborted(context.signal, `before model call "${identity}"`)
  const attempt = context.attemptBudget?.take({ signal: context.signal, label: `model "${identity}"` })
  const span = context.diagnostics.span('model-call', {
    identity,
    ...(attempt ? { attempt: attempt.attempt } : {}),
  })
  const deadline =
    timeoutMs === undefined
      ? undefined
      : deadlineSignal(context.signal, timeoutMs, `model call "${identity}"`)
  const signal = deadline?.signal ?? context.signal
  try {
    const bound: OperationContext<unknown> = { ...context, signal, diagnostics: span.diagnostics }
    let pending: unknown
    try {
      pending = typeof model === 'function' ? model(request, bound) : model.generate(request, bound)
    } catch (error) {
      pending = Promise.reject(error)
    }
    const value = await raceSignal(Promise.resolve(pending), signal, `waiting for model call "${identity}"`)
    const reply = readReply(value, typeof model === 'function' ? 'the chat call' : `chat model "${identity}"`)
    span.end('ok')
    return reply
  } catch (error) {
    span.fail(error)
    throw error
  } finally {
    deadline?.dispose()
  }
}

/** {@link generateStructured}'s work, once its code is loaded. */
export async function generateStructured<Value = unknown, App = unknown>(
  request: GenerateStructuredRequest<Value, App>,
  context: OperationContextInit<App> = {},
): Promise<StructuredResult<Value>> {
  if (typeof request !== 'object' || request === null) {
    refuseField(
      'input',
      'request',
      `must be a request { model, schema, prompt | messages, ... }, but got ${describeValue(request)}`,
      request,
      { prefix: 'generateStructured: ' },
    )
  }
  const output = structuredOutputOf(request)
  return runStructured(
    output,
    request as GenerateStructuredRequest<Value, unknown>,
    context as OperationContextInit<unknown>,
  )
}

function structuredOutputOf<Value>(
  request: GenerateStructuredRequest<Value, never>,
): StructuredOutput<Value> {
  const { output, schema } = request
  if (output !== undefined) {
    if (!isStructuredOutput(output)) {
      refuseField(
        'input',
        'output',
        `must come from defineStructuredOutput, but got ${describeValue(output)}`,
        output,
      )
    }
    if (schema !== undefined) {
      refuseField(
        'input',
        'schema',
        'must be left out when output is given (pass either output or schema, not both): output already holds its schema',
        schema,
      )
    }
    return output as StructuredOutput<Value>
  }
  if (schema === undefined) {
    refuseField(
      'input',
      'schema',
      'is missing: give a schema (JSON Schema or Standard Schema) or an output from defineStructuredOutput',
      schema,
      { prefix: 'generateStructured: ' },
    )
  }
  return defineStructuredOutput<Value>({
    schema,
    name: request.name,
    description: request.description,
    jsonSchema: request.jsonSchema,
    maxCorrections: request.maxCorrections,
  })
}

/** The loop behind {@link generateStructured} and {@link chooseRoute}. */
export async function runStructured<Value>(
  output: StructuredOutput<Value>,
  request: Omit<GenerateStructuredRequest<Value, unknown>, 'schema' | 'output'>,
  context: OperationContextInit<unknown>,
): Promise<StructuredResult<Value>> {
  const model = checkModel(request.model)
  const conversation = checkMessages(request.messages, request.prompt)
  if (request.system !== undefined && typeof request.system !== 'string') {
    refuseField(
      'input',
      'system',
      `must be a string or left out, but got ${describeValue(request.system)}`,
      request.system,
    )
  }
  checkTimeout(request.timeoutMs, 'timeoutMs', false)
  const extra = request.request
  if (extra !== undefined && (typeof extra !== 'object' || extra === null)) {
    refuseField(
      'input',
      'request',
      `must be an object of further ModelRequest fields or left out, but got ${describeValue(extra)}`,
      extra,
    )
  }
  const responseFormat = output.responseFormat(request.mode ?? 'prompt')
  const operation = createOperationContext(context)
  const system: ChatMessage = {
    role: 'system',
    content: request.system ? `${request.system}\n\n${output.instructions}` : output.instructions,
  }
  const corrections: ChatMessage[] = []
  const refused: StructuredAttempt[] = []
  let usage: ModelUsage | undefined
  const span = operation.diagnostics.span('structured-output', {
    name: output.name,
    maxCorrections: output.maxCorrections,
  })
  try {
    for (;;) {
      throwIfAborted(operation.signal, `before asking for "${output.name}"`)
      const modelRequest: ModelRequest = {
        ...extra,
        messages: [system, ...conversation, ...corrections],
        ...(responseFormat === undefined ? {} : { responseFormat }),
      }
      const reply = await ask(
        model,
        modelRequest,
        { ...operation, diagnostics: span.diagnostics },
        request.timeoutMs,
      )
      if (reply.usage) usage = usage ? addUsage(usage, reply.usage) : reply.usage
      const parsed = await output.parse(reply.text)
      if (parsed.ok) {
        span.end('ok', { attempts: refused.length + 1 })
        return Object.freeze({
          value: parsed.value,
          text: reply.text,
          attempts: refused.length + 1,
          refused: Object.freeze(refused),
          usage,
        })
      }
      refused.push(Object.freeze({ text: reply.text, issues: parsed.issues }))
      if (refused.length > output.maxCorrections) throw output.failure(refused)
      corrections.push(...output.correction(reply.text, parsed.issues))
    }
  } catch (error) {
    span.fail(error, { attempts: refused.length })
    throw error
  }
}
