/**
 * A sandboxed code tool: the model writes a script (TypeScript or JavaScript), QuickJS runs it, and your
 * tools are its library. One code call replaces many tool turns: the script calls tools as async functions
 * (in parallel if it likes), computes in between, and returns one JSON value.
 *
 * - {@link defineCodeTool} makes the core `ModelTool` an agent offers the model; every host call goes
 *   through the `tools` kit lifecycle, and a host call that needs a person suspends the whole code call
 *   the way the agent loop suspends any call; once approved it runs again, replaying what it already did.
 * - {@link executeSandbox} runs a script without the loop; {@link replaySandbox} replays a recording
 *   without calling any tool.
 * - {@link describeTools} renders the tools' TypeScript declarations for the prompt.
 * - {@link preloadSandbox} loads the engine at start-up instead of on the first run.
 *
 * Each run gets a fresh runtime with limits (memory, stack, CPU time, wall time, host calls, output), no
 * ambient I/O (no fetch, timers or modules), frozen intrinsics, a seeded `Math.random` and a frozen UTC
 * clock. The engine is the optional peer dependency `quickjs-emscripten`, loaded on the first run.
 *
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { executeSandbox } from '@agent-core/kits/sandbox'
 *
 * const price = defineModelTool<{ sku: string }, number>({
 *   id: 'price',
 *   description: 'The price of a product',
 *   inputSchema: { type: 'object', required: ['sku'], properties: { sku: { type: 'string' } } },
 *   execute: ({ sku }) => (sku === 'book' ? 12 : 30),
 * })
 * const result = await executeSandbox(
 *   `const prices: number[] = await Promise.all(['book', 'lamp'].map((sku) => price({ sku })))
 *    return prices.reduce((a, b) => a + b, 0)`,
 *   [price],
 * )
 * // result.status === 'completed', result.value === 42
 * ```
 *
 * @module
 */
export {
  type CodeTool,
  type CodeToolInput,
  type CodeToolOptions,
  type CodeToolOutput,
  defineCodeTool,
} from './code-tool.js'
export { defineDescribeTool, describeTools } from './describe-tools.js'
export {
  type ExecuteSandboxOptions,
  executeSandbox,
  preloadSandbox,
  replaySandbox,
  type SandboxToolEntry,
  type SandboxTools,
} from './execute-sandbox.js'
export { SandboxUnavailableError } from './sandbox-errors.js'
export {
  DEFAULT_SANDBOX_LIMITS,
  type ResolvedSandboxLimits,
  type SandboxLimits,
} from './sandbox-limits.js'
export {
  assertSandboxRecording,
  MemoryRecordingStore,
  type MemoryRecordingStoreOptions,
  type SandboxRecording,
  type SandboxRecordingStore,
} from './sandbox-recording.js'
export type {
  SandboxErrorInfo,
  SandboxLimitName,
  SandboxLog,
  SandboxResult,
  SandboxResultBase,
} from './sandbox-result.js'
