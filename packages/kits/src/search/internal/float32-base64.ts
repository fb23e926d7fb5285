const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/** Encodes the first `length` floats of `values` as base64 of their little-endian IEEE-754 bytes. */
export function float32ToBase64(values: Float32Array, length: number): string {
  const bytes = new Uint8Array(values.buffer, values.byteOffset, length * 4)
  if (LITTLE_ENDIAN) return Buffer.from(bytes).toString('base64')
  const copy = new Uint8Array(length * 4)
  const view = new DataView(copy.buffer)
  for (let i = 0; i < length; i++) view.setFloat32(i * 4, values[i]!, true)
  return Buffer.from(copy).toString('base64')
}

/**
 * Decodes {@link float32ToBase64}; returns `undefined` when the text is not base64 of whole floats. A
 * character outside the base64 alphabet is skipped by the decoder, which makes the output shorter than
 * the text promises: that is how a damaged text is noticed without a second pass over it.
 */
export function base64ToFloat32(text: string): Float32Array | undefined {
  if (text.length % 4 !== 0) return undefined
  const bytes = Buffer.from(text, 'base64')
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0
  if (bytes.length !== (text.length / 4) * 3 - padding || bytes.length % 4 !== 0) return undefined
  if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) {
    return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4)
  }
  const out = new Float32Array(bytes.length / 4)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length)
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true)
  return out
}
