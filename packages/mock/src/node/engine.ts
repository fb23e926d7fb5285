/**
 * The engine, for servers that create their own: `startMockGPTServer` imports this module when it first
 * creates one (`await import('./engine.js')`), so that importing `@agent-core/mock/node` compiles only the
 * HTTP side (the request listener, the body pump, the frame writer: about 25 KB) and not the engine's
 * 250 KB (options and script checks, routes, renderers, the schema generator), which a listener over an
 * engine the app made itself never needs from here.
 *
 * `pumpMockBody` is re-exported for the bundler only (no caller takes it from here): the engine's chunk
 * imports the frame writer, so the frame writer is reached by this dynamic entry too, and the body pump
 * (with `sleep`) must be as well, or esbuild puts the two in separate chunks: one module more in every cold
 * import of the root, /node and /web.
 */
export { resolveOptions } from '../internal/resolve-options.js'
export { createEngine } from '../mock-gpt.js'
export { pumpMockBody } from '../pump-mock-body.js'
