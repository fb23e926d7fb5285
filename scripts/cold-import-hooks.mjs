/**
 * Module customization hooks for the cold-import probe (scripts/cold-import.mjs), registered with
 * `module.register` in a fresh Node process. They record every ESM `load` (URL and format: `module`,
 * `commonjs`, `json`, `builtin`, ...) and every `resolve` edge (importing URL -> resolved URL), and hand the
 * lists to the main thread when it asks. They change nothing: each hook returns what the next one returned.
 * CommonJS modules that `require()` other CommonJS modules never pass through these hooks on Node 20; the
 * probe reads those from the CommonJS module cache instead.
 */

/** @type {{ url: string, format: string | null | undefined }[]} */
const loads = []
/** @type {{ parent: string, url: string }[]} */
const edges = []

/** @param {{ port: import('node:worker_threads').MessagePort }} data */
export function initialize(data) {
  data.port.on('message', () => data.port.postMessage({ loads, edges }))
  data.port.unref()
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context)
  if (context.parentURL) edges.push({ parent: context.parentURL, url: resolved.url })
  return resolved
}

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context)
  loads.push({ url, format: loaded.format })
  return loaded
}
