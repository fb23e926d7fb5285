/**
 * ModelRequest -> Messages API body, checked in the same single pass: every field the request gives is read
 * once (a snapshot, so later changes to the caller's objects cannot reach the wire), checked, and
 * translated. System messages become the `system` blocks, tool results the `tool_result` blocks of one user
 * turn, signed thinking blocks go back first in their assistant turn, and the cache breakpoints are placed
 * last (at most four). Bad values are `InvalidInputError`s naming the field as the caller wrote it.
 */
import { describeValue, isRecord, type ModelRequest, refuseField } from '@agent-core/core'
import type { AnthropicCacheBreakpoint } from '../options.js'

/** The Messages body the adapter sends, as plain JSON. */
export type MessagesBody = Record<string, unknown>
type Block = Record<string, unknown>
interface WireMessage {
  readonly role: 'user' | 'assistant'
  readonly content: Block[]
}

/** Body keys the adapter derives from the ModelRequest and the options; `body` may not set them. */
export const RESERVED_BODY_KEYS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'system',
  'stream',
  'tools',
  'tool_choice',
  'output_config',
  'temperature',
  'max_tokens',
  'stop_sequences',
  'thinking',
])

/**
 * The tool a `json_object` answer goes through: the Messages API has no JSON mode, and its structured
 * outputs need a schema with every property named, so an arbitrary object is asked for as the forced input
 * of this tool, and read back as the answer's text.
 */
export const JSON_TOOL_NAME = 'json_answer'
const JSON_TOOL: Block = {
  name: JSON_TOOL_NAME,
  description: 'Give your whole answer as this JSON object.',
  input_schema: { type: 'object' },
}

/** True when the request (already checked) asks for a `json_object` answer, read from {@link JSON_TOOL_NAME}. */
export function answersAsJson(request: unknown): boolean {
  return (request as { responseFormat?: { type?: unknown } }).responseFormat?.type === 'json_object'
}

/** The most `cache_control` blocks the API accepts in one request. */
export const MAX_BREAKPOINTS = 4

/** How {@link buildMessagesBody} translates the parts the ModelRequest does not fix. */
export interface BodySettings {
  readonly model: string
  readonly maxTokens: number
  readonly thinking: Readonly<Record<string, unknown>> | undefined
  readonly body: Readonly<Record<string, unknown>> | undefined
  /** `undefined`: no prompt caching. */
  readonly cache:
    | {
        readonly ttl: '5m' | '1h' | undefined
        readonly breakpoints: ((request: ModelRequest) => readonly AnthropicCacheBreakpoint[]) | undefined
      }
    | undefined
}

/** The API's rule for tool names. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/
const DATA_URL = /^data:(image\/(?:png|jpeg|gif|webp));base64,(.*)$/s

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

function userBlocks(value: unknown, field: string): Block[] {
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }]
  const parts = list(value, field)
  if (parts.length === 0) fail(field, 'a string or a non-empty array of text and image parts', value)
  const blocks: Block[] = []
  parts.forEach((part, index) => {
    const where = `${field}[${index}]`
    if (!isRecord(part)) fail(where, "a content part { type: 'text', text } or { type: 'image', url }", part)
    const type = part.type
    if (type === 'text') {
      const said = text(part.text, `${where}.text`)
      // The API refuses empty text blocks; an empty part says nothing.
      if (said !== '') blocks.push({ type: 'text', text: said })
      return
    }
    if (type === 'image') {
      const url = part.url
      if (typeof url !== 'string' || url.length === 0)
        fail(`${where}.url`, 'a non-empty URL or data URL', url)
      const data = DATA_URL.exec(url)
      if (data !== null) {
        blocks.push({ type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } })
      } else if (url.startsWith('data:')) {
        fail(`${where}.url`, 'a base64 data URL of a PNG, JPEG, GIF or WebP image (what the API reads)', url)
      } else {
        blocks.push({ type: 'image', source: { type: 'url', url } })
      }
      return
    }
    fail(`${where}.type`, "'text' or 'image'", type)
  })
  return blocks
}

function thinkingBlocks(value: unknown, field: string): Block[] {
  if (value === undefined) return []
  return list(value, field).flatMap((block, index): Block[] => {
    const where = `${field}[${index}]`
    if (!isRecord(block)) fail(where, 'a thinking block { text, signature?, redacted? }', block)
    const said = text(block.text, `${where}.text`)
    const { signature, redacted } = block
    if (redacted !== undefined)
      return [{ type: 'redacted_thinking', data: text(redacted, `${where}.redacted`) }]
    // Unsigned reasoning (another provider's) cannot be checked by the API: it stays on this side.
    if (signature === undefined) return []
    return [{ type: 'thinking', thinking: said, signature: text(signature, `${where}.signature`) }]
  })
}

function toolUse(value: unknown, field: string): Block {
  if (!isRecord(value)) fail(field, 'a tool call { id, name, arguments }', value)
  const id = value.id
  if (typeof id !== 'string' || id.length === 0) fail(`${field}.id`, 'a non-empty string', id)
  const name = value.name
  if (typeof name !== 'string' || name.length === 0) fail(`${field}.name`, 'a non-empty string', name)
  const args = text(value.arguments, `${field}.arguments`)
  let input: unknown
  try {
    input = args.trim() === '' ? {} : JSON.parse(args)
  } catch {
    input = undefined
  }
  if (!isRecord(input))
    fail(`${field}.arguments`, "the JSON text of an object (a tool_use block's input)", args)
  return { type: 'tool_use', id, name, input }
}

/** Adds a turn, merging it into the previous one of the same role (the API expects roles to alternate). */
function push(messages: WireMessage[], role: 'user' | 'assistant', content: Block[]): void {
  if (content.length === 0) return
  const last = messages[messages.length - 1]
  if (last !== undefined && last.role === role) last.content.push(...content)
  else messages.push({ role, content })
}

