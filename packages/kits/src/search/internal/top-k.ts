/**
 * Top-k selection over a score array. Order: higher score first; equal scores by id in ascending UTF-16
 * code-unit order (`<` on strings), so results never depend on insertion or removal history.
 */

/** True when slot `a` ranks before slot `b`. */
function ranksBefore(scores: Float64Array, ids: readonly string[], a: number, b: number): boolean {
  const sa = scores[a]!
  const sb = scores[b]!
  return sa > sb || (sa === sb && ids[a]! < ids[b]!)
}

/**
 * The best `k` slots among the first `count`, best first, skipping scores below `minScore`. Uses a
 * size-k min-heap (worst kept slot at the root): O(count log k) and one comparison per rejected slot.
 */
export function topK(
  scores: Float64Array,
  ids: readonly string[],
  count: number,
  k: number,
  minScore: number,
): number[] {
  const size = Math.min(k, count)
  if (size === 0) return []
  const heap = new Int32Array(size)
  let filled = 0
  for (let slot = 0; slot < count; slot++) {
    const score = scores[slot]!
    if (score < minScore) continue
    if (filled < size) {
      // Sift up: the new slot moves toward the root while it ranks after its parent.
      let i = filled++
      while (i > 0) {
        const parent = (i - 1) >> 1
        const p = heap[parent]!
        if (!ranksBefore(scores, ids, p, slot)) break
        heap[i] = p
        i = parent
      }
      heap[i] = slot
      continue
    }
    const root = heap[0]!
    const rootScore = scores[root]!
    if (score < rootScore || (score === rootScore && ids[slot]! > ids[root]!)) continue
    siftDownWorst(heap, filled, scores, ids, slot)
  }
  const result = Array.from(heap.subarray(0, filled))
  result.sort((a, b) => (ranksBefore(scores, ids, a, b) ? -1 : 1))
  return result
}

/** Replaces the root of a worst-first heap with `slot` and restores the heap. */
function siftDownWorst(
  heap: Int32Array,
  size: number,
  scores: Float64Array,
  ids: readonly string[],
  slot: number,
) {
  let i = 0
  for (;;) {
    const left = 2 * i + 1
    if (left >= size) break
    const right = left + 1
    // The child that ranks last (the worst) is the one that may move up.
    let worst = heap[left]!
    let worstIndex = left
    if (right < size) {
      const r = heap[right]!
      if (ranksBefore(scores, ids, worst, r)) {
        worst = r
        worstIndex = right
      }
    }
    if (!ranksBefore(scores, ids, slot, worst)) break
    heap[i] = worst
    i = worstIndex
  }
  heap[i] = slot
}

/**
 * Yields slots best first, lazily: a max-heap built in O(count) and popped in O(log count) each, for
 * requests whose filter or grouping decides only while walking down the ranking.
 */
export class RankedSlots {
  readonly #heap: Int32Array
  readonly #scores: Float64Array
  readonly #ids: readonly string[]
  #size: number

  constructor(scores: Float64Array, ids: readonly string[], count: number, minScore: number) {
    this.#scores = scores
    this.#ids = ids
    const heap = new Int32Array(count)
    let size = 0
    for (let slot = 0; slot < count; slot++) if (scores[slot]! >= minScore) heap[size++] = slot
    this.#heap = heap
    this.#size = size
    for (let i = (size >> 1) - 1; i >= 0; i--) this.#siftDown(i, heap[i]!)
  }

  /** The next best slot, or -1 when none is left. */
  next(): number {
    if (this.#size === 0) return -1
    const heap = this.#heap
    const best = heap[0]!
    const last = heap[--this.#size]!
    if (this.#size > 0) this.#siftDown(0, last)
    return best
  }

  #siftDown(i: number, slot: number): void {
    const heap = this.#heap
    const size = this.#size
    for (;;) {
      const left = 2 * i + 1
      if (left >= size) break
      const right = left + 1
      let best = heap[left]!
      let bestIndex = left
      if (right < size) {
        const r = heap[right]!
        if (ranksBefore(this.#scores, this.#ids, r, best)) {
          best = r
          bestIndex = right
        }
      }
      if (!ranksBefore(this.#scores, this.#ids, best, slot)) break
      heap[i] = best
      i = bestIndex
    }
    heap[i] = slot
  }
}
