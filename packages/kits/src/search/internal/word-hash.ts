import { kernelMemory } from './vector-kernel.js'
import { lazyWasmModule } from './wasm-module.js'
import { WORD_HASH_WASM } from './word-hash-wasm.js'

/**
 * The checksum of the vectors in a version 2 vector stream (snapshot-stream.ts): a 32-bit hash of
 * 32-bit words that WebAssembly SIMD computes at about 20 GB/s, against about 5 GB/s for node:zlib's
 * CRC-32, and in place where the vectors already live in a kernel's memory (vector-kernel.ts).
 *
 * Definition, over a byte string of length L:
 * - the words w[0..n) are the bytes read as little-endian u32, the last one zero-padded (n = ceil(L / 4));
 * - 16 lanes start at v[j] = (j + 1) * P5; word w[i] is folded into lane i mod 16, in order, by
 *   v = rotl(v + w * P2, 13) * P1 (XXH32's round; all arithmetic mod 2^32);
 * - h = (L mod 2^32 + P5) xor (floor(L / 2^32) * P3); then for each lane j in order,
 *   h = rotl(h + v[j] * P3, 17) * P4; then XXH32's final avalanche of h.
 *
 * What it detects: every step is a bijection of the lane (or of h) for a fixed word, and of the word for
 * a fixed lane, so a change confined to one aligned 32-bit word (any single bit flip, any damage inside
 * one float) always changes the hash. Anything else (two damaged words, a swapped pair of vectors) goes
 * unnoticed with a probability of about 2^-32 for accidental damage, as with CRC-32; but unlike CRC-32 it
 * does not guarantee to catch every two-bit error or every burst of up to 32 bits that straddles two
 * words. Neither detects deliberate tampering. {@link wordHashReference} is the definition as a plain loop.
 */

const P1 = 0x9e3779b1
const P2 = 0x85ebca77
const P3 = 0xc2b2ae3d
const P4 = 0x27d4eb2f
const P5 = 0x165667b1
/** Bytes per block: one word per lane. */
const BLOCK = 64
/** Bytes copied at a time into the scratch memory, for bytes that live outside a kernel's memory. */
const SCRATCH_BYTES = 64 * 1024

type Update = (data: number, blocks: number, state: number) => void

interface Site {
  readonly update: Update
  /** The 16 lanes, where `update` reads and writes them. */
  readonly lanes: Uint32Array
  readonly state: number
}

const sites = new WeakMap<ArrayBufferLike, Site | null>()
let scratch: (Site & { readonly bytes: Uint8Array }) | null | undefined

const module = lazyWasmModule(WORD_HASH_WASM)

function instantiate(memory: WebAssembly.Memory, state: number): Site | null {
  const compiledModule = module()
  if (compiledModule === null) return null
  try {
    const instance = new WebAssembly.Instance(compiledModule, { env: { memory } })
    return {
      update: instance.exports.update as Update,
      lanes: new Uint32Array(memory.buffer, state, 16),
      state,
    }
  } catch {
    return null
  }
}

/** The kernel over the memory that holds `buffer` (in place), or undefined when it is not a kernel's. */
function siteOf(buffer: ArrayBufferLike): Site | null {
  let site = sites.get(buffer)
  if (site === undefined) {
    const kernel = kernelMemory(buffer)
    site = kernel === undefined ? null : instantiate(kernel.memory, kernel.spare)
    sites.set(buffer, site)
  }
  return site
}

/** A kernel with a small memory of its own, that bytes from elsewhere are copied into; null without SIMD. */
function scratchSite(): (Site & { readonly bytes: Uint8Array }) | null {
  if (scratch !== undefined) return scratch
  scratch = null
  if (module() === null) return scratch
  try {
    const memory = new WebAssembly.Memory({ initial: 2, maximum: 2 })
    const site = instantiate(memory, SCRATCH_BYTES)
    if (site !== null) scratch = { ...site, bytes: new Uint8Array(memory.buffer, 0, SCRATCH_BYTES) }
  } catch {
    scratch = null
  }
  return scratch
}

function round(lane: number, word: number): number {
  const t = (lane + Math.imul(word, P2)) | 0
  return Math.imul((t << 13) | (t >>> 19), P1)
}

