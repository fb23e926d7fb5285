import { describeValue, refuseField } from '@agent-core/core'

/** Longest tool id (what core's `TOOL_ID_PATTERN` and model providers accept). */
const MAX_ID = 64
/** The hash suffix of a shortened id: `_` and eight hex digits. */
const HASH_SUFFIX = 9
const SAFE = /^[A-Za-z0-9_-]+$/
const UNSAFE_CHAR = /[^A-Za-z0-9_-]/g

/**
 * The default separator between a server's name and its tool's name: `github__search_issues`.
 * @example
 * ```ts
 * import { DEFAULT_TOOL_ID_SEPARATOR, mcpToolId } from '@agent-core/kits/mcp'
 * mcpToolId('github', 'search', DEFAULT_TOOL_ID_SEPARATOR) // 'github__search'
 * ```
 */
export const DEFAULT_TOOL_ID_SEPARATOR = '__'

/** FNV-1a (32 bit) over the UTF-8 bytes: short, stable across processes and platforms, synchronous. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, '0')
}

/** Checks a server name: what goes first in every tool id of that server. */
export function assertServerName(name: unknown, field: string): asserts name is string {
  if (typeof name !== 'string' || !SAFE.test(name) || name.length > 32) {
    refuseField(
      'input',
      field,
      `must be 1 to 32 letters, digits, "_" or "-" (it prefixes the ids of the server's tools), but got ${describeValue(name)}`,
      name,
    )
  }
}

/** Checks a tool-id separator. */
export function assertSeparator(separator: unknown, field: string): asserts separator is string {
  if (typeof separator !== 'string' || !SAFE.test(separator) || separator.length > 8) {
    refuseField(
      'input',
      field,
      `must be 1 to 8 letters, digits, "_" or "-", but got ${describeValue(separator)}`,
      separator,
    )
  }
}

/**
 * The id under which a model sees an MCP server's tool: `<server><separator><tool>` (default separator
 * `__`, so `github__search_issues`). Every character other than letters, digits, `_` and `-` becomes `_`;
 * an id longer than 64 characters keeps its first 55 and ends in `_` plus an 8-digit hash of the server
 * and tool names, so it stays stable and distinct. Two tools that still end up with one id are refused
 * when they are registered together (see `createMcpToolset`).
 * @param server - the server's name (letters, digits, `_`, `-`; at most 32)
 * @param tool - the server's own name of the tool
 * @param separator - between the two (letters, digits, `_`, `-`; 1 to 8 characters)
 * @throws `InvalidInputError` for a malformed server name, tool name or separator
 * @example
 * ```ts
 * import { mcpToolId } from '@agent-core/kits/mcp'
 * mcpToolId('github', 'search_issues') // 'github__search_issues'
 * mcpToolId('files', 'fs.read') // 'files__fs_read'
 * ```
 */
export function mcpToolId(
  server: string,
  tool: string,
  separator: string = DEFAULT_TOOL_ID_SEPARATOR,
): string {
  assertServerName(server, 'server')
  assertSeparator(separator, 'separator')
  if (typeof tool !== 'string' || tool.length === 0) {
    refuseField('input', 'tool', `must be a non-empty tool name, but got ${describeValue(tool)}`, tool)
  }
  const id = `${server}${separator}${tool.replace(UNSAFE_CHAR, '_')}`
  if (id.length <= MAX_ID) return id
  return `${id.slice(0, MAX_ID - HASH_SUFFIX)}_${fnv1a(`${server}\u0000${tool}`)}`
}
