import { describeValue, refuseField } from '@agent-core/core'

/**
 * What one sandbox execution may use. Every limit is optional; {@link DEFAULT_SANDBOX_LIMITS} fills the
 * rest. A script that crosses one gets a typed failure the model can read (`error.kind === 'limit'`), and
 * the host goes on unharmed.
 * @example
 * ```ts
 * import type { SandboxLimits } from '@agent-core/kits/sandbox'
 * const limits: SandboxLimits = { memoryBytes: 16 * 1024 * 1024, cpuTimeMs: 500, maxHostCalls: 20 }
 * ```
 */
export interface SandboxLimits {
  /**
   * Heap of the script's runtime, in bytes (allocation beyond it throws `out of memory` in the script).
   * The engine's whole WebAssembly memory is capped at twice this plus 16 MiB; its worker thread adds its
   * own V8 heap (capped at 48 MiB) and about 10 MiB of baseline.
   */
  readonly memoryBytes?: number | undefined
  /**
   * Stack of the script's runtime, in bytes. Deep recursion throws `stack overflow` in the script. Kept
   * small: the engine's own frames run on the host's native stack.
   */
  readonly stackBytes?: number | undefined
  /**
   * Time the script itself may spend running (not waiting for host calls), in ms, measured by the engine's
   * thread; an infinite loop ends here. A single long builtin call ends at `timeMs` instead.
   */
  readonly cpuTimeMs?: number | undefined
  /**
   * Wall time of the whole execution, host calls included (and the wait for a free engine), in ms,
   * measured by the host: at the deadline the engine's worker is terminated wherever it is, and host calls
   * still running are cancelled.
   */
  readonly timeMs?: number | undefined
  /** Host calls per execution; the next one ends the execution with a limit failure (a script cannot catch it). */
  readonly maxHostCalls?: number | undefined
  /**
   * Bytes of host-call inputs and results the recording may hold, in UTF-8 JSON. An input is measured in
   * the engine before it is copied out; a result that crosses the limit ends the execution before it reaches
   * the script (it stays in the recording, which is then at most this plus that one result).
   */
  readonly maxRecordingBytes?: number | undefined
  /**
   * Size of the returned value as JSON, in UTF-8 bytes (measured in the engine before it is copied out). An
   * error message is cut at this many characters too.
   */
  readonly maxOutputBytes?: number | undefined
  /** Size of the captured console output, in UTF-8 bytes; later output is dropped and the cut is marked. */
  readonly maxLogBytes?: number | undefined
  /** Time limit of each host call, in ms (a tool lifecycle's own `timeoutMs` wins). Default: none beyond `timeMs`. */
  readonly hostCallTimeoutMs?: number | undefined
}

/**
 * Every limit filled in: {@link SandboxLimits} with the defaults applied (only the per-call host timeout may
 * stay unset).
 * @example
 * ```ts
 * import { DEFAULT_SANDBOX_LIMITS, type ResolvedSandboxLimits } from '@agent-core/kits/sandbox'
 * const strict: ResolvedSandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, cpuTimeMs: 200, maxHostCalls: 5 }
 * ```
 */
export type ResolvedSandboxLimits = Required<Omit<SandboxLimits, 'hostCallTimeoutMs'>> & {
  readonly hostCallTimeoutMs: number | undefined
}

/**
 * The limits used where none are given: 32 MiB of heap, a 192 KiB stack, 1 s of script time, 30 s of wall
 * time, 50 host calls, 8 MiB of host-call inputs and results, 64 KiB of output and 16 KiB of console output.
 * @example
 * ```ts
 * import { DEFAULT_SANDBOX_LIMITS } from '@agent-core/kits/sandbox'
 * DEFAULT_SANDBOX_LIMITS.cpuTimeMs // 1000
 * ```
 */
export const DEFAULT_SANDBOX_LIMITS: ResolvedSandboxLimits = Object.freeze({
  memoryBytes: 32 * 1024 * 1024,
  stackBytes: 192 * 1024,
  cpuTimeMs: 1_000,
  timeMs: 30_000,
  maxHostCalls: 50,
  maxRecordingBytes: 8 * 1024 * 1024,
  maxOutputBytes: 64 * 1024,
  maxLogBytes: 16 * 1024,
  hostCallTimeoutMs: undefined,
})

/** Bounds of each limit: the engine needs some heap and stack; the stack must stay well inside the host's. */
const BOUNDS: Record<keyof SandboxLimits, readonly [number, number]> = {
  memoryBytes: [1024 * 1024, 512 * 1024 * 1024],
  stackBytes: [32 * 1024, 256 * 1024],
  cpuTimeMs: [1, 2_147_483_647],
  timeMs: [1, 2_147_483_647],
  maxHostCalls: [0, 1_000_000],
  maxRecordingBytes: [1024, 2 ** 30],
  maxOutputBytes: [2, 2 ** 30],
  maxLogBytes: [0, 2 ** 30],
  hostCallTimeoutMs: [1, 2_147_483_647],
}

/** Checks `limits` field by field and fills in the defaults. */
export function resolveLimits(limits: unknown, field = 'limits'): ResolvedSandboxLimits {
  if (limits === undefined) return DEFAULT_SANDBOX_LIMITS
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits)) {
    refuseField(
      'definition',
      field,
      `must be an object of sandbox limits, but got ${describeValue(limits)}`,
      limits,
    )
  }
  const out: Record<string, unknown> = { ...DEFAULT_SANDBOX_LIMITS }
  for (const key of Object.keys(limits)) {
    // own keys only: `toString` or `constructor` would find Object.prototype's members
    const bounds = Object.hasOwn(BOUNDS, key) ? BOUNDS[key as keyof SandboxLimits] : undefined
    if (bounds === undefined) {
      refuseField(
        'definition',
        `${field}.${key}`,
        `is not a sandbox limit. Known limits: ${Object.keys(BOUNDS).join(', ')}`,
        (limits as Record<string, unknown>)[key],
      )
    }
    const value = (limits as Record<string, unknown>)[key]
    if (value === undefined) continue
    const [min, max] = bounds
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      refuseField(
        'definition',
        `${field}.${key}`,
        `must be a safe integer from ${min} to ${max}, but got ${describeValue(value)}`,
        value,
      )
    }
    out[key] = value
  }
  return Object.freeze(out) as ResolvedSandboxLimits
}
