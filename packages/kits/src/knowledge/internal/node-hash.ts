/**
 * node:crypto's `createHash`, loaded on first use: imported at the top of a module, node:crypto (and the
 * node:stream it loads) would add about 2 ms to every cold import of the knowledge subpaths.
 */
import type { Hash } from 'node:crypto'

let nodeCrypto: typeof import('node:crypto') | undefined

/** node:crypto's `createHash`. */
export function createHash(algorithm: string): Hash {
  nodeCrypto ??= process.getBuiltinModule('node:crypto')
  return nodeCrypto.createHash(algorithm)
}
