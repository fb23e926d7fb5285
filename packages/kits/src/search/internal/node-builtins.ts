/**
 * The Node built-ins the search indexes need only when they hash or checksum, loaded on first use:
 * imported at the top of a module, node:crypto and node:zlib (and the node:stream they load) would add
 * 1-2 ms to every cold import of the subpath.
 */
import type { Hash } from 'node:crypto'

let nodeCrypto: typeof import('node:crypto') | undefined
let nodeZlib: typeof import('node:zlib') | undefined

/** node:crypto's `createHash`. */
export function createHash(algorithm: string): Hash {
  nodeCrypto ??= process.getBuiltinModule('node:crypto')
  return nodeCrypto.createHash(algorithm)
}

/** node:zlib's `crc32` (continuing from `value` when given). */
export function crc32(data: string | Uint8Array, value?: number): number {
  nodeZlib ??= process.getBuiltinModule('node:zlib')
  return nodeZlib.crc32(data, value)
}
