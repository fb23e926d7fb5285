import { describeValue, refuseField } from '@agent-core/core'
import type { JsonValue, ToolTemplateAnswer, ToolTemplateInput } from '@agent-core/kits/tools'
import { McpToolError } from './mcp-errors.js'

/**
 * Hints a server attaches to a content part (who it is for, how important it is).
 * @example
 * ```ts
 * import type { McpAnnotations } from '@agent-core/kits/mcp'
 * const forTheUser: McpAnnotations = { audience: ['user'], priority: 0.2 }
 * ```
 */
export interface McpAnnotations {
  readonly audience?: readonly ('user' | 'assistant')[] | undefined
  readonly priority?: number | undefined
  readonly lastModified?: string | undefined
}

/**
 * The contents of a resource: text, or binary data as base64.
 * @example
 * ```ts
 * import type { McpResourceContents } from '@agent-core/kits/mcp'
 * const readme: McpResourceContents = { uri: 'file:///README.md', mimeType: 'text/markdown', text: '# Hello' }
 * ```
 */
export type McpResourceContents =
  | { readonly uri: string; readonly mimeType?: string | undefined; readonly text: string }
  | { readonly uri: string; readonly mimeType?: string | undefined; readonly blob: string }

/**
 * One typed part of what an MCP tool answered: text, an image or audio clip (base64), an embedded
 * resource, or a link to a resource the server can read.
 * @example
 * ```ts
 * import type { McpContent } from '@agent-core/kits/mcp'
 * const texts = (parts: readonly McpContent[]) => parts.flatMap((part) => (part.type === 'text' ? [part.text] : []))
 * ```
 */
export type McpContent =
  | { readonly type: 'text'; readonly text: string; readonly annotations?: McpAnnotations | undefined }
  | {
      readonly type: 'image' | 'audio'
      /** base64 */
      readonly data: string
      readonly mimeType: string
      readonly annotations?: McpAnnotations | undefined
    }
  | {
      readonly type: 'resource'
      readonly resource: McpResourceContents
      readonly annotations?: McpAnnotations | undefined
    }
  | {
      readonly type: 'resource_link'
      readonly uri: string
      readonly name: string
      readonly title?: string | undefined
      readonly description?: string | undefined
      readonly mimeType?: string | undefined
      readonly size?: number | undefined
      readonly annotations?: McpAnnotations | undefined
    }

/**
 * The output of every MCP tool: its content as typed parts and, when the tool declares an output schema,
 * the `structuredContent` it returned (checked against that schema). Plain JSON, so a stored call keeps it.
 * @example
 * ```ts
 * import type { McpToolResult } from '@agent-core/kits/mcp'
 * const temperature = (result: McpToolResult<{ temperature: number }>) => result.structuredContent?.temperature
 * ```
 */
export interface McpToolResult<Structured = { readonly [key: string]: JsonValue }> {
  readonly content: readonly McpContent[]
  readonly structuredContent?: Structured | undefined
}

function size(base64: string): string {
  const bytes = Math.floor((base64.replace(/=+$/, '').length * 3) / 4)
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KB`
}

function renderPart(part: McpContent): string {
  switch (part.type) {
    case 'text':
      return part.text
    case 'image':
    case 'audio':
      return `[${part.type}: ${part.mimeType}, ${size(part.data)}]`
    case 'resource': {
      const { resource } = part
      const mime = resource.mimeType === undefined ? '' : ` (${resource.mimeType})`
      return 'text' in resource
        ? `[resource ${resource.uri}${mime}]\n${resource.text}`
        : `[resource ${resource.uri}${mime}: ${size(resource.blob)} of binary data]`
    }
    case 'resource_link': {
      const about = part.description === undefined ? '' : `: ${part.description}`
      return `[resource link: ${part.title ?? part.name} <${part.uri}>${about}]`
    }
  }
}

/**
 * The text a model reads for an MCP tool's result: text parts as they are, an embedded text resource
 * under its URI, a line that names each image, audio clip, binary resource and resource link, and the
 * structured content as JSON when no part is text. Tool messages are text, so binary parts are described,
 * not sent.
 * @example
 * ```ts
 * import { renderMcpResult } from '@agent-core/kits/mcp'
 * renderMcpResult({ content: [{ type: 'text', text: 'Sunny, 21 °C' }] }) // 'Sunny, 21 °C'
 * ```
 */
export function renderMcpResult(result: McpToolResult<unknown>): string {
  if (!isMcpToolResult(result)) {
    refuseField(
      'input',
      'result',
      `must be an MCP tool result { content: [...parts], structuredContent? }, but got ${describeValue(result)}`,
      result,
      { prefix: 'renderMcpResult: ' },
    )
  }
  const lines = result.content.map(renderPart)
  const hasText = result.content.some(
    (part) => part.type === 'text' || (part.type === 'resource' && 'text' in part.resource),
  )
  if (!hasText && result.structuredContent !== undefined) lines.push(JSON.stringify(result.structuredContent))
  return lines.length === 0 ? '(the tool returned no content)' : lines.join('\n')
}

/** True for the output of an MCP tool (an object with a `content` array). */
export function isMcpToolResult(value: unknown): value is McpToolResult<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { content?: unknown }).content) &&
    (value as { content: unknown[] }).content.every(
      (part) =>
        typeof part === 'object' && part !== null && typeof (part as { type?: unknown }).type === 'string',
    )
  )
}

/**
 * A template provider of the tools kit for MCP tool calls: a completed call reads as
 * {@link renderMcpResult} of its result, a call whose tool reported an error (`isError`, an
 * {@link McpToolError}) reads as the tool's own text, marked as an error; everything else passes on.
 * MCP lifecycles (`connection.lifecycles()`) carry it already; add it to a registry's `templates` (or an
 * agent's) when you register MCP tools yourself.
 * @example
 * ```ts
 * import { mcpResultTemplate } from '@agent-core/kits/mcp'
 * import { ToolLifecycleRegistry, defineToolLifecycle } from '@agent-core/kits/tools'
 * import type { McpConnection } from '@agent-core/kits/mcp'
 * declare const connection: McpConnection
 * const registry = ToolLifecycleRegistry.create(connection.tools.map((tool) => defineToolLifecycle(tool)), {
 *   templates: [mcpResultTemplate],
 * })
 * ```
 */
export function mcpResultTemplate(input: ToolTemplateInput): ToolTemplateAnswer {
  if (typeof input !== 'object' || input === null) {
    refuseField(
      'input',
      'input',
      `must be the template input of a settled call, but got ${describeValue(input)}`,
      input,
      { prefix: 'mcpResultTemplate: ' },
    )
  }
  if (input.status === 'completed' && isMcpToolResult(input.output)) {
    return { content: renderMcpResult(input.output), isError: false }
  }
  if (input.status === 'failed' && McpToolError.isInstance(input.error)) {
    return { content: renderMcpResult({ content: input.error.details.content }), isError: true }
  }
  return undefined
}