interface Conversation {
  readonly system: Block[]
  readonly messages: WireMessage[]
  /** For each request message: the wire block it ended with (where a breakpoint on it goes). */
  readonly lastBlock: (Block | undefined)[]
}

function conversation(value: unknown): Conversation {
  const wire = list(value, 'request.messages')
  if (wire.length === 0)
    refuseField('input', 'request.messages', 'is empty; a chat request needs at least one message', value)
  const system: Block[] = []
  const messages: WireMessage[] = []
  const lastBlock: (Block | undefined)[] = []
  wire.forEach((message, index) => {
    const field = `request.messages[${index}]`
    if (!isRecord(message)) fail(field, 'a chat message { role, content }', message)
    const role = message.role
    let blocks: Block[]
    switch (role) {
      case 'system': {
        const said = text(message.content, `${field}.content`)
        blocks = said === '' ? [] : [{ type: 'text', text: said }]
        system.push(...blocks)
        break
      }
      case 'user':
        blocks = userBlocks(message.content, `${field}.content`)
        push(messages, 'user', blocks)
        break
      case 'assistant': {
        blocks = thinkingBlocks(message.thinkingBlocks, `${field}.thinkingBlocks`)
        const said = text(message.content, `${field}.content`)
        if (said !== '') blocks.push({ type: 'text', text: said })
        const calls = message.toolCalls
        if (calls !== undefined) {
          list(calls, `${field}.toolCalls`).forEach((call, i) => {
            blocks.push(toolUse(call, `${field}.toolCalls[${i}]`))
          })
        }
        push(messages, 'assistant', blocks)
        break
      }
      case 'tool': {
        const id = message.toolCallId
        if (typeof id !== 'string' || id.length === 0) {
          fail(`${field}.toolCallId`, 'the non-empty id of the tool call it answers', id)
        }
        const output = text(message.content, `${field}.content`)
        const isError = message.isError
        if (isError !== undefined && typeof isError !== 'boolean')
          fail(`${field}.isError`, 'a boolean or left out', isError)
        blocks = [
          {
            type: 'tool_result',
            tool_use_id: id,
            ...(output === '' ? {} : { content: output }),
            ...(isError === true ? { is_error: true } : {}),
          },
        ]
        push(messages, 'user', blocks)
        break
      }
      default:
        fail(`${field}.role`, "'system', 'user', 'assistant' or 'tool'", role)
    }
    lastBlock.push(blocks[blocks.length - 1])
  })
  if (messages.length === 0) {
    refuseField(
      'input',
      'request.messages',
      'holds no user or assistant content (only system messages or empty texts); the Messages API needs at least one',
      value,
    )
  }
  return { system, messages, lastBlock }
}

function tools(value: unknown): { body: Block[]; names: Set<string> } {
  const names = new Set<string>()
  const body = list(value, 'request.tools').map((tool, index) => {
    const field = `request.tools[${index}]`
    if (!isRecord(tool)) fail(field, 'a tool spec { name, description, parameters }', tool)
    const name = tool.name
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
      fail(`${field}.name`, 'a tool name of 1 to 128 letters, digits, _ or - (as the API requires)', name)
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
    const schema = jsonSnapshot(parameters, `${field}.parameters`) as Record<string, unknown>
    // The API wants an object schema at the top; a schema without a type is read as one.
    if (schema.type === undefined) schema.type = 'object'
    else if (schema.type !== 'object')
      fail(`${field}.parameters.type`, "'object' (tool input is an object)", schema.type)
    return {
      name,
      ...(description === undefined || description === ''
        ? {}
        : { description: text(description, `${field}.description`) }),
      input_schema: schema,
    }
  })
  return { body, names }
}

