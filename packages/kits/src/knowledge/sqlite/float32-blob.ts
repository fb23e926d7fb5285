/** Vectors as BLOBs of little-endian float32, whatever the host's byte order. */
import { KnowledgeStoreError } from '@agent-core/kits/knowledge'

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** The BLOB of a vector: its bytes as they are on a little-endian host (no copy there). */
export function toBlob(vector: Float32Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength)
  const out = Buffer.alloc(vector.length * 4)
  for (let i = 0; i < vector.length; i++) out.writeFloatLE(vector[i] as number, i * 4)
  return out
}

/** The vector of a BLOB, checked for length (a view of the BLOB when it is aligned, else a copy). */
export function fromBlob(blob: unknown, dimensions: number, hash: string): Float32Array {
  if (!Buffer.isBuffer(blob) || blob.length !== dimensions * 4) {
    throw new KnowledgeStoreError(
      `SqliteKnowledgeStore: the vector of "${hash}" is ${Buffer.isBuffer(blob) ? `${blob.length} bytes` : 'not a BLOB'}, not ${dimensions * 4} (${dimensions} float32): the database is corrupt. Delete its embeddings table (they are embedded again) or the file.`,
      { details: { operation: 'load' } },
    )
  }
  if (!LITTLE_ENDIAN) {
    const out = new Float32Array(dimensions)
    for (let i = 0; i < dimensions; i++) out[i] = blob.readFloatLE(i * 4)
    return out
  }
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, dimensions)
  const out = new Float32Array(dimensions)
  new Uint8Array(out.buffer).set(blob)
  return out
}
