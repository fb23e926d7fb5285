import { describeValue, FieldReader, type MaybePromise, refuseField } from '@agent-core/core'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { CONNECTION_OPTION_KEYS, type McpToolDescriptor } from '../connection-options.js'
import { assertSeparator, assertServerName, DEFAULT_TOOL_ID_SEPARATOR } from '../tool-id.js'

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>

export type ParsedTransport =
  | {
      readonly type: 'stdio'
      readonly command: string
      readonly args: readonly string[]
      readonly env: Readonly<Record<string, string>>
      readonly inheritEnv: boolean
      readonly cwd: string | undefined
      readonly stderr: 'pipe' | 'inherit' | 'ignore'
    }
  | {
      readonly type: 'http' | 'sse'
      readonly url: URL
      readonly headers: Readonly<Record<string, string>>
      readonly bearerToken: string | (() => MaybePromise<string>) | undefined
      readonly fetch: FetchLike | undefined
    }
  | { readonly type: 'custom'; readonly transport: Transport }

export interface ParsedConnectionOptions {
  readonly name: string
  readonly transport: ParsedTransport
  readonly separator: string
  readonly toolId: ((tool: { readonly server: string; readonly name: string }) => string) | undefined
  readonly filter: ((tool: McpToolDescriptor) => boolean) | undefined
  readonly invalidTools: 'throw' | 'skip'
  readonly connectTimeoutMs: number
  readonly requestTimeoutMs: number
  readonly callTimeoutMs: number
  readonly closeGraceMs: number
  readonly limits: ParsedClientLimits
  readonly clientInfo: { readonly name: string; readonly version: string }
}

/** The bounds of what one connection accepts from its server (see `McpClientLimits`). */
export interface ParsedClientLimits {
  readonly maxMessageBytes: number
  readonly maxSchemaBytes: number
  readonly maxSchemaDepth: number
  readonly maxResultBytes: number
  readonly maxNotificationsPerSecond: number
}

/** The default bounds of a connection. */
export const DEFAULT_CLIENT_LIMITS: ParsedClientLimits = Object.freeze({
  maxMessageBytes: 8 * 1024 * 1024,
  maxSchemaBytes: 256 * 1024,
  maxSchemaDepth: 32,
  maxResultBytes: 4 * 1024 * 1024,
  maxNotificationsPerSecond: 50,
})

/** The default time limit of a tool call (five minutes). */
export const DEFAULT_CALL_TIMEOUT_MS = 300_000

function readLimits(value: unknown): ParsedClientLimits {
  if (value === undefined) return DEFAULT_CLIENT_LIMITS
  const reader = new FieldReader(
    value,
    'options.limits',
    'limits { maxMessageBytes?, maxSchemaBytes?, maxSchemaDepth?, maxResultBytes?, maxNotificationsPerSecond? }',
  ).only([
    'maxMessageBytes',
    'maxSchemaBytes',
    'maxSchemaDepth',
    'maxResultBytes',
    'maxNotificationsPerSecond',
  ])
  const GIB = 1024 * 1024 * 1024
  const d = DEFAULT_CLIENT_LIMITS
  return Object.freeze({
    maxMessageBytes: reader.integer('maxMessageBytes', 1024, GIB, 'bytes') ?? d.maxMessageBytes,
    maxSchemaBytes: reader.integer('maxSchemaBytes', 64, GIB, 'bytes') ?? d.maxSchemaBytes,
    maxSchemaDepth: reader.integer('maxSchemaDepth', 1, 1000, 'levels') ?? d.maxSchemaDepth,
    maxResultBytes: reader.integer('maxResultBytes', 64, GIB, 'bytes') ?? d.maxResultBytes,
    maxNotificationsPerSecond:
      reader.integer('maxNotificationsPerSecond', 1, 1_000_000, 'per second') ?? d.maxNotificationsPerSecond,
  })
}

/** The longest delay a timer accepts. */
export const MAX_TIMER_MS = 2_147_483_647

const NO_STRINGS: readonly string[] = Object.freeze([])
const NO_RECORD: Readonly<Record<string, string>> = Object.freeze({})

function readUrl(reader: FieldReader): URL {
  const value = reader.get('url')
  if (value instanceof URL) return new URL(value.href)
  if (typeof value !== 'string') reader.mustBe('url', 'an http(s) URL (a string or a URL)', value)
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return reader.mustBe('url', 'an absolute http(s) URL', value)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    reader.mustBe('url', 'an http: or https: URL', value)
  return url
}

