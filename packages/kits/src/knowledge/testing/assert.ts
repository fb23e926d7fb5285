import type nodeAssert from 'node:assert/strict'

type Assert = typeof nodeAssert

let loaded: Assert | undefined

/**
 * `node:assert/strict`, loaded on the first assertion instead of at import: that module costs about 3 ms
 * of a cold start (docs/design/cold-import.md), which an app that imports this suite without running it, or
 * before running it, need not pay. It is reached through `process.getBuiltinModule` (Node 20.16+) rather
 * than `createRequire`, whose `node:module` import cost about 0.4 ms of the cold import. Every member is
 * the real one (`assert.equal === nodeAssert.equal`), so failures, messages and `AssertionError`s are
 * exactly those of `node:assert/strict`.
 */
export const assert: Assert = new Proxy(Object.create(null) as Assert, {
  get: (_target, key) => {
    loaded ??= process.getBuiltinModule('node:assert/strict') as Assert
    return Reflect.get(loaded, key)
  },
})
