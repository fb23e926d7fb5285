/**
 * The reverse mapping: an AI SDK call (`LanguageModelV4CallOptions`) as a core `ModelRequest`, for an
 * agent-core `ChatModel` served as an AI SDK model. What core cannot say becomes an `unsupported` warning
 * (sampling settings core has no field for, provider tools) or an `UnsupportedFunctionalityError` (files
 * other than images).
 */
import type { ChatMessage, ContentPart, ModelRequest, ToolCall, ToolSpec } from '@agent-core/core'
import {
  type LanguageModelV4CallOptions,
  type LanguageModelV4FilePart,
  type LanguageModelV4Prompt,
  type LanguageModelV4ToolResultOutput,
  type SharedV4Warning,
  UnsupportedFunctionalityError,
} from '@ai-sdk/provider'

function base64Of(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary)
}

function imageOf(part: LanguageModelV4FilePart): ContentPart {
  if (!part.mediaType.startsWith('image/')) {
    throw new UnsupportedFunctionalityError({
      functionality: `file parts of media type ${part.mediaType} (an agent-core ChatModel takes text and images)`,
    })
  }
  const data = part.data
  if (data.type === 'url') return { type: 'image', url: data.url.toString() }
  if (data.type === 'data') {
    const payload = typeof data.data === 'string' ? data.data : base64Of(data.data)
    const mediaType = part.mediaType === 'image/*' ? 'image/png' : part.mediaType
    return { type: 'image', url: `data:${mediaType};base64,${payload}` }
  }
  throw new UnsupportedFunctionalityError({
    functionality: `file parts given as ${data.type} (an agent-core ChatModel takes image URLs and inline data)`,
  })
}

function outputText(output: LanguageModelV4ToolResultOutput): { content: string; isError: boolean } {
  switch (output.type) {
    case 'text':
      return { content: output.value, isError: false }
    case 'json':
      return { content: JSON.stringify(output.value), isError: false }
    case 'error-text':
      return { content: output.value, isError: true }
    case 'error-json':
      return { content: JSON.stringify(output.value), isError: true }
    case 'execution-denied':
      return { content: output.reason ?? 'The tool call was denied.', isError: true }
    case 'content':
      return {
        content: output.value.map((item) => (item.type === 'text' ? item.text : '')).join(''),
        isError: false,
      }
  }
}

function messagesOf(prompt: LanguageModelV4Prompt): ChatMessage[] {
  const messages: ChatMessage[] = []
  for (const message of prompt) {
    switch (message.role) {
      case 'system':
        messages.push({ role: 'system', content: message.content })
        break
      case 'user': {
        const parts = message.content.map((part) =>
          part.type === 'text' ? { type: 'text' as const, text: part.text } : imageOf(part),
        )
        const plain = parts.every((part) => part.type === 'text')
        messages.push({
          role: 'user',
          content: plain ? parts.map((part) => (part as { text: string }).text).join('') : parts,
        })
        break
      }
      case 'assistant': {
        let content = ''
        let thinking = ''
        const toolCalls: ToolCall[] = []
        const results: ChatMessage[] = []
        for (const part of message.content) {
          if (part.type === 'text') content += part.text
          else if (part.type === 'reasoning') thinking += part.text
          else if (part.type === 'tool-call')
            toolCalls.push({
              id: part.toolCallId,
              name: part.toolName,
              arguments: typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {}),
            })
          else if (part.type === 'tool-result') {
            const { content: text, isError } = outputText(part.output)
            results.push({
              role: 'tool',
              toolCallId: part.toolCallId,
              content: text,
              ...(isError ? { isError } : {}),
            })
          }
        }
        messages.push({
          role: 'assistant',
          content,
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
          ...(thinking !== '' ? { thinking } : {}),
        })
        messages.push(...results)
        break
      }
      case 'tool':
        for (const part of message.content) {
          if (part.type !== 'tool-result') continue
          const { content, isError } = outputText(part.output)
          messages.push({
            role: 'tool',
            toolCallId: part.toolCallId,
            content,
            ...(isError ? { isError } : {}),
          })
        }
        break
    }
  }
  return messages
}

const UNSUPPORTED_SETTINGS = ['topP', 'topK', 'presencePenalty', 'frequencyPenalty'] as const

/** The core request for an AI SDK call, and the warnings for what it could not carry. */
export function requestOf(options: LanguageModelV4CallOptions): {
  readonly request: ModelRequest
  readonly warnings: SharedV4Warning[]
} {
  const warnings: SharedV4Warning[] = []
  for (const setting of UNSUPPORTED_SETTINGS) {
    if (options[setting] !== undefined)
      warnings.push({
        type: 'unsupported',
        feature: setting,
        details: 'an agent-core ChatModel has no such setting',
      })
  }
  const tools: ToolSpec[] = []
  for (const tool of options.tools ?? []) {
    if (tool.type === 'function')
      tools.push({
        name: tool.name,
        description: tool.description ?? '',
        parameters: tool.inputSchema as ToolSpec['parameters'],
      })
    else warnings.push({ type: 'unsupported', feature: `provider tool ${tool.id}` })
  }
  const choice = options.toolChoice
  const format = options.responseFormat
  const request: ModelRequest = {
    messages: messagesOf(options.prompt),
    ...(tools.length > 0 ? { tools } : {}),
    ...(choice === undefined
      ? {}
      : { toolChoice: choice.type === 'tool' ? { name: choice.toolName } : choice.type }),
    ...(format === undefined
      ? {}
      : {
          responseFormat:
            format.type === 'text'
              ? { type: 'text' as const }
              : format.schema === undefined
                ? { type: 'json_object' as const }
                : {
                    type: 'json_schema' as const,
                    name: format.name ?? 'response',
                    schema: format.schema as ToolSpec['parameters'],
                  },
        }),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.stopSequences === undefined ? {} : { stop: options.stopSequences }),
  }
  return { request, warnings }
}
