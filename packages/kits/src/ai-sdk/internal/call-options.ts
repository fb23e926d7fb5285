/**
 * A core `ModelRequest` as the call options of an AI SDK language model (`LanguageModelV4CallOptions`):
 * the request is checked field by field on the way (a malformed one is an `InvalidInputError` naming the
 * field, before anything is sent).
 */
import { describeValue, isRecord, refuseField } from '@agent-core/core'
import type {
  JSONSchema7,
  LanguageModelV4CallOptions,
  LanguageModelV4FilePart,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4TextPart,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolResultPart,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider'

/** What the options add to every call. */
export interface CallSettings {
  readonly modelId: string
  readonly providerOptions: SharedV4ProviderOptions | undefined
  readonly headers: Readonly<Record<string, string>> | undefined
}

function fail(field: string, expected: string, value: unknown): never {
  refuseField('input', field, `must be ${expected}, but got ${describeValue(value)}`, value)
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string') fail(field, 'a string', value)
  return value
}

function list(value: unknown, field: string): readonly unknown[] {
  if (!Array.isArray(value)) fail(field, 'an array', value)
  return value
}

function finite(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(field, 'a finite number', value)
  return value
}

function integer(value: unknown, field: string, min: number): number | undefined {
  if (value === undefined) return undefined
  if (!Number.isSafeInteger(value) || (value as number) < min) fail(field, `an integer >= ${min}`, value)
  return value as number
}

const DATA_URL = /^data:([^;,]+)(;base64)?,(.*)$/s

/** An image part of a user message as an AI SDK file part (a data URL inline, any other URL by reference). */
function imagePart(url: string, field: string): LanguageModelV4FilePart {
  const data = DATA_URL.exec(url)
  if (data) {
    const [, mediaType, base64, payload] = data
    return {
      type: 'file',
      mediaType: mediaType!,
      data: {
        type: 'data',
        data: base64 ? payload! : new TextEncoder().encode(decodeURIComponent(payload!)),
      },
    }
  }
  if (!URL.canParse(url)) fail(field, 'an absolute URL or a data URL', url)
  return { type: 'file', mediaType: 'image/*', data: { type: 'url', url: new URL(url) } }
}

function userContent(value: unknown, field: string): (LanguageModelV4TextPart | LanguageModelV4FilePart)[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }]
  const parts = list(value, field)
  if (parts.length === 0) fail(field, 'a string or a non-empty array of text and image parts', value)
  return parts.map((part, index) => {
    const where = `${field}[${index}]`
    if (!isRecord(part)) fail(where, "a content part { type: 'text', text } or { type: 'image', url }", part)
    if (part.type === 'text') return { type: 'text', text: text(part.text, `${where}.text`) }
    if (part.type === 'image') {
      if (typeof part.url !== 'string' || part.url === '') fail(`${where}.url`, 'a non-empty URL', part.url)
      return imagePart(part.url, `${where}.url`)
    }
    return fail(`${where}.type`, "'text' or 'image'", part.type)
  })
}

