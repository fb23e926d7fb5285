import { describeValue, type MaybePromise, refuseField } from '@agent-core/core'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { boundedFetch } from './limits.js'
import type { FetchLike, ParsedConnectionOptions } from './options.js'
import type { StdioProcessTransport } from './stdio-transport.js'

/** A transport ready to be started by the SDK client, and what the connection keeps of it. */
export interface BuiltTransport {
  readonly transport: Transport
  readonly stdio: StdioProcessTransport | undefined
  /** Ends a streamable HTTP session (DELETE) before the transport closes; best effort. */
  readonly terminate: (() => Promise<void>) | undefined
}

/** A fetch that adds the App's headers (never over the protocol's own) and the bearer token. */
function credentialedFetch(
  server: string,
  base: FetchLike | undefined,
  headers: Readonly<Record<string, string>>,
  token: string | (() => MaybePromise<string>) | undefined,
): FetchLike {
  const send: FetchLike = base ?? ((url, init) => globalThis.fetch(url, init))
  if (Object.keys(headers).length === 0 && token === undefined) return send
  return async (url, init) => {
    const merged = new Headers(init?.headers)
    for (const [name, value] of Object.entries(headers)) if (!merged.has(name)) merged.set(name, value)
    if (token !== undefined) {
      const value: unknown = typeof token === 'function' ? await token() : token
      if (typeof value !== 'string' || value === '' || /[\r\n]/.test(value)) {
        refuseField(
          'output',
          'transport.bearerToken',
          `of MCP server "${server}" must give a non-empty token without line breaks, but gave ${describeValue(value)}`,
          value,
          { details: { hook: 'transport.bearerToken', server } },
        )
      }
      merged.set('authorization', `Bearer ${value}`)
    }
    return send(url, { ...init, headers: merged })
  }
}

/** Builds the transport the options describe; each transport's code is loaded only when it is used. */
export async function buildTransport(
  options: ParsedConnectionOptions,
  onStderrLine: (line: string) => void,
  onDropped: (bytes: number) => void,
): Promise<BuiltTransport> {
  const { transport } = options
  const bounded = (fetch: FetchLike) => boundedFetch(options.name, fetch, options.limits, onDropped)
  switch (transport.type) {
    case 'stdio': {
      const [{ StdioProcessTransport }, { getDefaultEnvironment }] = await Promise.all([
        import('./stdio-transport.js'),
        import('@modelcontextprotocol/sdk/client/stdio.js'),
      ])
      const inherited = transport.inheritEnv
        ? Object.fromEntries(
            Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
          )
        : getDefaultEnvironment()
      const stdio = new StdioProcessTransport({
        server: options.name,
        command: transport.command,
        args: transport.args,
        env: { ...inherited, ...transport.env },
        cwd: transport.cwd,
        stderr: transport.stderr,
        closeGraceMs: options.closeGraceMs,
        maxLineBytes: options.limits.maxMessageBytes,
        onStderrLine,
      })
      return { transport: stdio, stdio, terminate: undefined }
    }
    case 'http': {
      const { StreamableHTTPClientTransport } = await import(
        '@modelcontextprotocol/sdk/client/streamableHttp.js'
      )
      const fetch = bounded(
        credentialedFetch(options.name, transport.fetch, transport.headers, transport.bearerToken),
      )
      const http = new StreamableHTTPClientTransport(transport.url, {
        fetch,
        // A dropped event stream is not retried for ever: three attempts, then the connection reports it.
        reconnectionOptions: {
          initialReconnectionDelay: 500,
          maxReconnectionDelay: 5_000,
          reconnectionDelayGrowFactor: 2,
          maxRetries: 3,
        },
      })
      return {
        transport: http,
        stdio: undefined,
        terminate: () => (http.sessionId === undefined ? Promise.resolve() : http.terminateSession()),
      }
    }
    case 'sse': {
      const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js')
      const fetch = bounded(
        credentialedFetch(options.name, transport.fetch, transport.headers, transport.bearerToken),
      )
      return {
        transport: new SSEClientTransport(transport.url, { fetch }),
        stdio: undefined,
        terminate: undefined,
      }
    }
    case 'custom':
      return { transport: transport.transport, stdio: undefined, terminate: undefined }
  }
}
