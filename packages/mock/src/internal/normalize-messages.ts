import { describeValue, isRecord } from '@agent-core/core'
import {
  assertGeneratable,
  compileRequestSchema,
  finish,
  type NormalizedFormat,
  type NormalizedMessage,
  type NormalizedRequest,
  type NormalizedTool,
  type NormalizedToolCall,
  textOf,
} from './normalize.js'
import { badRequest } from './openai-error.js'
import { planPromptCache } from './prompt-cache.js'
import { thinkingSignature } from './render-messages.js'

/**
 * Thinking blocks sent back in an assistant turn must be the ones the model wrote: a block MockGPT signed
 * (its signatures start with `mockgpt-sig-`) whose text or signature changed is refused as the API refuses
 * it. Signatures of other origins (recorded real traffic) are not checked.
 */
function checkThinkingBlock(block: Record<string, unknown>, param: string): void {
  if (block.type === 'redacted_thinking') {
    if (typeof block.data !== 'string' || block.data === '')
      throw badRequest(`${param}.data: Field required.`, `${param}.data`)
    return
  }
  if (typeof block.thinking !== 'string')
    throw badRequest(`${param}.thinking: Field required.`, `${param}.thinking`)
  const signature = block.signature
  if (typeof signature !== 'string' || signature === '')
    throw badRequest(`${param}.signature: Field required.`, `${param}.signature`)
  if (signature.startsWith('mockgpt-sig-') && signature !== thinkingSignature(block.thinking))
    throw badRequest(`${param}: Invalid \`signature\` in \`thinking\` block.`, `${param}.signature`)
}

/** `thinking`: enabled with a budget below `max_tokens`, disabled, or adaptive. */
function checkThinking(value: unknown, maxTokens: number): boolean {
  if (value === undefined || value === null) return false
  if (!isRecord(value))
    throw badRequest(`thinking: Input should be an object, but got ${describeValue(value)}.`, 'thinking')
  if (value.type === 'disabled') return false
  if (value.type === 'adaptive') return true
  if (value.type !== 'enabled')
    throw badRequest(
      `thinking.type: Input should be 'enabled', 'disabled' or 'adaptive', but got ${describeValue(value.type)}.`,
      'thinking.type',
    )
  const budget = value.budget_tokens
  if (typeof budget !== 'number' || !Number.isSafeInteger(budget) || budget < 1024)
    throw badRequest(
      `thinking.enabled.budget_tokens: Input should be an integer greater than or equal to 1024, but got ${describeValue(budget)}.`,
      'thinking.budget_tokens',
    )
  if (budget >= maxTokens)
    throw badRequest('`max_tokens` must be greater than `thinking.budget_tokens`.', 'max_tokens')
  return true
}

/**
 * With thinking on, an assistant turn that called tools and whose results follow must start with its
 * thinking block, as the API requires (the model's reasoning continues across the tool results).
 */
function checkToolTurnThinking(messages: unknown[]): void {
  const last = messages.length - 1
  for (let i = last; i >= 0; i--) {
    const m = messages[i]
    if (!isRecord(m) || m.role !== 'assistant') continue
    const content = m.content
    if (!Array.isArray(content) || !content.some((b) => isRecord(b) && b.type === 'tool_use')) return
    const first = content[0] as Record<string, unknown>
    if (first.type === 'thinking' || first.type === 'redacted_thinking') return
    throw badRequest(
      `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceding the lastmost set of \`tool_use\` and \`tool_result\` blocks). Include the thinking blocks of the previous turn, or disable \`thinking\`.`,
      `messages.${i}.content.0.type`,
    )
  }
}

/** The content block types of `@anthropic-ai/sdk`'s `ContentBlockParam` (what the API accepts). */
const BLOCK_TYPES = [
  'text',
  'image',
  'document',
  'search_result',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'container_upload',
] as const

