/**
 * How each agent-core span becomes an OpenTelemetry span: its name, kind and attributes. Data keys that a
 * mapping names go to that attribute (a GenAI / MCP convention where one exists); every other primitive
 * data field goes to `<namespace>.<snake_case key>`, so nothing a kit reports is lost. Content keys are
 * kept only when the App opted in to recording content.
 */
import type { Attributes, AttributeValue } from '@opentelemetry/api'
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_DATA_SOURCE_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_TYPE,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_SEED,
  ATTR_GEN_AI_REQUEST_STREAM,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_SESSION_ID,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_OPERATION_NAME_VALUE_RETRIEVAL,
  GEN_AI_OUTPUT_TYPE_VALUE_JSON,
  GEN_AI_OUTPUT_TYPE_VALUE_TEXT,
} from './semconv.js'

/** Event data as the sink reads it. */
export type Data = Readonly<Record<string, unknown>>

/** What the end of a span needs to know about it. */
export interface SpanFacts {
  /** True once a `model-request` span started inside this one (it then carries the GenAI usage). */
  inference: boolean
}

export type SpanKindName = 'internal' | 'client' | 'server'

export interface SpanMapping {
  readonly kind: SpanKindName
  /** Prefix of the attributes of data keys the mapping does not name. */
  readonly namespace: string
  /** Data key to attribute name; `null` drops the key (a hook handles it). */
  readonly keys: Readonly<Record<string, string | null>>
  /** Data keys that are content: recorded only when the App opted in. */
  readonly content?: ReadonlySet<string>
  /** Attributes every span of this kind starts with. */
  readonly fixed?: Attributes
  name(data: Data, spanName: string): string
  start?(data: Data, attributes: Attributes, scope: readonly string[]): void
  end?(data: Data, attributes: Attributes, facts: SpanFacts): void
}

/** Keys of an end event that the sink turns into the status, the exception and `agent_core.outcome`. */
const END_KEYS = new Set(['outcome', 'durationMs', 'errorCode', 'errorMessage'])

/** `nextStepIndex` -> `next_step_index`. */
export function snake(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_.]+/g, '_')
    .toLowerCase()
}

/** Attribute names resolved per mapping (kits use a small, fixed set of keys; garbage is not cached). */
const resolved = new Map<SpanMapping, Map<string, string | null>>()
const MAX_CACHED_KEYS = 256

/** The attribute name of a data key under `mapping`, or `null` when the key is not an attribute. */
function resolve(mapping: SpanMapping, names: Map<string, string | null>, key: string): string | null {
  const named = Object.hasOwn(mapping.keys, key) ? mapping.keys[key] : undefined
  const name = END_KEYS.has(key) ? null : named === undefined ? `${mapping.namespace}.${snake(key)}` : named
  if (names.size < MAX_CACHED_KEYS) names.set(key, name)
  return name
}

function namesOf(mapping: SpanMapping): Map<string, string | null> {
  let names = resolved.get(mapping)
  if (names === undefined) {
    names = new Map()
    resolved.set(mapping, names)
  }
  return names
}

/** An attribute value for `value`, or `undefined` when it has none (objects, mixed arrays, nullish). */
export function attributeValue(value: unknown): AttributeValue | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      return Number.isFinite(value) ? value : undefined
    case 'bigint':
      return value.toString()
    case 'object': {
      if (!Array.isArray(value) || value.length === 0) return undefined
      const type = typeof value[0]
      if (type !== 'string' && type !== 'number' && type !== 'boolean') return undefined
      for (const item of value) if (typeof item !== type) return undefined
      return value.slice() as AttributeValue
    }
    default:
      return undefined
  }
}

/**
 * Writes the data fields of one event into `attributes` through `mapping`. The keys core reserves for a
 * span's end (`outcome`, `durationMs`, `errorCode`, `errorMessage`) are left to the caller.
 */
export function collect(
  mapping: SpanMapping,
  data: Data,
  attributes: Attributes,
  recordContent: boolean,
): void {
  const content = recordContent ? undefined : mapping.content
  const names = namesOf(mapping)
  // Own keys only: a field inherited through the data's prototype is not something the kit reported.
  for (const key of Object.keys(data)) {
    const cached = names.get(key)
    const name = cached === undefined ? resolve(mapping, names, key) : cached
    if (name === null || content?.has(key)) continue
    const value = data[key]
    const type = typeof value
    if (type === 'string' || type === 'boolean' || (type === 'number' && Number.isFinite(value))) {
      attributes[name] = value as string
    } else {
      const converted = attributeValue(value)
      if (converted !== undefined) attributes[name] = converted
    }
  }
}

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined
const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined

