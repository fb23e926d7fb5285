import {
  assertBoolean,
  canonicalJson,
  DuplicateIdError,
  describeValue,
  formatSchemaIssues,
  type JsonSchema,
  type JsonSchemaValidator,
  refuseField,
} from '@agent-core/core'
import {
  compileJsonSchema,
  defineModelTool,
  TOOL_ID_PATTERN,
  type ToolExecutionContext,
} from '@agent-core/core/tools'
import { CallToolResultSchema, ResultSchema, ToolSchema } from '@modelcontextprotocol/sdk/types.js'
import type { McpToolAnnotations, McpToolDescriptor } from '../connection-options.js'
import { type McpContent, type McpToolResult, renderMcpResult } from '../mcp-content.js'
import { McpLimitError, McpProtocolError, McpSchemaError, McpToolError } from '../mcp-errors.js'
import { MCP_TOOL_MARKER, type McpModelTool, type McpSkippedTool, type McpToolInfo } from '../mcp-tool.js'
import { mcpToolId } from '../tool-id.js'
import { issueLines } from './errors.js'
import { depthOf, jsonBytes, safeRegExp } from './limits.js'
import type { ParsedConnectionOptions } from './options.js'
import type { Session } from './session.js'

/** A listed tool with the fingerprint of its description, so an unchanged tool keeps its object. */
export interface ListedTool {
  readonly tool: McpModelTool
  readonly fingerprint: string
}

export interface ToolListing {
  readonly tools: ReadonlyMap<string, ListedTool>
  readonly skipped: readonly McpSkippedTool[]
}

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T
}

/** Lists every page of the server's tools (a cursor seen twice is a protocol error, not a loop). */
async function listPages(session: Session, signal: AbortSignal | undefined): Promise<unknown[]> {
  const raw: unknown[] = []
  const seen = new Set<string>()
  let cursor: string | undefined
  do {
    const params = cursor === undefined ? {} : { cursor }
    const page = await session.request(
      'tools/list',
      (options) => session.client.request({ method: 'tools/list', params }, ResultSchema, options),
      { signal, timeoutMs: session.requestTimeoutMs },
    )
    const { tools, nextCursor } = page as { tools?: unknown; nextCursor?: unknown }
    if (!Array.isArray(tools)) {
      throw new McpProtocolError(
        `MCP server "${session.server}" answered tools/list without a tools array (got ${describeValue(tools)}). The server is at fault; fix or update it.`,
        { details: { server: session.server, method: 'tools/list', problems: ['tools: expected an array'] } },
      )
    }
    raw.push(...tools)
    if (nextCursor !== undefined && typeof nextCursor !== 'string') {
      throw new McpProtocolError(
        `MCP server "${session.server}" answered tools/list with a nextCursor that is not a string (${describeValue(nextCursor)}).`,
        {
          details: {
            server: session.server,
            method: 'tools/list',
            problems: ['nextCursor: expected a string'],
          },
        },
      )
    }
    cursor = nextCursor
    if (cursor !== undefined) {
      if (seen.has(cursor)) {
        throw new McpProtocolError(
          `MCP server "${session.server}" answered tools/list with the cursor ${JSON.stringify(cursor)} twice; its pagination loops. Fix the server.`,
          { details: { server: session.server, method: 'tools/list', problems: ['nextCursor repeats'] } },
        )
      }
      seen.add(cursor)
    }
  } while (cursor !== undefined)
  return raw
}

function schemaError(
  server: string,
  tool: string,
  field: string,
  problem: string,
  options: {
    received?: string
    problems?: readonly string[]
    cause?: unknown
  } = {},
): McpSchemaError {
  return new McpSchemaError(
    `Tool "${tool}" of MCP server "${server}" cannot be offered to a model: ${field} ${problem}. Fix the server's tool description, or leave the tool out (connection option filter, or invalidTools: "skip").`,
    {
      cause: options.cause,
      details: definedOnly({
        server,
        tool,
        field,
        method: 'tools/list',
        received: options.received,
        problems: options.problems,
      }),
    },
  )
}

