/**
 * The search kit's WebAssembly modules (the vector kernels, the word hash) are compiled on first use, once
 * per process, from the base64 their generated `*-wasm.ts` file holds. A runtime without WebAssembly, or
 * without the SIMD its code needs (`WebAssembly.validate` fails), gets null, and the caller takes its plain
 * JavaScript path.
 */
export function lazyWasmModule(base64: string): () => WebAssembly.Module | null {
  let compiled: WebAssembly.Module | null | undefined
  return () => {
    if (compiled !== undefined) return compiled
    compiled = null
    try {
      if (typeof WebAssembly === 'object') {
        const bytes = Uint8Array.from(Buffer.from(base64, 'base64'))
        if (WebAssembly.validate(bytes)) compiled = new WebAssembly.Module(bytes)
      }
    } catch {
      compiled = null
    }
    return compiled
  }
}
