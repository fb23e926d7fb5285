import type { Hash } from 'node:crypto'

let nodeCrypto: typeof import('node:crypto') | undefined

/**
 * A SHA-256 hash, node:crypto loaded on first use (importing it at the top would cost every cold import of
 * this subpath about 2 ms). This subpath's own copy of knowledge/internal/node-hash.ts: a module that both
 * `kits/knowledge` and this subpath import becomes a chunk of its own in the build, one module more for
 * each of them to load (docs/design/cold-import.md).
 */
function sha256(): Hash {
  nodeCrypto ??= process.getBuiltinModule('node:crypto')
  return nodeCrypto.createHash('sha256')
}

/** One column value of a checksummed row. */
export type ChecksumValue = string | number | bigint | null | Buffer

/**
 * The store's own checksum of a row: SHA-256 over every column (with its type and length, so that no two
 * rows of different content encode alike), its first 64 bits as 16 hex digits.
 */
export function rowChecksum(values: readonly ChecksumValue[]): string {
  const hash = sha256()
  for (const value of values) {
    if (value === null) hash.update('n;')
    else if (Buffer.isBuffer(value)) hash.update(`b${value.length};`).update(value)
    else if (typeof value === 'string') hash.update(`s${Buffer.byteLength(value)};`).update(value)
    else hash.update(`i${String(value)};`)
  }
  return hash.digest('hex').slice(0, 16)
}

/**
 * The checksum of a set of rows: their row checksums combined with XOR, so that adding or removing one
 * row updates it without reading the others (no two rows are alike: each holds its primary key).
 */
export class SetChecksum {
  #value = 0n
  #rows = 0

  constructor(digest = '0', rows = 0) {
    this.#value = BigInt(`0x${digest}`)
    this.#rows = rows
  }

  add(checksum: string): void {
    this.#value ^= BigInt(`0x${checksum}`)
    this.#rows += 1
  }

  remove(checksum: string): void {
    this.#value ^= BigInt(`0x${checksum}`)
    this.#rows -= 1
  }

  get rows(): number {
    return this.#rows
  }

  get digest(): string {
    return this.#value.toString(16).padStart(16, '0')
  }
}
