const CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/** Standard base64 of bytes, without platform APIs (no Buffer, no btoa). */
export function base64(bytes: Uint8Array): string {
  let out = ''
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number)
    out += CHARS[(n >> 18) & 63]! + CHARS[(n >> 12) & 63]! + CHARS[(n >> 6) & 63]! + CHARS[n & 63]!
  }
  const rest = bytes.length - i
  if (rest === 1) {
    const n = (bytes[i] as number) << 16
    out += `${CHARS[(n >> 18) & 63]!}${CHARS[(n >> 12) & 63]!}==`
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8)
    out += `${CHARS[(n >> 18) & 63]!}${CHARS[(n >> 12) & 63]!}${CHARS[(n >> 6) & 63]!}=`
  }
  return out
}

/** The little-endian float32 bytes of `values`, base64-encoded (OpenAI's `encoding_format: 'base64'`). */
export function float32Base64(values: readonly number[]): string {
  const array = new Float32Array(values)
  return base64(new Uint8Array(array.buffer, array.byteOffset, array.byteLength))
}
