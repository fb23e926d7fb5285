import type { JsonValue, PendingToolCall } from '@agent-core/kits/tools'
import type { SandboxRecording } from './sandbox-recording.js'

/**
 * One line the script wrote with `console.*`.
 * @example
 * ```ts
 * import type { SandboxLog } from '@agent-core/kits/sandbox'
 * const line: SandboxLog = { level: 'warn', text: 'no orders found' }
 * ```
 */
export interface SandboxLog {
  /** The `console` method the script called. */
  readonly level: 'log' | 'info' | 'warn' | 'error' | 'debug'
  /** Its arguments: strings as they are, other values as JSON, joined by spaces. */
  readonly text: string
}

/**
 * The limit a script crossed: `memory`, `stack`, `cpuTime`, `time` (wall time), `hostCalls`, `output`,
 * `recording` (bytes of host-call inputs and results), `nesting` (a sandbox started by a tool of a sandbox,
 * too deep).
 * @example
 * ```ts
 * import type { SandboxLimitName } from '@agent-core/kits/sandbox'
 * const limit: SandboxLimitName = 'cpuTime'
 * ```
 */
export type SandboxLimitName =
  | 'memory'
  | 'stack'
  | 'cpuTime'
  | 'time'
  | 'hostCalls'
  | 'output'
  | 'recording'
  | 'nesting'

/**
 * Why a script failed, as plain JSON the model can read:
 * - `syntax`: the code does not parse (`line`, and `column` where it is exact);
 * - `runtime`: the script threw (`line` of the throw when the engine knows it);
 * - `host`: a host call failed and the script did not catch it; `code` is the agent-core error code of the
 *   failure (`tool-rejected`, `timeout`, `invalid-input`, ...) and `toolId` the tool;
 * - `limit`: the script crossed `limit`;
 * - `stopped`: the run's signal stopped it.
 * @example
 * ```ts
 * import type { SandboxErrorInfo } from '@agent-core/kits/sandbox'
 * const error: SandboxErrorInfo = { kind: 'runtime', name: 'TypeError', message: 'x is undefined', line: 3 }
 * ```
 */
export interface SandboxErrorInfo {
  /** Why the script failed (see above). */
  readonly kind: 'syntax' | 'runtime' | 'host' | 'limit' | 'stopped'
  /** The error's class name (`TypeError`, `TimeoutError`, `SandboxLimitError`, ...). */
  readonly name: string
  readonly message: string
  /** The line of the script (as the model wrote it) where the error was thrown or the syntax broke. */
  readonly line?: number | undefined
  /** The column, where it is exact (syntax errors). */
  readonly column?: number | undefined
  /** Host errors: the agent-core error code; limits: `sandbox-limit`. */
  readonly code?: string | undefined
  /** Host errors: the tool that was called. */
  readonly toolId?: string | undefined
  /** Limits: which one. */
  readonly limit?: SandboxLimitName | undefined
}

/**
 * Fields every {@link SandboxResult} carries.
 * @example
 * ```ts
 * import type { SandboxResultBase } from '@agent-core/kits/sandbox'
 * const printed = (result: SandboxResultBase) => result.logs.map((log) => log.text).join('\n')
 * ```
 */
export interface SandboxResultBase {
  /** What the script wrote with `console.*`, within `maxLogBytes`. */
  readonly logs: readonly SandboxLog[]
  /** Host calls the script made (replayed ones included). */
  readonly hostCalls: number
  /** Everything the execution took from outside: store it to resume or replay. */
  readonly recording: SandboxRecording
  /**
   * With `options.globals`: the globals the script left (the plain-JSON keys of its `globals` object) once
   * it ran to its end, completed or failed; the globals it started with when it did not (a limit, a stop, a
   * syntax error, a suspension). A key whose value is not plain JSON is left out, with a `warn` log naming
   * it and why.
   */
  readonly globals?: Readonly<Record<string, JsonValue>> | undefined
}

/**
 * How a sandbox execution ended, discriminated by `status`:
 * - `completed`: the script returned `value` (absent when it returned nothing);
 * - `failed`: see {@link SandboxErrorInfo};
 * - `suspended`: host calls wait for a person (`waiting`, the `tools` kit's pending calls); run the code
 *   again with the recording and decisions for them to go on.
 * @example
 * ```ts
 * import type { SandboxResult } from '@agent-core/kits/sandbox'
 * function show(result: SandboxResult): string {
 *   switch (result.status) {
 *     case 'completed': return JSON.stringify(result.value)
 *     case 'failed': return `${result.error.name}: ${result.error.message}`
 *     case 'suspended': return `waiting for ${result.waiting.map((call) => call.toolId).join(', ')}`
 *   }
 * }
 * ```
 */
export type SandboxResult =
  | (SandboxResultBase & { readonly status: 'completed'; readonly value?: JsonValue | undefined })
  | (SandboxResultBase & { readonly status: 'failed'; readonly error: SandboxErrorInfo })
  | (SandboxResultBase & { readonly status: 'suspended'; readonly waiting: readonly PendingToolCall[] })
