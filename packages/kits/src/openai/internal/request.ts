/**
 * ModelRequest -> chat completions body, checked in the same single pass: every field the request gives is
 * read once (a snapshot, so later changes to the caller's objects cannot reach the wire), checked, and
 * translated. Bad values are `InvalidInputError`s naming the field as the caller wrote it.
 */
import { describeValue, isRecord, type JsonSchema, refuseField } from '@agent-core/core'

/** The chat completions body the adapter sends, as plain JSON. */
export type ChatCompletionBody = Record<string, unknown>

/** Body keys the adapter derives from the ModelRequest and the options; `body` may not set them. */
export const RESERVED_BODY_KEYS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'temperature',
  'max_tokens',
  'max_completion_tokens',
  'seed',
  'stop',
  'n',
])

/** How {@link buildChatBody} translates the parts the ModelRequest does not fix. */
export interface BodySettings {
  readonly model: string
  readonly maxTokensParameter: 'max_completion_tokens' | 'max_tokens'
  readonly body: Readonly<Record<string, unknown>> | undefined
}

/** OpenAI's rule for function names; servers that follow the OpenAI API refuse other names. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

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

function content(value: unknown, field: string): unknown {
  if (typeof value === 'string') return value
  const parts = list(value, field)
  if (parts.length === 0) fail(field, 'a string or a non-empty array of text and image parts', value)
  return parts.map((part, index) => {
    const where = `${field}[${index}]`
    if (!isRecord(part)) fail(where, "a content part { type: 'text', text } or { type: 'image', url }", part)
    const type = part.type
    if (type === 'text') return { type: 'text', text: text(part.text, `${where}.text`) }
    if (type === 'image') {
      const url = part.url
      if (typeof url !== 'string' || url.length === 0)
        fail(`${where}.url`, 'a non-empty URL or data URL', url)
      return { type: 'image_url', image_url: { url } }
    }
    return fail(`${where}.type`, "'text' or 'image'", type)
  })
}

function toolCall(value: unknown, field: string): unknown {
  if (!isRecord(value)) fail(field, 'a tool call { id, name, arguments }', value)
  const id = value.id
  if (typeof id !== 'string' || id.length === 0) fail(`${field}.id`, 'a non-empty string', id)
  const name = value.name
  if (typeof name !== 'string' || name.length === 0) fail(`${field}.name`, 'a non-empty string', name)
  return { id, type: 'function', function: { name, arguments: text(value.arguments, `${field}.arguments`) } }
}

function message(value: unknown, index: number): unknown {
  const field = `request.messages[${index}]`
  if (!isRecord(value)) fail(field, 'a chat message { role, content }', value)
  const role = value.role
  switch (role) {
    case 'system':
      return { role, content: text(value.content, `${field}.content`) }
    case 'user':
      return { role, content: content(value.content, `${field}.content`) }
    case 'assistant': {
      const said = text(value.content, `${field}.content`)
      const calls = value.toolCalls
      if (calls === undefined || (Array.isArray(calls) && calls.length === 0)) return { role, content: said }
      const toolCalls = list(calls, `${field}.toolCalls`).map((call, i) =>
        toolCall(call, `${field}.toolCalls[${i}]`),
      )
      // OpenAI expects null content, not '', on an assistant turn that only called tools.
      return { role, content: said === '' ? null : said, tool_calls: toolCalls }
    }
    case 'tool': {
      const id = value.toolCallId
      if (typeof id !== 'string' || id.length === 0) {
        fail(`${field}.toolCallId`, 'the non-empty id of the tool call it answers', id)
      }
      return { role, tool_call_id: id, content: text(value.content, `${field}.content`) }
    }
    default:
      return fail(`${field}.role`, "'system', 'user', 'assistant' or 'tool'", role)
  }
}

function tools(value: unknown): { body: unknown[]; names: Set<string> } {
  const names = new Set<string>()
  const body = list(value, 'request.tools').map((tool, index) => {
    const field = `request.tools[${index}]`
    if (!isRecord(tool)) fail(field, 'a tool spec { name, description, parameters }', tool)
    const name = tool.name
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
      fail(`${field}.name`, 'a function name of 1 to 64 letters, digits, _ or - (as OpenAI requires)', name)
    }
    if (names.has(name)) {
      refuseField(
        'input',
        `${field}.name`,
        `is "${name}" again: request.tools offers "${name}" twice; tool names must be unique within a request`,
        name,
      )
    }
    names.add(name)
    const description = tool.description
    const parameters = tool.parameters
    if (!isRecord(parameters)) fail(`${field}.parameters`, 'a JSON Schema object', parameters)
    return {
      type: 'function',
      function: {
        name,
        ...(description === undefined || description === ''
          ? {}
          : { description: text(description, `${field}.description`) }),
        parameters: jsonSnapshot(parameters, `${field}.parameters`) as JsonSchema,
      },
    }
  })
  return { body, names }
}

function toolChoice(value: unknown, offered: ReadonlySet<string> | undefined): unknown {
  if (value === 'auto' || value === 'none' || value === 'required') {
    if (value === 'required' && offered === undefined) {
      refuseField(
        'input',
        'request.toolChoice',
        "is 'required' but the request offers no tools. Offer tools, or leave toolChoice out",
        value,
      )
    }
    return value
  }
  if (isRecord(value) && typeof value.name === 'string') {
    const name = value.name
    if (offered === undefined || !offered.has(name)) {
      refuseField(
        'input',
        'request.toolChoice.name',
        `names the tool "${name}", but the request ${offered === undefined ? 'offers no tools' : `offers only ${[...offered].map((n) => `"${n}"`).join(', ')}`}; offer it in request.tools`,
        name,
      )
    }
    return { type: 'function', function: { name } }
  }
  return fail('request.toolChoice', "'auto', 'none', 'required' or { name }", value)
}

function responseFormat(value: unknown): unknown {
  if (!isRecord(value))
    fail('request.responseFormat', "{ type: 'text' | 'json_object' | 'json_schema' }", value)
  const type = value.type
  if (type === 'text' || type === 'json_object') return { type }
  if (type === 'json_schema') {
    const name = value.name
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
      fail(
        'request.responseFormat.name',
        'a name of 1 to 64 letters, digits, _ or - (as OpenAI requires)',
        name,
      )
    }
    const schema = value.schema
    if (!isRecord(schema)) fail('request.responseFormat.schema', 'a JSON Schema object', schema)
    const strict = value.strict
    if (strict !== undefined && typeof strict !== 'boolean') {
      fail('request.responseFormat.strict', 'a boolean or left out', strict)
    }
    return {
      type,
      json_schema: {
        name,
        schema: jsonSnapshot(schema, 'request.responseFormat.schema'),
        ...(strict === undefined ? {} : { strict }),
      },
    }
  }
  return fail('request.responseFormat.type', "'text', 'json_object' or 'json_schema'", type)
}

/**
 * A deep copy of a JSON value the caller gave (a JSON Schema, an extra body field): later changes to the
 * caller's object cannot reach the wire, and a value JSON cannot carry (a cycle, a BigInt) is refused here
 * instead of failing inside the client.
 */