/** Folds the `blocks` whole blocks of `bytes` into `lanes`, by the plain loop. */
function updateBlocksJs(lanes: Uint32Array, bytes: Uint8Array, blocks: number): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, blocks * BLOCK)
  for (let at = 0; at < blocks * BLOCK; at += BLOCK)
    for (let j = 0; j < 16; j++) lanes[j] = round(lanes[j]!, view.getUint32(at + j * 4, true))
}

function updateBlocksAt(site: Site, lanes: Uint32Array, data: number, blocks: number): void {
  site.lanes.set(lanes)
  site.update(data, blocks, site.state)
  lanes.set(site.lanes)
}

/** How {@link WordHash} folds whole blocks: `'auto'` picks the fastest that this runtime has. */
export type WordHashPath = 'auto' | 'scratch' | 'js'

/** The word hash of a byte stream given in pieces of any size (see the module comment). */
export class WordHash {
  readonly #lanes = new Uint32Array(16)
  readonly #carry = new Uint8Array(BLOCK)
  #carried = 0
  #length = 0
  readonly #path: WordHashPath

  constructor(path: WordHashPath = 'auto') {
    this.#path = path
    for (let j = 0; j < 16; j++) this.#lanes[j] = Math.imul(j + 1, P5)
  }

  /** Adds the next bytes. */
  update(bytes: Uint8Array): void {
    this.#length += bytes.length
    let at = 0
    if (this.#carried > 0) {
      at = Math.min(BLOCK - this.#carried, bytes.length)
      this.#carry.set(bytes.subarray(0, at), this.#carried)
      this.#carried += at
      if (this.#carried < BLOCK) return
      updateBlocksJs(this.#lanes, this.#carry, 1)
      this.#carried = 0
    }
    const blocks = Math.floor((bytes.length - at) / BLOCK)
    if (blocks > 0) this.#updateBlocks(bytes.subarray(at, at + blocks * BLOCK), blocks)
    at += blocks * BLOCK
    if (at < bytes.length) {
      this.#carry.set(bytes.subarray(at))
      this.#carried = bytes.length - at
    }
  }

  /** The hash of every byte added so far, as an unsigned 32-bit integer. */
  digest(): number {
    const lanes = this.#lanes.slice()
    const carry = this.#carry.slice()
    carry.fill(0, this.#carried)
    const view = new DataView(carry.buffer)
    for (let j = 0; j < Math.ceil(this.#carried / 4); j++)
      lanes[j] = round(lanes[j]!, view.getUint32(j * 4, true))
    return finish(lanes, this.#length)
  }

  #updateBlocks(bytes: Uint8Array, blocks: number): void {
    const inPlace = this.#path === 'auto' ? siteOf(bytes.buffer) : null
    if (inPlace !== null) {
      updateBlocksAt(inPlace, this.#lanes, bytes.byteOffset, blocks)
      return
    }
    const site = this.#path === 'js' ? null : scratchSite()
    if (site === null) {
      updateBlocksJs(this.#lanes, bytes, blocks)
      return
    }
    for (let from = 0; from < bytes.length; from += SCRATCH_BYTES) {
      const piece = bytes.subarray(from, Math.min(bytes.length, from + SCRATCH_BYTES))
      site.bytes.set(piece)
      updateBlocksAt(site, this.#lanes, 0, piece.length / BLOCK)
    }
  }
}

function finish(lanes: Uint32Array, length: number): number {
  let h = ((length >>> 0) + P5) ^ Math.imul(Math.floor(length / 2 ** 32), P3)
  for (let j = 0; j < 16; j++) {
    const t = (h + Math.imul(lanes[j]!, P3)) | 0
    h = Math.imul((t << 17) | (t >>> 15), P4)
  }
  h ^= h >>> 15
  h = Math.imul(h, P2)
  h ^= h >>> 13
  h = Math.imul(h, P3)
  h ^= h >>> 16
  return h >>> 0
}

/** The word hash of `bytes` by its definition, word after word (the model the tests hold WordHash to). */
export function wordHashReference(bytes: Uint8Array): number {
  const padded = new Uint8Array(Math.ceil(bytes.length / 4) * 4)
  padded.set(bytes)
  const view = new DataView(padded.buffer)
  const lanes = new Uint32Array(16)
  for (let j = 0; j < 16; j++) lanes[j] = Math.imul(j + 1, P5)
  for (let i = 0; i < padded.length / 4; i++)
    lanes[i % 16] = round(lanes[i % 16]!, view.getUint32(i * 4, true))
  return finish(lanes, bytes.length)
}