function toolChoice(
  value: unknown,
  offered: ReadonlySet<string> | undefined,
  parallel: boolean | undefined,
): unknown {
  const extra = parallel === false ? { disable_parallel_tool_use: true } : {}
  if (value === undefined)
    return parallel === false && offered !== undefined ? { type: 'auto', ...extra } : undefined
  if (value === 'none') return { type: 'none' }
  if (value === 'auto') return { type: 'auto', ...extra }
  if (value === 'required') {
    if (offered === undefined) {
      refuseField(
        'input',
        'request.toolChoice',
        "is 'required' but the request offers no tools. Offer tools, or leave toolChoice out",
        value,
      )
    }
    return { type: 'any', ...extra }
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
    return { type: 'tool', name, ...extra }
  }
  return fail('request.toolChoice', "'auto', 'none', 'required' or { name }", value)
}

const JSON_OBJECT = Symbol('json_object')

function outputConfig(value: unknown): unknown {
  if (!isRecord(value)) fail('request.responseFormat', "{ type: 'text' | 'json_schema' }", value)
  const type = value.type
  if (type === 'text') return undefined
  if (type === 'json_object') return JSON_OBJECT
  if (type === 'json_schema') {
    const schema = value.schema
    if (!isRecord(schema)) fail('request.responseFormat.schema', 'a JSON Schema object', schema)
    const strict = value.strict
    if (strict !== undefined && typeof strict !== 'boolean')
      fail('request.responseFormat.strict', 'a boolean or left out', strict)
    return { format: { type: 'json_schema', schema: jsonSnapshot(schema, 'request.responseFormat.schema') } }
  }
  return fail('request.responseFormat.type', "'text' or 'json_schema'", type)
}

/**
 * A deep copy of a JSON value the caller gave (a JSON Schema, an extra body field): later changes to the
 * caller's object cannot reach the wire, and a value JSON cannot carry (a cycle, a BigInt) is refused here.
 */
export function jsonSnapshot(value: unknown, field: string): unknown {
  let serialised: string | undefined
  try {
    serialised = JSON.stringify(value)
  } catch (error) {
    if (!(error instanceof TypeError)) throw error
    refuseField(
      'input',
      field,
      `must be plain JSON, but it cannot be serialised: ${error.message}. Remove cycles, BigInts and class instances`,
      value,
      { cause: error },
    )
  }
  if (serialised === undefined) fail(field, 'a JSON value', value)
  return JSON.parse(serialised)
}

function integer(value: unknown, field: string, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    fail(field, `a safe integer of at least ${min}`, value)
  }
  return value
}

/** The breakpoints of the automatic placement: tools, system, the last message, where the previous request ended. */
function automaticBreakpoints(talk: Conversation, toolBlocks: Block[] | undefined): Block[] {
  const marks: Block[] = []
  const lastTool = toolBlocks?.[toolBlocks.length - 1]
  if (lastTool !== undefined) marks.push(lastTool)
  const lastSystem = talk.system[talk.system.length - 1]
  if (lastSystem !== undefined) marks.push(lastSystem)
  const lastMessage = talk.messages[talk.messages.length - 1] as WireMessage
  const last = lastMessage.content[lastMessage.content.length - 1] as Block
  marks.push(last)
  // Where the previous request of this conversation ended (the turn before the last assistant turn): the
  // prefix it wrote, read back exactly even when the turns since added more blocks than the API looks
  // back over (20).
  for (let i = talk.messages.length - 2; i > 0; i--) {
    if ((talk.messages[i] as WireMessage).role !== 'assistant') continue
    const before = talk.messages[i - 1] as WireMessage
    const block = before.content[before.content.length - 1]
    if (block !== undefined && block !== last) marks.push(block)
    break
  }
  return marks
}