/** Tool-call arguments as the AI SDK's `input`: the parsed JSON, or the raw text when it is not JSON. */
function inputOf(args: string): unknown {
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

function assistantMessage(
  message: Record<string, unknown>,
  field: string,
  names: Map<string, string>,
): LanguageModelV4Message {
  const content: Extract<LanguageModelV4Message, { role: 'assistant' }>['content'] = []
  if (message.thinking !== undefined) {
    const thinking = text(message.thinking, `${field}.thinking`)
    if (thinking !== '') content.push({ type: 'reasoning', text: thinking })
  }
  const said = text(message.content, `${field}.content`)
  if (said !== '') content.push({ type: 'text', text: said })
  if (message.toolCalls !== undefined) {
    list(message.toolCalls, `${field}.toolCalls`).forEach((call, index) => {
      const where = `${field}.toolCalls[${index}]`
      if (!isRecord(call)) fail(where, 'a tool call { id, name, arguments }', call)
      const id = text(call.id, `${where}.id`)
      const name = text(call.name, `${where}.name`)
      if (id === '') fail(`${where}.id`, 'a non-empty string', id)
      if (name === '') fail(`${where}.name`, 'a non-empty string', name)
      names.set(id, name)
      const part: LanguageModelV4ToolCallPart = {
        type: 'tool-call',
        toolCallId: id,
        toolName: name,
        input: inputOf(text(call.arguments, `${where}.arguments`)),
      }
      content.push(part)
    })
  }
  return { role: 'assistant', content }
}

function toolResult(
  message: Record<string, unknown>,
  field: string,
  names: Map<string, string>,
): LanguageModelV4ToolResultPart {
  const id = text(message.toolCallId, `${field}.toolCallId`)
  const name = names.get(id)
  if (name === undefined) {
    refuseField(
      'input',
      `${field}.toolCallId`,
      `"${id}" answers no tool call of an earlier assistant message. AI SDK providers need the tool's name with each result: keep the assistant message that made the call in the history`,
      id,
    )
  }
  const output = text(message.content, `${field}.content`)
  if (message.isError !== undefined && typeof message.isError !== 'boolean')
    fail(`${field}.isError`, 'a boolean', message.isError)
  return {
    type: 'tool-result',
    toolCallId: id,
    toolName: name,
    output:
      message.isError === true ? { type: 'error-text', value: output } : { type: 'text', value: output },
  }
}

/** The conversation as an AI SDK prompt; consecutive tool results go in one tool message. */
export function promptOf(messages: unknown): LanguageModelV4Message[] {
  const items = list(messages, 'request.messages')
  if (items.length === 0) fail('request.messages', 'a non-empty array of messages', messages)
  const names = new Map<string, string>()
  const prompt: LanguageModelV4Message[] = []
  items.forEach((message, index) => {
    const field = `request.messages[${index}]`
    if (!isRecord(message)) fail(field, 'a message { role, content }', message)
    switch (message.role) {
      case 'system':
        prompt.push({ role: 'system', content: text(message.content, `${field}.content`) })
        return
      case 'user':
        prompt.push({ role: 'user', content: userContent(message.content, `${field}.content`) })
        return
      case 'assistant':
        prompt.push(assistantMessage(message, field, names))
        return
      case 'tool': {
        const part = toolResult(message, field, names)
        const last = prompt.at(-1)
        if (last?.role === 'tool') last.content.push(part)
        else prompt.push({ role: 'tool', content: [part] })
        return
      }
      default:
        fail(`${field}.role`, "'system', 'user', 'assistant' or 'tool'", message.role)
    }
  })
  return prompt
}

function toolsOf(value: unknown): LanguageModelV4FunctionTool[] | undefined {
  if (value === undefined) return undefined
  return list(value, 'request.tools').map((tool, index) => {
    const field = `request.tools[${index}]`
    if (!isRecord(tool)) fail(field, 'a tool { name, description, parameters }', tool)
    const name = text(tool.name, `${field}.name`)
    if (name === '') fail(`${field}.name`, 'a non-empty string', name)
    if (!isRecord(tool.parameters)) fail(`${field}.parameters`, 'a JSON Schema object', tool.parameters)
    return {
      type: 'function',
      name,
      description: text(tool.description, `${field}.description`),
      inputSchema: tool.parameters as JSONSchema7,
    }
  })
}

function toolChoiceOf(value: unknown): LanguageModelV4CallOptions['toolChoice'] {
  if (value === undefined) return undefined
  if (value === 'auto' || value === 'none' || value === 'required') return { type: value }
  if (isRecord(value) && typeof value.name === 'string' && value.name !== '')
    return { type: 'tool', toolName: value.name }
  return fail('request.toolChoice', "'auto', 'none', 'required' or { name }", value)
}

function responseFormatOf(value: unknown): LanguageModelV4CallOptions['responseFormat'] {
  if (value === undefined) return undefined
  if (!isRecord(value))
    fail('request.responseFormat', "{ type: 'text' | 'json_object' | 'json_schema' }", value)
  switch (value.type) {
    case 'text':
      return { type: 'text' }
    case 'json_object':
      return { type: 'json' }
    case 'json_schema': {
      const name = text(value.name, 'request.responseFormat.name')
      if (!isRecord(value.schema)) fail('request.responseFormat.schema', 'a JSON Schema object', value.schema)
      return { type: 'json', name, schema: value.schema as JSONSchema7 }
    }
    default:
      return fail('request.responseFormat.type', "'text', 'json_object' or 'json_schema'", value.type)
  }
}

const REQUEST_FIELDS = new Set([
  'model',
  'messages',
  'tools',
  'toolChoice',
  'responseFormat',
  'temperature',
  'maxOutputTokens',
  'seed',
  'stop',
  'parallelToolCalls',
])

/** The call options for `request`; throws `InvalidInputError` for a malformed request. */
export function callOptionsOf(
  request: unknown,
  settings: CallSettings,
  signal: AbortSignal | undefined,
): LanguageModelV4CallOptions {
  if (!isRecord(request)) fail('request', 'a model request { messages, ... }', request)
  for (const key of Object.keys(request)) {
    if (!REQUEST_FIELDS.has(key) && request[key] !== undefined) {
      refuseField(
        'input',
        `request.${key}`,
        `is not a field of a model request (known: ${[...REQUEST_FIELDS].join(', ')})`,
        request[key],
      )
    }
  }
  if (request.model !== undefined && request.model !== settings.modelId) {
    refuseField(
      'input',
      'request.model',
      `is "${String(request.model)}", but this AI SDK model is bound to "${settings.modelId}": an AI SDK language model serves one model id. Make another model with the provider (provider("${String(request.model)}")) and wrap that one`,
      request.model,
    )
  }
  if (request.parallelToolCalls !== undefined && request.parallelToolCalls !== true) {
    refuseField(
      'input',
      'request.parallelToolCalls',
      `must be true or left out, but got ${describeValue(request.parallelToolCalls)}: false has no provider-neutral form in the AI SDK. Turn parallel calls off through the providerOptions of your provider (openai: { parallelToolCalls: false }, anthropic: { disableParallelToolUse: true })`,
      request.parallelToolCalls,
    )
  }
  const stop = request.stop === undefined ? undefined : list(request.stop, 'request.stop')
  const options: LanguageModelV4CallOptions = { prompt: promptOf(request.messages) }
  const tools = toolsOf(request.tools)
  if (tools !== undefined && tools.length > 0) options.tools = tools
  const toolChoice = toolChoiceOf(request.toolChoice)
  if (toolChoice !== undefined) options.toolChoice = toolChoice
  const responseFormat = responseFormatOf(request.responseFormat)
  if (responseFormat !== undefined) options.responseFormat = responseFormat
  const temperature = finite(request.temperature, 'request.temperature')
  if (temperature !== undefined) options.temperature = temperature
  const maxOutputTokens = integer(request.maxOutputTokens, 'request.maxOutputTokens', 1)
  if (maxOutputTokens !== undefined) options.maxOutputTokens = maxOutputTokens
  const seed = integer(request.seed, 'request.seed', Number.MIN_SAFE_INTEGER)
  if (seed !== undefined) options.seed = seed
  if (stop !== undefined)
    options.stopSequences = stop.map((item, index) => text(item, `request.stop[${index}]`))
  if (settings.providerOptions !== undefined) options.providerOptions = settings.providerOptions
  if (settings.headers !== undefined) options.headers = { ...settings.headers }
  if (signal !== undefined) options.abortSignal = signal
  return options
}
