import { abortedError, type Diagnostics, throwIfAborted } from '@agent-core/core'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { McpConnectionErrorDetails } from '../mcp-errors.js'
import { closedError, type FailurePlace, toMcpError } from './errors.js'
import type { ParsedClientLimits } from './options.js'
import { MAX_TIMER_MS } from './options.js'
import type { StdioProcessTransport } from './stdio-transport.js'

/** What a request needs to know besides its method. */
export interface RequestInit {
  readonly signal?: AbortSignal | undefined
  /** The request's own time limit; `undefined` leaves it to the signal. */
  readonly timeoutMs: number | undefined
  readonly tool?: string | undefined
  readonly toolId?: string | undefined
}

/**
 * One live MCP client session: the SDK client and its transport, with every request run the same way
 * (the caller's signal linked only while the request runs, a time limit, and every failure turned into a
 * typed error that names the server).
 */
export class Session {
  closed = false
  closing: Promise<void> | undefined
  /** Why the client gave the connection up (the transport stopped reconnecting, the server is gone). */
  lost: string | undefined
  /** Requests running now (a dropped event stream is probed only while something waits). */
  pending = 0
  constructor(
    readonly server: string,
    readonly client: Client,
    readonly kind: McpConnectionErrorDetails['transport'],
    readonly stdio: StdioProcessTransport | undefined,
    readonly diagnostics: Diagnostics,
    readonly requestTimeoutMs: number,
    readonly callTimeoutMs: number,
    readonly limits: ParsedClientLimits,
  ) {}

  /**
   * Gives the connection up: every pending request fails with `McpConnectionError` (the SDK rejects them
   * when its transport closes) and the connection is closed.
   */
  giveUp(reason: string): Promise<void> {
    if (this.closed || this.closing !== undefined) return this.closing ?? Promise.resolve()
    this.lost = reason
    this.closed = true
    this.diagnostics.emit('mcp-connection-lost', { server: this.server, reason }, 'warn')
    this.closing = this.client.close().catch(() => undefined)
    return this.closing
  }

  place(method: string, init: Partial<RequestInit> = {}): FailurePlace {
    return {
      server: this.server,
      transport: this.kind,
      method,
      tool: init.tool,
      toolId: init.toolId,
      timeoutMs: init.timeoutMs,
      closed: this.closed,
      lost: this.lost,
      exit: () => this.exitDetails(),
      hint: () => this.hint(),
    }
  }

  exitDetails(): Partial<McpConnectionErrorDetails> {
    const stdio = this.stdio
    if (!stdio) return {}
    const exit = stdio.exit
    return {
      ...(exit ? { exitCode: exit.code, exitSignal: exit.signal } : {}),
      ...(stdio.stderrTail ? { stderr: stdio.stderrTail } : {}),
    }
  }

  /** A sentence about what the server wrote that was not JSON-RPC, to explain a silence. */
  hint(): string {
    const noise = this.stdio?.noise ?? []
    if (noise.length === 0) return ''
    return ` Meanwhile it wrote ${noise.length === 1 ? 'a line' : 'lines'} to stdout that ${noise.length === 1 ? 'is' : 'are'} not JSON-RPC (last: ${JSON.stringify(noise[noise.length - 1])}); an MCP stdio server writes only JSON-RPC to stdout.`
  }

  /**
   * Runs one request. The caller's signal is linked to the request only while it runs (so a signal that
   * aborts later never cancels a finished request); when it aborts, the SDK sends MCP's cancellation
   * notification and this rejects with core's `AbortedError` (or the `TimeoutError` that aborted it).
   */
  async request<T>(
    method: string,
    run: (options: RequestOptions) => Promise<T>,
    init: RequestInit,
  ): Promise<T> {
    if (this.closed) throw closedError(this.place(method, init))
    const { signal } = init
    throwIfAborted(signal, `before ${method} of MCP server "${this.server}"`)
    const controller = new AbortController()
    const onAbort = () => controller.abort(signal?.reason)
    signal?.addEventListener('abort', onAbort, { once: true })
    this.pending += 1
    try {
      return await run({ signal: controller.signal, timeout: init.timeoutMs ?? MAX_TIMER_MS })
    } catch (error) {
      if (signal?.aborted) throw abortedError(signal, `${method} of MCP server "${this.server}"`)
      throw toMcpError(error, this.place(method, init))
    } finally {
      this.pending -= 1
      signal?.removeEventListener('abort', onAbort)
    }
  }
}