function descriptorOf(raw: Record<string, unknown>, name: string): McpToolDescriptor {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined)
  const annotations = raw.annotations
  return Object.freeze(
    definedOnly({
      name,
      title: text(raw.title),
      description: text(raw.description),
      annotations:
        typeof annotations === 'object' && annotations !== null && !Array.isArray(annotations)
          ? (annotations as McpToolAnnotations)
          : undefined,
    }),
  )
}

/** Refuses a schema past the connection's bounds before anything parses or compiles it. */
function checkSchemaBounds(session: Session, tool: string, field: string, schema: unknown): void {
  if (schema === undefined) return
  const { maxSchemaDepth, maxSchemaBytes } = session.limits
  const depth = depthOf(schema, maxSchemaDepth)
  const size = depth > maxSchemaDepth ? 0 : jsonBytes(schema)
  if (depth <= maxSchemaDepth && size <= maxSchemaBytes) return
  const limit = depth > maxSchemaDepth ? 'maxSchemaDepth' : 'maxSchemaBytes'
  const bound = limit === 'maxSchemaDepth' ? maxSchemaDepth : maxSchemaBytes
  const received = limit === 'maxSchemaDepth' ? `more than ${maxSchemaDepth} levels deep` : `${size} bytes`
  throw new McpLimitError(
    `Tool "${tool}" of MCP server "${session.server}" cannot be offered to a model: its ${field} is ${received}, past this connection's limits.${limit} (${bound}). Leave the tool out (filter, or invalidTools: "skip"), or raise limits.${limit} if you trust the server.`,
    { details: { server: session.server, method: 'tools/list', tool, field, limit, bound, received } },
  )
}

function compile(server: string, tool: string, field: string, schema: JsonSchema): JsonSchemaValidator {
  try {
    // Server patterns run on RE2 (linear time); a pattern only a backtracking engine runs is refused.
    return compileJsonSchema(schema, `Tool "${tool}" of MCP server "${server}" ${field}`, {
      regExp: safeRegExp,
    })
  } catch (error) {
    throw schemaError(server, tool, field, `is not a valid JSON Schema (${(error as Error).message})`, {
      cause: error,
    })
  }
}