/** The fields each block type requires, as the API checks them (beyond what the normalizer reads). */
function checkBlock(block: Record<string, unknown>, param: string, allowed: readonly string[]): void {
  const type = block.type as string
  if (!allowed.includes(type)) {
    throw badRequest(
      `${param}: Input tag '${type}' found using 'type' does not match any of the expected tags: ${allowed.map((t) => `'${t}'`).join(', ')}`,
      `${param}.type`,
    )
  }
  switch (type) {
    case 'text':
      if (typeof block.text !== 'string') throw badRequest(`${param}.text: Field required`, `${param}.text`)
      if (block.text === '')
        throw badRequest('messages: text content blocks must be non-empty', `${param}.text`)
      return
    case 'image':
    case 'document':
      if (!isRecord(block.source) || typeof block.source.type !== 'string')
        throw badRequest(`${param}.source: Field required`, `${param}.source`)
      return
    case 'tool_use':
    case 'server_tool_use':
      for (const field of ['id', 'name'] as const) {
        if (typeof block[field] !== 'string' || block[field] === '')
          throw badRequest(`${param}.${field}: Field required`, `${param}.${field}`)
      }
      if (!isRecord(block.input))
        throw badRequest(`${param}.input: Input should be a valid dictionary`, `${param}.input`)
      return
  }
}

/** The text of an Anthropic `content` (a string or blocks); tool blocks are handled by the caller. */
function blocksText(content: unknown, param: string, allowed: readonly string[] = BLOCK_TYPES): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) {
    throw badRequest(
      `${param}: Input should be a valid string or a list of content blocks, but got ${describeValue(content)}.`,
      param,
    )
  }
  const texts: string[] = []
  content.forEach((block, i) => {
    if (!isRecord(block) || typeof block.type !== 'string')
      throw badRequest(`${param}.${i}: each content block must be an object with a type.`, `${param}.${i}`)
    checkBlock(block, `${param}.${i}`, allowed)
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text)
  })
  return texts.join('\n')
}

/**
 * The API's pairing rule: every `tool_use` of an assistant turn has its `tool_result` in the next
 * message, and every `tool_result` answers a `tool_use` of the message before it.
 */
function checkToolPairing(messages: readonly unknown[]): void {
  const idsOf = (message: unknown, type: 'tool_use' | 'tool_result') => {
    const content = isRecord(message) ? message.content : undefined
    if (!Array.isArray(content)) return []
    return content
      .filter((block) => isRecord(block) && block.type === type)
      .map((block) => String(type === 'tool_use' ? block.id : block.tool_use_id))
  }
  messages.forEach((message, i) => {
    const results = idsOf(message, 'tool_result')
    if (results.length > 0) {
      const calls = new Set(i > 0 ? idsOf(messages[i - 1], 'tool_use') : [])
      const unexpected = results.filter((id) => !calls.has(id))
      if (unexpected.length > 0)
        throw badRequest(
          `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected.join(', ')}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          `messages.${i}.content`,
        )
    }
    const calls = idsOf(message, 'tool_use')
    if (calls.length > 0 && i + 1 < messages.length) {
      const answered = new Set(idsOf(messages[i + 1], 'tool_result'))
      const missing = calls.filter((id) => !answered.has(id))
      if (missing.length > 0)
        throw badRequest(
          `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
          `messages.${i + 1}`,
        )
    }
  })
}

/** What a `tool_result`'s content may hold. */
const RESULT_BLOCK_TYPES = ['text', 'image', 'document', 'search_result'] as const