function readTransport(value: unknown): ParsedTransport {
  const type = (
    typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined
  ) as string | undefined
  switch (type) {
    case 'stdio': {
      const reader = new FieldReader(value, 'options.transport', 'a transport').only([
        'type',
        'command',
        'args',
        'env',
        'inheritEnv',
        'cwd',
        'stderr',
      ])
      return Object.freeze({
        type,
        command: reader.requiredString('command'),
        args: reader.strings('args') ?? NO_STRINGS,
        env: reader.stringRecord('env') ?? NO_RECORD,
        inheritEnv: reader.boolean('inheritEnv') ?? false,
        cwd: reader.string('cwd'),
        stderr: reader.oneOf('stderr', ['pipe', 'inherit', 'ignore'] as const) ?? 'pipe',
      })
    }
    case 'http':
    case 'sse': {
      const reader = new FieldReader(value, 'options.transport', 'a transport').only([
        'type',
        'url',
        'headers',
        'bearerToken',
        'fetch',
      ])
      const token = reader.get('bearerToken')
      if (token !== undefined && typeof token !== 'function' && (typeof token !== 'string' || token === ''))
        reader.mustBe('bearerToken', 'a non-empty string or a function that returns one', token)
      return Object.freeze({
        type,
        url: readUrl(reader),
        headers: reader.stringRecord('headers') ?? NO_RECORD,
        bearerToken: token as string | (() => MaybePromise<string>) | undefined,
        fetch: reader.func<FetchLike>('fetch'),
      })
    }
    case 'custom': {
      const reader = new FieldReader(value, 'options.transport', 'a transport').only(['type', 'transport'])
      const transport = reader.get('transport') as Partial<Transport> | null | undefined
      if (
        typeof transport !== 'object' ||
        transport === null ||
        typeof transport.start !== 'function' ||
        typeof transport.send !== 'function' ||
        typeof transport.close !== 'function'
      ) {
        reader.mustBe('transport', 'an MCP SDK Transport (with start, send and close)', transport)
      }
      return Object.freeze({ type, transport: transport as Transport })
    }
    default:
      refuseField(
        'input',
        'options.transport',
        `must be { type: "stdio", command }, { type: "http", url }, { type: "sse", url } or { type: "custom", transport }, but got ${describeValue(value)}${typeof value === 'object' && value !== null ? ` with type ${describeValue(type)}` : ''}`,
        value,
      )
  }
}

/** Checks the options of `connectMcpServer`; every mistake is an `InvalidInputError` naming its field. */
export function readConnectionOptions(value: unknown): ParsedConnectionOptions {
  const reader = new FieldReader(value, 'options', 'connection options { name, transport, ... }').only(
    CONNECTION_OPTION_KEYS,
  )
  const name = reader.get('name')
  assertServerName(name, 'options.name')
  const transport = readTransport(reader.get('transport'))
  const separator = reader.get('toolIdSeparator') ?? DEFAULT_TOOL_ID_SEPARATOR
  assertSeparator(separator, 'options.toolIdSeparator')
  const clientInfo = reader.get('clientInfo')
  let info = { name: 'agent-core', version: '0.1.0' }
  if (clientInfo !== undefined) {
    const client = new FieldReader(clientInfo, 'options.clientInfo', 'an object { name, version }').only([
      'name',
      'version',
    ])
    info = { name: client.requiredString('name'), version: client.requiredString('version') }
  }
  return Object.freeze({
    name,
    transport,
    separator,
    toolId: reader.func<ParsedConnectionOptions['toolId']>('toolId'),
    filter: reader.func<ParsedConnectionOptions['filter']>('filter'),
    invalidTools: reader.oneOf('invalidTools', ['throw', 'skip'] as const) ?? 'throw',
    connectTimeoutMs: reader.integer('connectTimeoutMs', 1, MAX_TIMER_MS, 'ms') ?? 10_000,
    requestTimeoutMs: reader.integer('requestTimeoutMs', 1, MAX_TIMER_MS, 'ms') ?? 30_000,
    callTimeoutMs: reader.integer('callTimeoutMs', 1, MAX_TIMER_MS, 'ms') ?? DEFAULT_CALL_TIMEOUT_MS,
    closeGraceMs: reader.integer('closeGraceMs', 1, 60_000, 'ms') ?? 2_000,
    clientInfo: Object.freeze(info),
    limits: readLimits(reader.get('limits')),
  })
}
