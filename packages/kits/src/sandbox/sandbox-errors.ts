import { AgentCoreError, type AgentCoreErrorOptions, type ErrorDetails } from '@agent-core/core'

/**
 * The sandbox engine cannot be loaded: `quickjs-emscripten` (an optional peer dependency of
 * `@agent-core/kits`) is not installed, or its WebAssembly module failed to start. Install it next to the
 * kits package (`npm install quickjs-emscripten`).
 * @example
 * ```ts
 * import { SandboxUnavailableError } from '@agent-core/kits/sandbox'
 * declare const error: unknown // a caught error
 * if (SandboxUnavailableError.isInstance(error)) console.error(error.message)
 * ```
 */
export class SandboxUnavailableError extends AgentCoreError<ErrorDetails> {
  static override readonly code = 'sandbox-unavailable'
  declare readonly code: 'sandbox-unavailable'
  constructor(message: string, options?: AgentCoreErrorOptions<ErrorDetails>) {
    super('sandbox-unavailable', message, options)
  }
}