function messagesOf(value: unknown): NormalizedMessage[] {
  if (!Array.isArray(value) || value.length === 0)
    throw badRequest(
      `messages: Field required: a non-empty list of messages, but got ${describeValue(value)}.`,
      'messages',
    )
  const out: NormalizedMessage[] = []
  value.forEach((m, i) => {
    const param = `messages.${i}`
    if (!isRecord(m) || (m.role !== 'user' && m.role !== 'assistant')) {
      throw badRequest(
        `${param}.role: Input should be 'user' or 'assistant', but got ${describeValue(isRecord(m) ? m.role : m)}.`,
        `${param}.role`,
      )
    }
    const text = blocksText(m.content, `${param}.content`)
    const blocks = Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : []
    const final = i === value.length - 1 && m.role === 'assistant'
    const empty = m.content === '' || (Array.isArray(m.content) && m.content.length === 0)
    if (!final && empty)
      throw badRequest(
        `${param}: all messages must have non-empty content except for the optional final assistant message`,
        `${param}.content`,
      )
    if (m.role === 'assistant') {
      const toolCalls: NormalizedToolCall[] = []
      let callText = ''
      for (const [j, block] of blocks.entries()) {
        if (block.type === 'thinking' || block.type === 'redacted_thinking') {
          checkThinkingBlock(block, `${param}.content.${j}`)
          continue
        }
        if (block.type !== 'tool_use') continue
        const call = {
          id: textOf(block.id),
          name: textOf(block.name),
          arguments: JSON.stringify(block.input ?? {}) ?? '{}',
        }
        toolCalls.push(call)
        callText += `${call.name}(${call.arguments})`
      }
      out.push(
        toolCalls.length
          ? { role: 'assistant', text: text + callText, toolCalls }
          : { role: 'assistant', text },
      )
      return
    }
    for (const [j, block] of blocks.entries()) {
      if (block.type !== 'tool_result') continue
      if (typeof block.tool_use_id !== 'string')
        throw badRequest(
          `${param}.content.${j}.tool_use_id: Field required.`,
          `${param}.content.${j}.tool_use_id`,
        )
      const output =
        block.content === undefined
          ? ''
          : blocksText(block.content, `${param}.content.${j}.content`, RESULT_BLOCK_TYPES)
      out.push({ role: 'tool', text: output, toolCallId: block.tool_use_id })
    }
    if (text !== '' || !blocks.some((b) => b.type === 'tool_result')) out.push({ role: 'user', text })
  })
  return out
}

function toolsOf(value: unknown): NormalizedTool[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value))
    throw badRequest(`tools: Input should be a valid list, but got ${describeValue(value)}.`, 'tools')
  const names = new Set<string>()
  return value.map((tool, i) => {
    const param = `tools.${i}`
    if (!isRecord(tool) || (tool.type !== undefined && tool.type !== null && tool.type !== 'custom')) {
      throw badRequest(
        `${param}: MockGPT supports custom tools ({ name, description?, input_schema }) only, but got type ${describeValue(isRecord(tool) ? tool.type : tool)}.`,
        param,
      )
    }
    const name = tool.name
    if (typeof name !== 'string' || !/^[a-zA-Z0-9_-]{1,128}$/.test(name))
      throw badRequest(
        `${param}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$', but got ${describeValue(name)}.`,
        `${param}.name`,
      )
    if (names.has(name))
      throw badRequest(`tools: Tool names must be unique ("${name}" repeats).`, `${param}.name`)
    names.add(name)
    if (tool.input_schema === undefined)
      throw badRequest(`${param}.input_schema: Field required.`, `${param}.input_schema`)
    if (!isRecord(tool.input_schema) || tool.input_schema.type !== 'object')
      throw badRequest(
        `${param}.custom.input_schema.type: Input should be 'object', but got ${describeValue(isRecord(tool.input_schema) ? tool.input_schema.type : tool.input_schema)}.`,
        `${param}.input_schema.type`,
      )
    const { schema, validator } = compileRequestSchema(tool.input_schema, `${param}.input_schema`)
    return { name, parameters: schema, validator }
  })
}

