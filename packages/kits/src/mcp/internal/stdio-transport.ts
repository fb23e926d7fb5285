import { type ChildProcess, spawn } from 'node:child_process'
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { McpConnectionError, McpProtocolError } from '../mcp-errors.js'
import { forget, reapOnExit } from './child-reaper.js'

/** How a stdio server is started and watched. */
export interface StdioProcessOptions {
  readonly server: string
  readonly command: string
  readonly args: readonly string[]
  readonly env: Readonly<Record<string, string>>
  readonly cwd: string | undefined
  readonly stderr: 'pipe' | 'inherit' | 'ignore'
  /** How long `close` waits after closing stdin, and again after SIGTERM, before it escalates. */
  readonly closeGraceMs: number
  /** Each line the server writes to stderr (with `stderr: 'pipe'`). */
  readonly onStderrLine?: ((line: string) => void) | undefined
  /** Longest stdout line accepted, in bytes; a longer one closes the connection. Default 32 MiB. */
  readonly maxLineBytes?: number | undefined
}

/** How a stdio server ended. */
export interface ProcessExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

const MAX_LINE_BYTES = 32 * 1024 * 1024
const STDERR_TAIL = 4096
const NOISE_KEPT = 3

function excerpt(line: string): string {
  return line.length > 120 ? `${line.slice(0, 117)}...` : line
}

/**
 * The client side of MCP's stdio transport: spawns the server in its own process group (POSIX), speaks
 * newline-delimited JSON-RPC on its stdin/stdout, keeps the tail of its stderr and the lines of stdout that
 * were not JSON-RPC (for error messages), and ends the whole group when closed or when the host exits.
 */