function placedBreakpoints(
  chosen: unknown,
  talk: Conversation,
  toolBlocks: Block[] | undefined,
  messageCount: number,
): Block[] {
  const field = 'promptCache.breakpoints(request)'
  if (!Array.isArray(chosen))
    fail(field, "an array of breakpoints ('tools', 'system' or { message })", chosen)
  if (chosen.length > MAX_BREAKPOINTS) {
    refuseField(
      'input',
      field,
      `returned ${chosen.length} breakpoints, but the API accepts at most ${MAX_BREAKPOINTS} per request. Return fewer`,
      chosen,
    )
  }
  const marks: Block[] = []
  chosen.forEach((point: unknown, index) => {
    const where = `${field}[${index}]`
    let block: Block | undefined
    if (point === 'tools') {
      block = toolBlocks?.[toolBlocks.length - 1]
      if (block === undefined) fail(where, "'tools' only when the request offers tools", point)
    } else if (point === 'system') {
      block = talk.system[talk.system.length - 1]
      if (block === undefined) fail(where, "'system' only when the request has a system prompt", point)
    } else if (isRecord(point) && Number.isSafeInteger(point.message)) {
      const at = point.message as number
      if (at < 0 || at >= messageCount)
        fail(`${where}.message`, `the index of a message (0 to ${messageCount - 1})`, at)
      block = talk.lastBlock[at]
      if (block === undefined) fail(`${where}.message`, 'the index of a message with content', at)
    } else {
      fail(where, "'tools', 'system' or { message: index }", point)
    }
    marks.push(block)
  })
  return marks
}

/**
 * Checks a ModelRequest and builds the Messages body for it (without `stream`).
 * @throws `InvalidInputError` naming the first offending field
 */
export function buildMessagesBody(request: unknown, settings: BodySettings): MessagesBody {
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
  const body: MessagesBody = settings.body === undefined ? {} : { ...settings.body }
  if (model !== undefined && (typeof model !== 'string' || model.length === 0)) {
    fail('request.model', 'a non-empty model name or left out', model)
  }
  body.model = model ?? settings.model
  body.max_tokens =
    maxOutputTokens === undefined
      ? settings.maxTokens
      : integer(maxOutputTokens, 'request.maxOutputTokens', 1)
  const talk = conversation(messages)
  if (talk.system.length > 0) body.system = talk.system
  body.messages = talk.messages
  let offered: Set<string> | undefined
  let toolBlocks: Block[] | undefined
  if (toolSpecs !== undefined && !(Array.isArray(toolSpecs) && toolSpecs.length === 0)) {
    const built = tools(toolSpecs)
    body.tools = toolBlocks = built.body
    offered = built.names
  }
  if (parallelToolCalls !== undefined && typeof parallelToolCalls !== 'boolean') {
    fail('request.parallelToolCalls', 'a boolean or left out', parallelToolCalls)
  }
  const wireChoice = toolChoice(choice, offered, parallelToolCalls)
  if (wireChoice !== undefined) body.tool_choice = wireChoice
  if (format !== undefined) {
    const config = outputConfig(format)
    if (config === JSON_OBJECT) {
      if (offered !== undefined || choice !== undefined) {
        refuseField(
          'input',
          'request.responseFormat.type',
          "is 'json_object', which cannot go with tools or a toolChoice on the Messages API: the adapter asks for the object as the input of a forced tool. Give a json_schema format instead, or leave the tools out",
          'json_object',
        )
      }
      body.tools = toolBlocks = [{ ...JSON_TOOL }]
      body.tool_choice = { type: 'tool', name: JSON_TOOL_NAME }
    } else if (config !== undefined) body.output_config = config
  }
  if (temperature !== undefined) {
    if (typeof temperature !== 'number' || !Number.isFinite(temperature))
      fail('request.temperature', 'a finite number', temperature)
    body.temperature = temperature
  }
  // The Messages API has no seed; a request that gives one is answered without it.
  if (seed !== undefined) integer(seed, 'request.seed', Number.MIN_SAFE_INTEGER)
  if (stop !== undefined) {
    const sequences = list(stop, 'request.stop').map((s, i) => text(s, `request.stop[${i}]`))
    if (sequences.length > 0) body.stop_sequences = sequences
  }
  if (settings.thinking !== undefined) {
    const budget = settings.thinking.budget_tokens
    if (typeof budget === 'number' && budget >= (body.max_tokens as number)) {
      refuseField(
        'input',
        'request.maxOutputTokens',
        `(${body.max_tokens}) must be above the thinking budget (${budget}): the thinking is part of the output. Raise maxOutputTokens or lower options.thinking.budgetTokens`,
        body.max_tokens,
      )
    }
    body.thinking = settings.thinking
  }
  const cache = settings.cache
  if (cache !== undefined) {
    const marks =
      cache.breakpoints === undefined
        ? automaticBreakpoints(talk, toolBlocks)
        : placedBreakpoints(
            cache.breakpoints(request as unknown as ModelRequest),
            talk,
            toolBlocks,
            (messages as unknown[]).length,
          )
    const marker = cache.ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: cache.ttl }
    for (const block of marks) block.cache_control = marker
  }
  return body
}
