/**
 * The OpenTelemetry semantic-convention names this sink writes, copied from
 * `@opentelemetry/semantic-conventions` 1.45.0 (its incubating entry, `experimental_attributes`, and the
 * stable `error.type`, `server.*`). The GenAI and MCP names are experimental there (and marked as moving
 * to the GenAI conventions repository), so they are copied rather than imported: importing the incubating
 * entry would tie this subpath to a package whose names change in minor releases.
 */

// gen_ai.* (experimental, semantic-conventions 1.45.0)
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name'
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name'
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model'
export const ATTR_GEN_AI_REQUEST_TEMPERATURE = 'gen_ai.request.temperature'
export const ATTR_GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens'
export const ATTR_GEN_AI_REQUEST_SEED = 'gen_ai.request.seed'
export const ATTR_GEN_AI_REQUEST_STREAM = 'gen_ai.request.stream'
export const ATTR_GEN_AI_OUTPUT_TYPE = 'gen_ai.output.type'
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model'
export const ATTR_GEN_AI_RESPONSE_ID = 'gen_ai.response.id'
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons'
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens'
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens'
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens'
export const ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS = 'gen_ai.usage.reasoning.output_tokens'
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name'
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id'
export const ATTR_GEN_AI_TOOL_TYPE = 'gen_ai.tool.type'
export const ATTR_GEN_AI_DATA_SOURCE_ID = 'gen_ai.data_source.id'
export const ATTR_GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages'
export const ATTR_GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages'

export const GEN_AI_OPERATION_NAME_VALUE_CHAT = 'chat'
export const GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL = 'execute_tool'
export const GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT = 'invoke_agent'
export const GEN_AI_OPERATION_NAME_VALUE_RETRIEVAL = 'retrieval'
export const GEN_AI_OUTPUT_TYPE_VALUE_JSON = 'json'
export const GEN_AI_OUTPUT_TYPE_VALUE_TEXT = 'text'

// mcp.* (experimental, semantic-conventions 1.45.0)
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name'
export const ATTR_MCP_SESSION_ID = 'mcp.session.id'

// stable (semantic-conventions 1.45.0)
export const ATTR_ERROR_TYPE = 'error.type'
export const ATTR_SERVER_ADDRESS = 'server.address'
export const ATTR_SERVER_PORT = 'server.port'
/** `_OTHER`: the value `error.type` takes when nothing more specific is known. */
export const ERROR_TYPE_VALUE_OTHER = '_OTHER'