/** Lists the server's tools and turns each into a model tool; unchanged tools keep their objects. */
export async function listTools(
  session: Session,
  options: ParsedConnectionOptions,
  previous: ReadonlyMap<string, ListedTool>,
  signal?: AbortSignal,
): Promise<ToolListing> {
  const { server } = session
  const raw = await listPages(session, signal)
  const tools = new Map<string, ListedTool>()
  const origins = new Map<string, string>()
  const skipped: McpSkippedTool[] = []
  for (const [index, entry] of raw.entries()) {
    const name =
      typeof entry === 'object' && entry !== null && typeof (entry as { name?: unknown }).name === 'string'
        ? (entry as { name: string }).name
        : ''
    let listed: ListedTool | undefined
    try {
      if (name === '') {
        throw schemaError(server, `#${index}`, 'name', 'must be a non-empty string', {
          received: describeValue((entry as { name?: unknown } | null)?.name ?? entry),
        })
      }
      const record = entry as Record<string, unknown>
      if (options.filter && !assertBoolean(options.filter(descriptorOf(record, name)), 'options.filter'))
        continue
      checkSchemaBounds(session, name, 'inputSchema', record.inputSchema)
      checkSchemaBounds(session, name, 'outputSchema', record.outputSchema)
      const parsed = ToolSchema.safeParse(record)
      if (!parsed.success) {
        const problems = issueLines(parsed.error) ?? ['is malformed']
        const field = String(parsed.error.issues[0]?.path[0] ?? 'description')
        const received = describeValue(record[field])
        const problem =
          field === 'inputSchema' || field === 'outputSchema'
            ? `is not a JSON Schema of an object (${problems.join('; ')})`
            : `is malformed (${problems.join('; ')})`
        throw schemaError(server, name, field, problem, { received, problems })
      }
      const tool = parsed.data
      if (tool.execution?.taskSupport === 'required') {
        skipped.push(
          Object.freeze({
            name,
            reason: 'it requires task-based execution, which this client does not support',
          }),
        )
        session.diagnostics.emit('mcp-tool-skipped', { server, tool: name, reason: 'task-required' }, 'warn')
        continue
      }
      const id = options.toolId ? ownId(options, server, name) : mcpToolId(server, name, options.separator)
      const earlier = origins.get(id)
      if (earlier !== undefined) {
        throw new DuplicateIdError(
          `MCP server "${server}" lists tools "${earlier}" and "${name}", which both become the tool id "${id}". Give them distinct ids with the connection option toolId, or leave one out with filter.`,
          { details: { id, kind: 'tool', server, tools: [earlier, name] } },
        )
      }
      origins.set(id, name)
      const info: McpToolInfo = Object.freeze(
        definedOnly({
          server,
          name,
          title: tool.title,
          description: tool.description,
          annotations: tool.annotations === undefined ? undefined : Object.freeze({ ...tool.annotations }),
          inputSchema: tool.inputSchema as JsonSchema,
          outputSchema: tool.outputSchema as JsonSchema | undefined,
        }),
      )
      const fingerprint = canonicalJson({ id, info })
      const before = previous.get(id)
      if (before !== undefined && before.fingerprint === fingerprint) {
        listed = before
      } else {
        compile(server, name, 'inputSchema', info.inputSchema)
        const output =
          info.outputSchema === undefined
            ? undefined
            : compile(server, name, 'outputSchema', info.outputSchema)
        listed = { tool: buildTool(session, id, info, output), fingerprint }
      }
    } catch (error) {
      if (
        options.invalidTools === 'skip' &&
        (McpSchemaError.isInstance(error) || McpLimitError.isInstance(error))
      ) {
        skipped.push(Object.freeze({ name: name || `#${index}`, reason: error.message, error }))
        session.diagnostics.emit(
          'mcp-tool-skipped',
          { server, tool: name || `#${index}`, reason: error.message },
          'warn',
        )
        continue
      }
      throw error
    }
    tools.set(listed.tool.id, listed)
  }
  return { tools, skipped: Object.freeze(skipped) }
}

function ownId(options: ParsedConnectionOptions, server: string, name: string): string {
  const id: unknown = (options.toolId as (tool: { server: string; name: string }) => unknown)(
    Object.freeze({ server, name }),
  )
  if (typeof id !== 'string' || !TOOL_ID_PATTERN.test(id)) {
    refuseField(
      'output',
      'options.toolId',
      `answered ${describeValue(id)} for tool "${name}" of MCP server "${server}"; a tool id is 1 to 64 letters, digits, "_" or "-"`,
      id,
      { details: { hook: 'options.toolId' } },
    )
  }
  return id
}

function buildTool(
  session: Session,
  id: string,
  info: McpToolInfo,
  output: JsonSchemaValidator | undefined,
): McpModelTool {
  const tool = {
    id,
    description: info.description ?? info.title ?? info.annotations?.title ?? '',
    inputSchema: info.inputSchema,
    mcp: info,
    execute: (input: unknown, context: ToolExecutionContext) =>
      callTool(session, id, info, output, input, context),
  }
  Object.defineProperty(tool, MCP_TOOL_MARKER, { value: true })
  defineModelTool(tool)
  return Object.freeze(tool) as McpModelTool
}

function toContent(part: Record<string, unknown>): McpContent {
  const annotations = part.annotations === undefined ? {} : { annotations: part.annotations }
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text as string, ...annotations } as McpContent
    case 'image':
    case 'audio':
      return {
        type: part.type,
        data: part.data as string,
        mimeType: part.mimeType as string,
        ...annotations,
      } as McpContent
    case 'resource': {
      const resource = part.resource as Record<string, unknown>
      const body =
        typeof resource.text === 'string' ? { text: resource.text } : { blob: resource.blob as string }
      return {
        type: 'resource',
        resource: definedOnly({
          uri: resource.uri as string,
          mimeType: resource.mimeType as string | undefined,
          ...body,
        }),
        ...annotations,
      } as McpContent
    }
    default:
      return definedOnly({
        type: 'resource_link',
        uri: part.uri as string,
        name: part.name as string,
        title: part.title as string | undefined,
        description: part.description as string | undefined,
        mimeType: part.mimeType as string | undefined,
        size: part.size as number | undefined,
        ...annotations,
      }) as McpContent
  }
}

