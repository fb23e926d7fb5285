/**
 * The engine and the body pump, for the node side: `startMockGPTServer` imports this module when it first
 * creates an engine (`await import('./engine.js')`), and a request listener when it is created (its first
 * response that waits or streams awaits it), so that importing `@agent-core/mock/node` compiles only its
 * own HTTP side (the request listener, the server, the record proxy: about 17 KB) and not the engine's
 * 250 KB (options and script checks, routes, renderers, the schema generator).
 *
 * The pump, the frame writer and `sleep` come from here too, not by static imports: every module that the
 * entries `@agent-core/mock` and `/web` reach statically and this module reaches as well is in the one
 * engine chunk, but a module that `/node` imported statically as well would be split into a chunk of its
 * own (esbuild groups modules by the set of entries that reach them), one module more in every cold import
 * of the root and `/web`. In a process that made its engine with `createMockGPT` the engine chunk is loaded
 * already, and this module costs one small module on the listener's creation.
 */
export { PackedFrames } from '../internal/frame-writer.js'
export { resolveOptions } from '../internal/resolve-options.js'
export { sleep, untilAborted } from '../internal/sleep.js'
export { createEngine } from '../mock-gpt.js'
export { pumpMockBody } from '../pump-mock-body.js'