/** Core finish reasons in the spelling of the GenAI examples (`tool_calls`, `content_filter`). */
function finishReason(value: unknown): string | undefined {
  const reason = str(value)
  return reason === undefined ? undefined : reason.replaceAll('-', '_')
}

function usage(data: Data, attributes: Attributes, genAi: boolean, namespace: string): void {
  const input = num(data.inputTokens)
  const output = num(data.outputTokens)
  if (input !== undefined)
    attributes[genAi ? ATTR_GEN_AI_USAGE_INPUT_TOKENS : `${namespace}.usage.input_tokens`] = input
  if (output !== undefined)
    attributes[genAi ? ATTR_GEN_AI_USAGE_OUTPUT_TOKENS : `${namespace}.usage.output_tokens`] = output
}

const USAGE_KEYS = { inputTokens: null, outputTokens: null, totalTokens: 'agent_core.usage.total_tokens' }

const run: SpanMapping = {
  kind: 'internal',
  namespace: 'agent_core.run',
  fixed: { [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT },
  keys: { runId: 'agent_core.run.id', model: ATTR_GEN_AI_REQUEST_MODEL, ...USAGE_KEYS },
  name: () => GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  // The agent span reports the run's total usage, as the GenAI conventions recommend for invoke_agent.
  end: (data, attributes) => usage(data, attributes, true, 'agent_core.run'),
}

const turn: SpanMapping = {
  kind: 'internal',
  namespace: 'agent_core.turn',
  keys: { turn: 'agent_core.turn.number' },
  name: () => 'turn',
}

const modelCall: SpanMapping = {
  kind: 'internal',
  namespace: 'agent_core.model',
  fixed: { [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT },
  keys: {
    model: ATTR_GEN_AI_REQUEST_MODEL,
    identity: ATTR_GEN_AI_REQUEST_MODEL,
    modelId: 'agent_core.model.binding_id',
    turn: 'agent_core.turn.number',
    finishReason: null,
    ...USAGE_KEYS,
  },
  name: (data) => {
    const model = str(data.model) ?? str(data.identity) ?? str(data.modelId)
    return model === undefined
      ? GEN_AI_OPERATION_NAME_VALUE_CHAT
      : `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${model}`
  },
  end(data, attributes, facts) {
    const reason = finishReason(data.finishReason)
    if (reason !== undefined) attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [reason]
    // With model-request spans inside, those carry the GenAI usage; repeating it here would count it twice.
    usage(data, attributes, !facts.inference, 'agent_core.model')
  },
}

const modelRequest: SpanMapping = {
  kind: 'client',
  namespace: 'agent_core.model',
  keys: {
    operation: ATTR_GEN_AI_OPERATION_NAME,
    provider: ATTR_GEN_AI_PROVIDER_NAME,
    identity: 'agent_core.model.identity',
    requestModel: ATTR_GEN_AI_REQUEST_MODEL,
    stream: ATTR_GEN_AI_REQUEST_STREAM,
    serverAddress: ATTR_SERVER_ADDRESS,
    serverPort: ATTR_SERVER_PORT,
    temperature: ATTR_GEN_AI_REQUEST_TEMPERATURE,
    maxOutputTokens: ATTR_GEN_AI_REQUEST_MAX_TOKENS,
    seed: ATTR_GEN_AI_REQUEST_SEED,
    responseFormat: 'agent_core.model.response_format',
    responseId: ATTR_GEN_AI_RESPONSE_ID,
    responseModel: ATTR_GEN_AI_RESPONSE_MODEL,
    finishReason: null,
    providerFinishReason: null,
    cachedInputTokens: ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
    reasoningTokens: ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
    status: 'http.response.status_code',
    errorKind: 'agent_core.error.kind',
    ...USAGE_KEYS,
  },
  name: (data) => {
    const operation = str(data.operation) ?? GEN_AI_OPERATION_NAME_VALUE_CHAT
    const model = str(data.requestModel)
    return model === undefined ? operation : `${operation} ${model}`
  },
  start(data, attributes) {
    if (attributes[ATTR_GEN_AI_OPERATION_NAME] === undefined)
      attributes[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION_NAME_VALUE_CHAT
    const format = str(data.responseFormat)
    if (format !== undefined) {
      attributes[ATTR_GEN_AI_OUTPUT_TYPE] =
        format === 'text' ? GEN_AI_OUTPUT_TYPE_VALUE_TEXT : GEN_AI_OUTPUT_TYPE_VALUE_JSON
    }
  },
  end(data, attributes) {
    const reason = str(data.providerFinishReason) ?? finishReason(data.finishReason)
    if (reason !== undefined) attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [reason]
    usage(data, attributes, true, 'agent_core.model')
    const kind = str(data.errorKind)
    if (kind !== undefined) attributes[ATTR_ERROR_TYPE] = kind
  },
}

const toolCall: SpanMapping = {
  kind: 'internal',
  namespace: 'agent_core.tool',
  fixed: {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    [ATTR_GEN_AI_TOOL_TYPE]: 'function',
  },
  keys: {
    toolId: ATTR_GEN_AI_TOOL_NAME,
    toolCallId: ATTR_GEN_AI_TOOL_CALL_ID,
    phase: 'agent_core.tool.failed_phase',
  },
  name: (data) => {
    const tool = str(data.toolId)
    return tool === undefined
      ? GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL
      : `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${tool}`
  },
}

const durableKeys = { stepId: 'agent_core.durable.step.id', index: 'agent_core.durable.step.index' }

function durable(label: string, idKey?: string): SpanMapping {
  return {
    kind: 'internal',
    namespace: 'agent_core.durable',
    keys: durableKeys,
    name: (data) => {
      const id = idKey === undefined ? undefined : str(data[idKey])
      return id === undefined ? `durable ${label}` : `durable ${label} ${id}`
    },
  }
}

const task: SpanMapping = {
  ...durable('task', 'definitionId'),
  // The task span's scope is [..., 'durable', taskId].
  start(_data, attributes, scope) {
    const taskId =
      scope.length >= 2 && scope[scope.length - 2] === 'durable' ? scope[scope.length - 1] : undefined
    if (taskId !== undefined) attributes['agent_core.durable.task.id'] = taskId
  },
}

const retrieval: SpanMapping = {
  kind: 'internal',
  namespace: 'agent_core.retrieval',
  fixed: { [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_RETRIEVAL },
  keys: { retrievalId: ATTR_GEN_AI_DATA_SOURCE_ID },
  // The key is usually made from the query: content.
  content: new Set(['key']),
  name: (data) => {
    const id = str(data.retrievalId)
    return id === undefined
      ? GEN_AI_OPERATION_NAME_VALUE_RETRIEVAL
      : `${GEN_AI_OPERATION_NAME_VALUE_RETRIEVAL} ${id}`
  },
}

const mcpKeys = {
  server: 'agent_core.mcp.server',
  tool: ATTR_GEN_AI_TOOL_NAME,
  toolId: 'agent_core.mcp.tool_id',
}

function mcp(kind: SpanKindName, method: string, extra: Record<string, string | null> = {}): SpanMapping {
  const isToolCall = method === 'tools/call'
  return {
    kind,
    namespace: 'agent_core.mcp',
    fixed: isToolCall
      ? {
          [ATTR_MCP_METHOD_NAME]: method,
          [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
        }
      : { [ATTR_MCP_METHOD_NAME]: method },
    keys: { ...mcpKeys, ...extra },
    name: (data) => {
      const target = isToolCall ? str(data.tool) : undefined
      return target === undefined ? method : `${method} ${target}`
    },
  }
}

/** A loop guardrail check (`guardrail {name}`): its name, what it checked, the guarded tool. */
const guardrail: SpanMapping = {
  kind: 'internal',
  namespace: 'agent_core.guardrail',
  keys: { guardrail: 'agent_core.guardrail.name', toolId: ATTR_GEN_AI_TOOL_NAME },
  name: (data) => {
    const name = str(data.guardrail)
    return name === undefined ? 'guardrail' : `guardrail ${name}`
  },
}

/** The mapping of every span name agent-core kits emit; others get {@link GENERIC}. */
export const MAPPINGS: ReadonlyMap<string, SpanMapping> = new Map([
  ['run', run],
  ['turn', turn],
  ['model-call', modelCall],
  ['model-request', modelRequest],
  ['tool-call', toolCall],
  ['task', task],
  ['attempt', durable('attempt')],
  ['step', durable('step', 'stepId')],
  ['lease-wait', durable('lease-wait')],
  ['retrieval', retrieval],
  ['guardrail', guardrail],
  ['mcp-call', mcp('client', 'tools/call')],
  ['mcp-connect', mcp('client', 'initialize', { transport: 'agent_core.mcp.transport' })],
  ['mcp-serve-call', mcp('server', 'tools/call', { sessionId: ATTR_MCP_SESSION_ID })],
])

/** Spans of other names: named after the span, data under `agent_core.*`. */
export const GENERIC: SpanMapping = {
  kind: 'internal',
  namespace: 'agent_core',
  keys: {},
  name: (_data, spanName) => spanName,
}

/** Plain events (span events): data under `agent_core.*`. */
export const EVENT_MAPPING: SpanMapping = GENERIC