/** One MCP progress notification as a progress report: its message, `progress / total` as the ratio. */
function reportMcpProgress(
  context: ToolExecutionContext,
  progress: { progress: number; total?: number | undefined; message?: string | undefined },
): void {
  const { total } = progress
  const ratio =
    total !== undefined && total > 0 && Number.isFinite(progress.progress)
      ? Math.min(1, Math.max(0, progress.progress / total))
      : undefined
  context.progress?.({
    ...(progress.message === undefined ? {} : { message: progress.message }),
    ...(ratio === undefined ? {} : { ratio }),
    data: total === undefined ? { progress: progress.progress } : { progress: progress.progress, total },
  })
}

async function callTool(
  session: Session,
  toolId: string,
  info: McpToolInfo,
  output: JsonSchemaValidator | undefined,
  input: unknown,
  context: ToolExecutionContext,
): Promise<McpToolResult> {
  const { server } = session
  const where = { server, tool: info.name, toolId }
  const span = context.diagnostics.span('mcp-call', where)
  try {
    const answer = await session.request(
      'tools/call',
      (options) =>
        session.client.callTool(
          { name: info.name, arguments: input as Record<string, unknown> },
          CallToolResultSchema,
          // The server's progress notifications become the call's progress reports (tool-progress events).
          { ...options, onprogress: (progress) => reportMcpProgress(context, progress) },
        ),
      { signal: context.signal, timeoutMs: session.callTimeoutMs, tool: info.name, toolId },
    )
    const { maxResultBytes } = session.limits
    const size = jsonBytes({ content: answer.content, structuredContent: answer.structuredContent })
    if (size > maxResultBytes) {
      throw new McpLimitError(
        `Tool "${info.name}" of MCP server "${server}" returned ${size} bytes, more than this connection accepts (limits.maxResultBytes ${maxResultBytes}); the result was dropped. Ask for less (a narrower query, a page), or raise limits.maxResultBytes.`,
        {
          details: {
            ...where,
            method: 'tools/call',
            limit: 'maxResultBytes',
            bound: maxResultBytes,
            received: `${size} bytes`,
          },
        },
      )
    }
    const content = Object.freeze(
      ((answer.content ?? []) as Record<string, unknown>[]).map((part) => Object.freeze(toContent(part))),
    )
    const structured = answer.structuredContent as McpToolResult['structuredContent']
    const result: McpToolResult =
      structured === undefined ? { content } : { content, structuredContent: structured }
    if (answer.isError === true) {
      throw new McpToolError(
        `Tool "${info.name}" of MCP server "${server}" reported an error: ${renderMcpResult(result)}`,
        { details: { server, method: 'tools/call', tool: info.name, toolId, content } },
      )
    }
    if (output) {
      const details = { server, tool: info.name, toolId, field: 'structuredContent' }
      if (structured === undefined) {
        refuseField(
          'output',
          'structuredContent',
          'is missing, though the tool declares an output schema. The server is at fault; fix it or report it',
          structured,
          { prefix: `Tool "${info.name}" of MCP server "${server}": `, details },
        )
      }
      const checked = output.validate(structured)
      if (!checked.ok) {
        refuseField(
          'output',
          'structuredContent',
          `that does not match its output schema: ${formatSchemaIssues(checked.issues)}`,
          structured,
          {
            prefix: `Tool "${info.name}" of MCP server "${server}" returned `,
            details: { ...details, issues: checked.issues },
          },
        )
      }
    }
    span.end('ok', { ...where, content: content.length, structured: structured !== undefined })
    return Object.freeze(result)
  } catch (error) {
    span.fail(error, where)
    throw error
  }
}
