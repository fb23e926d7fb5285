import {
  createId,
  createOperationContext,
  describeValue,
  type JsonSchema,
  type MaybePromise,
  type OperationContext,
  type OperationContextInit,
  refuseField,
} from '@agent-core/core'
import { type ModelTool, modelToolSchemas } from '@agent-core/core/tools'
import type {
  PendingToolCall,
  ToolCallOutcome,
  ToolDecision,
  ToolLifecycle,
  ToolLifecycleRegistry,
} from '@agent-core/kits/tools'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import { isMcpToolResult } from '../mcp-content.js'
import { isMcpModelTool } from '../mcp-tool.js'
import type { McpApprovalAnswer, McpServeRequest } from '../serve-options.js'

export interface ServeSettings<App> {
  readonly name: string
  readonly version: string
  readonly instructions: string | undefined
  readonly approvals:
    | 'refuse'
    | 'elicit'
    | ((call: PendingToolCall, context: OperationContext<App>) => MaybePromise<McpApprovalAnswer>)
  readonly approvalTimeoutMs: number
  readonly context:
    | ((request: McpServeRequest) => OperationContextInit<App>)
    | OperationContextInit<App>
    | undefined
}

/** The input schema a client sees: MCP wants an object schema; `{}` and `true` become `{ type: 'object' }`. */
export function publishedInput(schema: JsonSchema): Tool['inputSchema'] | undefined {
  if (schema === true) return { type: 'object' }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined
  const type = (schema as { type?: unknown }).type
  if (type === 'object') return schema as Tool['inputSchema']
  if (type === undefined) return { ...(schema as object), type: 'object' } as Tool['inputSchema']
  return undefined
}

function publishedOutput(tool: ModelTool<unknown, unknown, unknown>): Tool['outputSchema'] | undefined {
  const schema = isMcpModelTool(tool) ? tool.mcp.outputSchema : modelToolSchemas(tool).output?.jsonSchema
  if (typeof schema !== 'object' || schema === null || (schema as { type?: unknown }).type !== 'object')
    return undefined
  return schema as Tool['outputSchema']
}

/** Refuses, at start, a tool whose input cannot be an MCP tool's (an object). */
export function assertServable(lifecycles: readonly ToolLifecycle<unknown, unknown, unknown>[]): void {
  for (const { tool } of lifecycles) {
    const inputSchema = modelToolSchemas(tool).input.jsonSchema
    if (publishedInput(inputSchema) === undefined) {
      refuseField(
        'definition',
        'inputSchema',
        'does not describe an object (MCP tools take an object of arguments). Give it an object schema, or leave it out of the served registry',
        inputSchema,
        { prefix: `Tool "${tool.id}" cannot be served over MCP: `, details: { id: tool.id } },
      )
    }
  }
}