export function jsonSnapshot(value: unknown, field: string): unknown {
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (error) {
    if (!(error instanceof TypeError)) throw error // a getter's own error passes through
    refuseField(
      'input',
      field,
      `must be plain JSON, but it cannot be serialised: ${error.message}. Remove cycles, BigInts and class instances`,
      value,
      { cause: error },
    )
  }
  if (text === undefined) fail(field, 'a JSON value', value)
  return JSON.parse(text)
}

function finiteNumber(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(field, 'a finite number', value)
  return value
}

function integer(value: unknown, field: string, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    fail(field, min === 1 ? 'a safe integer of at least 1' : 'a safe integer', value)
  }
  return value
}

/**
 * Checks a ModelRequest and builds the chat completions body for it (without the stream fields).
 * @throws `InvalidInputError` naming the first offending field
 */
export function buildChatBody(request: unknown, settings: BodySettings): ChatCompletionBody {
  if (!isRecord(request)) fail('request', 'a model request { messages, ... }', request)
  const {
    model,
    messages,
    tools: toolSpecs,
    toolChoice: choice,
    responseFormat: format,
    temperature,
    maxOutputTokens,
    seed,
    stop,
    parallelToolCalls,
  } = request
  const body: ChatCompletionBody = settings.body === undefined ? {} : { ...settings.body }
  if (model !== undefined && (typeof model !== 'string' || model.length === 0)) {
    fail('request.model', 'a non-empty model name or left out', model)
  }
  body.model = model ?? settings.model
  const wire = list(messages, 'request.messages')
  if (wire.length === 0)
    refuseField('input', 'request.messages', 'is empty; a chat request needs at least one message', messages)
  body.messages = wire.map(message)
  let offered: Set<string> | undefined
  if (toolSpecs !== undefined && !(Array.isArray(toolSpecs) && toolSpecs.length === 0)) {
    const built = tools(toolSpecs)
    body.tools = built.body
    offered = built.names
  }
  if (choice !== undefined) body.tool_choice = toolChoice(choice, offered)
  if (parallelToolCalls !== undefined) {
    if (typeof parallelToolCalls !== 'boolean') {
      fail('request.parallelToolCalls', 'a boolean or left out', parallelToolCalls)
    }
    // OpenAI refuses parallel_tool_calls on a request without tools; it means nothing there.
    if (offered !== undefined) body.parallel_tool_calls = parallelToolCalls
  }
  if (format !== undefined) body.response_format = responseFormat(format)
  if (temperature !== undefined) body.temperature = finiteNumber(temperature, 'request.temperature')
  if (maxOutputTokens !== undefined) {
    body[settings.maxTokensParameter] = integer(maxOutputTokens, 'request.maxOutputTokens', 1)
  }
  if (seed !== undefined) body.seed = integer(seed, 'request.seed', Number.MIN_SAFE_INTEGER)
  if (stop !== undefined) {
    const sequences = list(stop, 'request.stop').map((s, i) => text(s, `request.stop[${i}]`))
    if (sequences.length > 0) body.stop = sequences
  }
  return body
}