export class StdioProcessTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage) => void) | undefined

  readonly #options: StdioProcessOptions
  readonly #group: boolean
  #child: ChildProcess | undefined
  #pending: Buffer[] = []
  #pendingBytes = 0
  #stderrTail = ''
  #stderrLine = ''
  readonly #noise: string[] = []
  #exit: ProcessExit | undefined
  #closing: Promise<void> | undefined
  #closed = false
  readonly #exited: Promise<void>
  #markExited!: () => void
  readonly #reapable = { kill: (signal: NodeJS.Signals) => this.kill(signal) }

  constructor(options: StdioProcessOptions) {
    this.#options = options
    this.#group = process.platform !== 'win32'
    this.#exited = new Promise((resolve) => {
      this.#markExited = resolve
    })
  }

  /** The server's process id, once started. */
  get pid(): number | undefined {
    return this.#child?.pid
  }

  /** How the server ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.#exit
  }

  /** The last few KB the server wrote to stderr (with `stderr: 'pipe'`). */
  get stderrTail(): string {
    return this.#stderrTail.trim()
  }

  /** The last lines of stdout that were not JSON-RPC messages. */
  get noise(): readonly string[] {
    return this.#noise
  }

  start(): Promise<void> {
    if (this.#child) return Promise.reject(new Error('This stdio transport was already started.'))
    const { command, args, env, cwd, stderr } = this.#options
    return new Promise((resolve, reject) => {
      let child: ChildProcess
      try {
        child = spawn(command, [...args], {
          env: { ...env },
          cwd,
          stdio: ['pipe', 'pipe', stderr],
          detached: this.#group,
          shell: false,
          windowsHide: true,
        })
      } catch (error) {
        reject(this.#spawnError(error))
        return
      }
      this.#child = child
      let started = false
      child.once('spawn', () => {
        started = true
        reapOnExit(this.#reapable)
        resolve()
      })
      child.on('error', (error) => {
        if (!started) reject(this.#spawnError(error))
        else this.onerror?.(error)
      })
      child.once('close', (code, signal) => {
        this.#exit = { code, signal }
        forget(this.#reapable)
        // Anything the process group left behind goes with it.
        if (this.#closing) this.#killGroup('SIGTERM')
        this.#markExited()
        this.#finish()
      })
      child.stdin?.on('error', () => {
        // EPIPE once the server is gone: the 'close' event reports the end, with its exit code.
      })
      child.stdout?.on('data', (chunk: Buffer) => this.#read(chunk))
      child.stderr?.on('data', (chunk: Buffer) => this.#readStderr(chunk))
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin
    if (!stdin || this.#exit || this.#closing || !stdin.writable) {
      return Promise.reject(
        new McpConnectionError(`MCP server "${this.#options.server}" is not running; connect again.`, {
          details: { server: this.#options.server, transport: 'stdio', ...this.#exitDetails() },
        }),
      )
    }
    return new Promise((resolve, reject) => {
      const ok = stdin.write(serializeMessage(message), (error) => {
        if (error) reject(error)
      })
      if (ok) resolve()
      else stdin.once('drain', resolve)
    })
  }

  /** Closes stdin, then escalates to SIGTERM and SIGKILL (of the process group) if the server lingers. */
  close(): Promise<void> {
    const child = this.#child
    if (!child || this.#exit) {
      this.#finish()
      return Promise.resolve()
    }
    this.#closing ??= (async () => {
      const grace = this.#options.closeGraceMs
      try {
        child.stdin?.end()
      } catch {
        // The pipe is already gone.
      }
      if (await this.#waitForExit(grace)) return
      this.kill('SIGTERM')
      if (await this.#waitForExit(grace)) return
      this.kill('SIGKILL')
      await this.#waitForExit(grace)
    })()
    return this.#closing
  }

  /** Sends `signal` to the server's process group (its own process where there are no groups). */
  kill(signal: NodeJS.Signals): void {
    const child = this.#child
    if (!child || this.#exit) return
    if (!this.#killGroup(signal)) {
      try {
        child.kill(signal)
      } catch {
        // Already gone.
      }
    }
  }

  #killGroup(signal: NodeJS.Signals): boolean {
    const pid = this.#child?.pid
    if (!this.#group || pid === undefined) return false
    try {
      process.kill(-pid, signal)
      return true
    } catch {
      return false
    }
  }

  #waitForExit(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms)
      this.#exited.then(() => {
        clearTimeout(timer)
        resolve(true)
      })
    })
  }

  #finish(): void {
    if (this.#closed) return
    this.#closed = true
    this.onclose?.()
  }

  #exitDetails(): { exitCode?: number | null; exitSignal?: string | null; stderr?: string } {
    return {
      ...(this.#exit ? { exitCode: this.#exit.code, exitSignal: this.#exit.signal } : {}),
      ...(this.stderrTail ? { stderr: this.stderrTail } : {}),
    }
  }

  #spawnError(error: unknown): McpConnectionError {
    const { server, command, cwd } = this.#options
    const code = (error as { code?: unknown } | null)?.code
    const why =
      code === 'ENOENT'
        ? `the command was not found${cwd === undefined ? '' : ` (or the cwd "${cwd}" does not exist)`}; give the full path of the executable or check PATH`
        : code === 'EACCES'
          ? 'the command is not executable; check its permissions'
          : `${error instanceof Error ? error.message : String(error)}`
    return new McpConnectionError(
      `Could not start MCP server "${server}" (${JSON.stringify(command)}): ${why}.`,
      {
        cause: error,
        details: { server, transport: 'stdio' },
      },
    )
  }

  #read(chunk: Buffer): void {
    let start = 0
    for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, start)) {
      this.#pending.push(chunk.subarray(start, index))
      const line = Buffer.concat(this.#pending).toString('utf8').replace(/\r$/, '')
      this.#pending = []
      this.#pendingBytes = 0
      start = index + 1
      this.#line(line)
    }
    if (start < chunk.length) {
      this.#pending.push(chunk.subarray(start))
      this.#pendingBytes += chunk.length - start
      const max = this.#options.maxLineBytes ?? MAX_LINE_BYTES
      if (this.#pendingBytes > max) {
        this.#pending = []
        this.#pendingBytes = 0
        this.#noisy(`(a line longer than ${max} bytes)`, `is longer than ${max} bytes without a newline`)
        void this.close()
      }
    }
  }

  #line(line: string): void {
    if (line.trim() === '') return
    let message: JSONRPCMessage
    try {
      message = deserializeMessage(line)
    } catch (error) {
      const problem = error instanceof SyntaxError ? 'is not JSON' : 'is JSON but not a JSON-RPC message'
      this.#noisy(line, problem)
      return
    }
    this.onmessage?.(message)
  }

  #noisy(line: string, problem: string): void {
    this.#noise.push(excerpt(line))
    if (this.#noise.length > NOISE_KEPT) this.#noise.shift()
    const { server } = this.#options
    this.onerror?.(
      new McpProtocolError(
        `MCP server "${server}" wrote a line to stdout that ${problem}: ${JSON.stringify(excerpt(line))}. An MCP stdio server writes only JSON-RPC messages to stdout; its logs belong on stderr.`,
        { details: { server, problems: [problem] } },
      ),
    )
  }

  #readStderr(chunk: Buffer): void {
    const text = chunk.toString('utf8')
    this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL)
    const onLine = this.#options.onStderrLine
    if (!onLine) return
    const lines = (this.#stderrLine + text).split('\n')
    this.#stderrLine = lines.pop() ?? ''
    for (const line of lines) if (line.trim() !== '') onLine(line.replace(/\r$/, ''))
  }
}
