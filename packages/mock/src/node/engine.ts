/**
 * The engine, for servers that create their own: `startMockGPTServer` imports this module on first use
 * (`await import('./engine.js')`), so that importing `@agent-core/mock/node` compiles only the HTTP side (the
 * request listener and the body pump, a few KB) and not the engine's 250 KB (options and script checks,
 * routes, renderers, schema generator) that a listener over an engine the app created never needs from
 * here.
 */
export { createEngine } from '../mock-gpt.js'
export { resolveOptions } from '../internal/resolve-options.js'