function toolChoiceOf(value: unknown, tools: readonly NormalizedTool[]): NormalizedRequest['toolChoice'] {
  if (value === undefined || value === null) return 'auto'
  if (!isRecord(value))
    throw badRequest(
      `tool_choice: Input should be an object, but got ${describeValue(value)}.`,
      'tool_choice',
    )
  switch (value.type) {
    case 'auto':
      return 'auto'
    case 'none':
      return 'none'
    case 'any':
      if (tools.length === 0) throw badRequest('tool_choice: "any" needs tools.', 'tool_choice')
      return 'required'
    case 'tool': {
      const name = value.name
      if (typeof name !== 'string' || !tools.some((t) => t.name === name))
        throw badRequest(
          `tool_choice.name: ${describeValue(name)} names no offered tool (${tools.map((t) => t.name).join(', ') || 'none'}).`,
          'tool_choice.name',
        )
      return { name }
    }
    default:
      throw badRequest(
        `tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none', but got ${describeValue(value.type)}.`,
        'tool_choice.type',
      )
  }
}

function formatOf(body: Record<string, unknown>): NormalizedFormat {
  const config = body.output_config
  const format = isRecord(config) ? config.format : undefined
  if (format === undefined || format === null) return { type: 'text' }
  if (!isRecord(format) || format.type !== 'json_schema')
    throw badRequest(
      `output_config.format: only { type: 'json_schema', schema } is supported, but got ${describeValue(format)}.`,
      'output_config.format',
    )
  const { schema, validator } = compileRequestSchema(format.schema, 'output_config.format.schema')
  assertGeneratable(
    schema,
    'output_config.format.schema',
    'Simplify the schema, or script the answer with a { type: "json", value } reply.',
  )
  return { type: 'json_schema', name: 'output', schema, validator }
}

/** Validates and normalizes a `POST /v1/messages` (Anthropic Messages API) body. */
export function normalizeMessagesRequest(body: Record<string, unknown>): NormalizedRequest {
  const model = body.model
  if (typeof model !== 'string' || model === '')
    throw badRequest(`model: Field required (a non-empty string), but got ${describeValue(model)}.`, 'model')
  const maxTokens = body.max_tokens
  if (typeof maxTokens !== 'number' || !Number.isSafeInteger(maxTokens))
    throw badRequest(
      `max_tokens: Field required (an integer of at least 1), but got ${describeValue(maxTokens)}.`,
      'max_tokens',
    )
  if (maxTokens < 1) throw badRequest(`max_tokens: Input should be greater than or equal to 1`, 'max_tokens')
  const messages = messagesOf(body.messages)
  checkToolPairing(body.messages as unknown[])
  const metadata = body.metadata
  if (isRecord(metadata)) {
    for (const key of Object.keys(metadata)) {
      if (key !== 'user_id')
        throw badRequest(`metadata.${key}: Extra inputs are not permitted`, `metadata.${key}`)
    }
    if (metadata.user_id !== undefined && metadata.user_id !== null && typeof metadata.user_id !== 'string')
      throw badRequest(`metadata.user_id: Input should be a valid string`, 'metadata.user_id')
  }
  if (checkThinking(body.thinking, maxTokens)) checkToolTurnThinking(body.messages as unknown[])
  const system = body.system
  if (system !== undefined && system !== null) {
    const text = blocksText(system, 'system', ['text'])
    if (text !== '') messages.unshift({ role: 'system', text })
  }
  const stop = body.stop_sequences
  if (
    stop !== undefined &&
    stop !== null &&
    (!Array.isArray(stop) || stop.some((s) => typeof s !== 'string'))
  )
    throw badRequest(
      `stop_sequences: Input should be a list of strings, but got ${describeValue(stop)}.`,
      'stop_sequences',
    )
  const tools = toolsOf(body.tools)
  const choice = body.tool_choice
  return finish({
    endpoint: 'messages',
    model,
    stream: body.stream === true,
    includeUsage: true,
    messages,
    tools,
    toolChoice: toolChoiceOf(choice, tools),
    parallelToolCalls: !(isRecord(choice) && choice.disable_parallel_tool_use === true),
    format: formatOf(body),
    maxOutputTokens: maxTokens,
    stop: ((stop as string[] | undefined) ?? []).filter((s) => s !== ''),
    seed: undefined,
    body,
    promptCache: planPromptCache(body, model),
  })
}