function describe(registry: ToolLifecycleRegistry<unknown>): Tool[] {
  const tools: Tool[] = []
  for (const { tool } of registry.values()) {
    const inputSchema = publishedInput(modelToolSchemas(tool).input.jsonSchema)
    if (inputSchema === undefined) continue
    const outputSchema = publishedOutput(tool)
    const entry: Tool = { name: tool.id, description: tool.description, inputSchema }
    if (outputSchema !== undefined) entry.outputSchema = outputSchema
    if (isMcpModelTool(tool)) {
      if (tool.mcp.title !== undefined) entry.title = tool.mcp.title
      if (tool.mcp.annotations !== undefined) entry.annotations = { ...tool.mcp.annotations }
    }
    tools.push(entry)
  }
  return tools
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function text(content: string, isError: boolean): CallToolResult {
  return { content: [{ type: 'text', text: content }], ...(isError ? { isError: true } : {}) }
}

/** What the client receives for a settled call (a pending one is handled before). */
function resultOf(
  outcome: Exclude<ToolCallOutcome, { status: 'pending' }>,
  tool: ModelTool<unknown, unknown, unknown>,
): CallToolResult {
  if (outcome.status !== 'completed') return text(outcome.message.content, true)
  const { output } = outcome
  if (isMcpModelTool(tool) && isMcpToolResult(output)) {
    // A tool of another MCP server, served on: its parts and structured content pass through unchanged.
    return {
      content: output.content as CallToolResult['content'],
      ...(output.structuredContent === undefined
        ? {}
        : { structuredContent: output.structuredContent as Record<string, unknown> }),
    }
  }
  const structured =
    publishedOutput(tool) !== undefined && isPlainObject(output) ? { structuredContent: output } : {}
  return { ...text(outcome.message.content, false), ...structured }
}

function notRun(call: PendingToolCall, why: string): CallToolResult {
  return text(
    `The call to ${call.toolId} was not run: it needs approval (${call.reason}) and ${why}. Do not retry it; tell the user that it needs their approval in the application that serves this tool.`,
    true,
  )
}

function readAnswer(answer: unknown, call: PendingToolCall): ToolDecision {
  const value = answer as Partial<{
    type: unknown
    reason: unknown
    instruction: unknown
    by: unknown
  }> | null
  const by = value?.by ?? 'person'
  const fail = (problem: string): never => {
    refuseField(
      'output',
      'options.approvals',
      `answered ${describeValue(answer)} for tool call "${call.toolCallId}": ${problem}. Answer { type: 'approve' } or { type: 'reject', reason }`,
      answer,
      { prefix: 'serveMcp: ', details: { hook: 'options.approvals' } },
    )
  }
  if (typeof value !== 'object' || value === null) return fail('it is not an object')
  if (by !== 'person' && by !== 'policy') return fail('by must be "person" or "policy"')
  const signature = call.signature === undefined ? {} : { signature: call.signature }
  if (value.type === 'approve') return { type: 'approve', toolCallId: call.toolCallId, by, ...signature }
  if (value.type !== 'reject') return fail('type must be "approve" or "reject"')
  if (typeof value.reason !== 'string' || value.reason === '') return fail('a rejection needs a reason')
  if (value.instruction !== undefined && typeof value.instruction !== 'string')
    return fail('instruction must be a string')
  return {
    type: 'reject',
    toolCallId: call.toolCallId,
    by,
    reason: value.reason,
    ...(value.instruction === undefined ? {} : { instruction: value.instruction }),
    ...signature,
  }
}

/** Asks the client's user through MCP elicitation; `undefined` when the client cannot be asked. */
async function elicit(
  server: Server,
  call: PendingToolCall,
  signal: AbortSignal,
  requestId: string | number,
  timeoutMs: number,
): Promise<ToolDecision | string> {
  if (server.getClientCapabilities()?.elicitation?.form === undefined)
    return 'the client cannot ask its user (it does not support elicitation)'
  let answer: { action: string; content?: Record<string, unknown> | undefined }
  try {
    answer = await server.elicitInput(
      {
        mode: 'form',
        message: `${call.reason}\n\nTool: ${call.toolId}\nInput: ${JSON.stringify(call.input)}`,
        requestedSchema: {
          type: 'object',
          properties: {
            approve: {
              type: 'boolean',
              title: 'Approve',
              description: `Run ${call.toolId} with this input?`,
            },
          },
          required: ['approve'],
        },
      },
      { signal, relatedRequestId: requestId, timeout: timeoutMs },
    )
  } catch (error) {
    return `asking the client's user failed (${error instanceof Error ? error.message : String(error)})`
  }
  const signature = call.signature === undefined ? {} : { signature: call.signature }
  if (answer.action === 'accept' && answer.content?.approve === true)
    return { type: 'approve', toolCallId: call.toolCallId, by: 'person', ...signature }
  const reason =
    answer.action === 'cancel'
      ? 'The person dismissed the approval request without deciding.'
      : 'The person declined to approve the call.'
  return { type: 'reject', toolCallId: call.toolCallId, by: 'person', reason, ...signature }
}

function requestContext<App>(
  settings: ServeSettings<App>,
  request: McpServeRequest,
  signal: AbortSignal,
): OperationContext<App> {
  const given = typeof settings.context === 'function' ? settings.context(request) : (settings.context ?? {})
  if (typeof given !== 'object' || given === null) {
    refuseField(
      'output',
      'options.context',
      `must give an operation context (an object), but gave ${describeValue(given)}`,
      given,
      { details: { hook: 'options.context' } },
    )
  }
  const own = (given as OperationContextInit<App>).signal
  return createOperationContext<App>({
    ...(given as OperationContextInit<App>),
    signal: own ? AbortSignal.any([own, signal]) : signal,
  })
}

/** A low-level SDK server whose tools are the registry's, every call through its lifecycle. */
export function createToolServer<App>(
  registry: ToolLifecycleRegistry<App>,
  settings: ServeSettings<App>,
): Server {
  const server = new Server(
    { name: settings.name, version: settings.version },
    {
      capabilities: { tools: { listChanged: true } },
      ...(settings.instructions === undefined ? {} : { instructions: settings.instructions }),
    },
  )
  const untyped = registry as unknown as ToolLifecycleRegistry<unknown>
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: describe(untyped) }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params
    const lifecycle = untyped.get(name)
    if (
      lifecycle === undefined ||
      publishedInput(modelToolSchemas(lifecycle.tool).input.jsonSchema) === undefined
    ) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${name}. Call tools/list for the tools this server offers.`,
      )
    }
    const info: McpServeRequest = Object.freeze({
      sessionId: extra.sessionId,
      headers: extra.requestInfo?.headers as McpServeRequest['headers'],
      requestId: extra.requestId,
    })
    let context: OperationContext<App>
    try {
      context = requestContext(settings, info, extra.signal)
    } catch (error) {
      throw new McpError(
        ErrorCode.InternalError,
        `The server could not prepare the call: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
    const span = context.diagnostics.span('mcp-serve-call', {
      server: settings.name,
      tool: name,
      sessionId: extra.sessionId,
    })
    const inner = { ...context, diagnostics: span.diagnostics }
    try {
      let outcome = await registry.run(
        {
          toolCallId: createId('mcp'),
          toolId: name,
          input: request.params.arguments ?? {},
          ...(extra.sessionId === undefined ? {} : { runId: extra.sessionId }),
        },
        inner,
      )
      if (outcome.status === 'pending') {
        const call = outcome.record
        const { approvals } = settings
        let decision: ToolDecision | string
        if (approvals === 'refuse') decision = 'this server does not ask for approvals over MCP'
        else if (approvals === 'elicit')
          decision = await elicit(server, call, extra.signal, extra.requestId, settings.approvalTimeoutMs)
        else decision = readAnswer(await approvals(call, inner), call)
        if (typeof decision === 'string') {
          span.end('ok', { status: 'pending' })
          return notRun(call, decision)
        }
        outcome = await registry.resume(call, decision, inner)
        if (outcome.status === 'pending') {
          span.end('ok', { status: 'pending' })
          return notRun(outcome.record, 'it is still waiting')
        }
      }
      if (outcome.status === 'failed') span.fail(outcome.error, { status: outcome.status })
      else span.end('ok', { status: outcome.status })
      return resultOf(outcome, lifecycle.tool)
    } catch (error) {
      span.fail(error)
      throw error
    }
  })
  return server
}
