import {
  assertNonEmptyString,
  assertSafeInteger,
  DuplicateIdError,
  describeValue,
  InvalidInputError,
  refuseField,
} from '@agent-core/core'
import { assertFiniteNumber } from './internal/checks.js'

/**
 * Anything with an id can be ranked: search hits, database rows, ...
 *
 * @example
 * ```ts
 * import type { RankedItem } from '@agent-core/kits/search'
 * const item: RankedItem = { id: 'doc-1' }
 * ```
 */
export interface RankedItem {
  /** Identifies the item across lists: equal ids in different lists are fused into one result. */
  readonly id: string
}

/**
 * One input ranking of {@link reciprocalRankFusion}: the hits of one source, best first.
 *
 * @example
 * ```ts
 * import type { Ranking } from '@agent-core/kits/search'
 * const lexical: Ranking = { sourceId: 'text', hits: [{ id: 'a' }, { id: 'b' }], weight: 1 }
 * ```
 */
export interface Ranking<Item extends RankedItem = RankedItem> {
  /** Names the source (e.g. `"text"`, `"vector"`); unique among the lists of one call. */
  readonly sourceId: string
  /** Best first; the first hit has rank 1. An id may occur only once per list. */
  readonly hits: readonly Item[]
  /** Multiplies this list's contributions; a positive finite number, default 1. */
  readonly weight?: number
}

/**
 * Options of {@link reciprocalRankFusion}.
 *
 * @example
 * ```ts
 * import type { ReciprocalRankFusionOptions } from '@agent-core/kits/search'
 * const options: ReciprocalRankFusionOptions = { k: 60, rankWindow: 100, limit: 10 }
 * ```
 */
export interface ReciprocalRankFusionOptions {
  /** The rank constant: a finite number of at least 0, default 60 (Cormack, Clarke and Büttcher, 2009). */
  readonly k?: number
  /** Only ranks 1 to `rankWindow` of each list contribute (a safe integer of at least 1); default all. */
  readonly rankWindow?: number
  /** The most fused results to return (a safe integer of at least 0); default all. */
  readonly limit?: number
}

/**
 * One list's share of a {@link FusedRank}.
 *
 * @example
 * ```ts
 * import type { RankContribution } from '@agent-core/kits/search'
 * const part: RankContribution = { sourceId: 'text', rank: 1, weight: 1, contribution: 1 / 61, hit: { id: 'a' } }
 * ```
 */
export interface RankContribution<Item extends RankedItem = RankedItem> {
  /** The list it comes from. */
  readonly sourceId: string
  /** The 1-based rank of the id in that list. */
  readonly rank: number
  /** That list's weight. */
  readonly weight: number
  /** `weight / (k + rank)`. */
  readonly contribution: number
  /** The hit as given in that list (the same object, not a copy). */
  readonly hit: Item
}

/**
 * One fused result of {@link reciprocalRankFusion}.
 *
 * @example
 * ```ts
 * import { reciprocalRankFusion, type FusedRank } from '@agent-core/kits/search'
 * const [first]: readonly FusedRank[] = reciprocalRankFusion([{ sourceId: 'a', hits: [{ id: 'x' }] }])
 * console.log(first?.score) // 1 / 61
 * ```
 */
export interface FusedRank<Item extends RankedItem = RankedItem> {
  /** The id shared by the fused hits. */
  readonly id: string
  /** The sum of the contributions. Only comparable with other scores of the same call. */
  readonly score: number
  /** The 1-based position in the fused ranking. */
  readonly rank: number
  /** One entry per list the id occurs in (within the rank window), in the order of the lists. */
  readonly contributions: readonly RankContribution<Item>[]
}

/**
 * Fuses rankings with Reciprocal Rank Fusion: each id scores the sum, over the lists it occurs in, of
 * `weight / (k + rank)`, with ranks counted from 1 and `k` 60 by default (Cormack, Clarke and Büttcher,
 * SIGIR 2009). Only ranks are used, never the lists' own scores, so lexical and vector results fuse
 * without comparing their incompatible scales.
 *
 * Order: higher fused score first; on equal scores, the id with the better (smaller) best rank in any
 * list first; then ids in ascending UTF-16 code-unit order. The result is fully deterministic. The work
 * is linear in the number of input hits: one Map lookup per hit, a counting sort of the hits by id, a
 * radix sort of the distinct ids (or a heap of `limit` entries), and one object per returned contribution.
 *
 * @throws InvalidInputError on bad lists, ids, weights or options, or an id repeated within one list
 * @throws DuplicateIdError when two lists share a sourceId
 * @example
 * ```ts
 * import { reciprocalRankFusion } from '@agent-core/kits/search'
 * const fused = reciprocalRankFusion([
 *   { sourceId: 'text', hits: [{ id: 'a' }, { id: 'b' }] },
 *   { sourceId: 'vector', hits: [{ id: 'b' }, { id: 'c' }] },
 * ])
 * console.log(fused.map((f) => f.id)) // ["b", "a", "c"]
 * ```
 */
export function reciprocalRankFusion<Lists extends readonly Ranking[]>(
  lists: Lists,
  options: ReciprocalRankFusionOptions = {},
): readonly FusedRank<Lists[number]['hits'][number]>[] {
  return fuse(lists as readonly Ranking<Lists[number]['hits'][number]>[], options)
}

function fuse<Item extends RankedItem>(
  lists: readonly Ranking<Item>[],
  options: ReciprocalRankFusionOptions,
): FusedRank<Item>[] {
  if (!Array.isArray(lists)) {
    throw new InvalidInputError(
      `reciprocalRankFusion takes an array of rankings like [{ sourceId: 'text', hits }], but got ${describeValue(lists)}.`,
      { details: { field: 'lists', received: describeValue(lists) } },
    )
  }
  if (typeof options !== 'object' || options === null) {
    refuseField('input', 'options', `must be an object, but got ${describeValue(options)}`, options, {
      prefix: 'reciprocalRankFusion ',
    })
  }
  const k = options.k ?? 60
  assertFiniteNumber(k, 'options.k', { min: 0 })
  const window = options.rankWindow ?? Number.MAX_SAFE_INTEGER
  assertSafeInteger(window, 'options.rankWindow', { min: 1 })
  const limit = options.limit ?? Number.MAX_SAFE_INTEGER
  assertSafeInteger(limit, 'options.limit', { min: 0 })

  // Check every list first, so the fusion loop below only reads.
  const sources = new Set<string>()
  const weights = new Float64Array(lists.length)
  let total = 0
  for (let l = 0; l < lists.length; l++) {
    const list = lists[l]
    if (typeof list !== 'object' || list === null) {
      refuseField('input', `lists[${l}]`, `must be an object, but got ${describeValue(list)}`, list, {
        prefix: 'reciprocalRankFusion ',
      })
    }
    const { sourceId, hits } = list
    assertNonEmptyString(sourceId, `lists[${l}].sourceId`)
    if (sources.has(sourceId)) {
      throw new DuplicateIdError(
        `reciprocalRankFusion got two lists with sourceId "${sourceId}". Give each list its own sourceId, or merge them first.`,
        { details: { id: sourceId } },
      )
    }
    sources.add(sourceId)
    const weight = list.weight ?? 1
    assertFiniteNumber(weight, `lists[${l}].weight`, {
      min: 0,
      exclusiveMin: true,
    })
    weights[l] = weight
    if (!Array.isArray(hits)) {
      throw new InvalidInputError(
        `reciprocalRankFusion list "${sourceId}" hits must be an array, but got ${describeValue(hits)}.`,
        { details: { field: `lists[${l}].hits`, received: describeValue(hits) } },
      )
    }
    total += Math.min(hits.length, window)
  }

  // Three passes that each read their input in order. 1: one Map lookup per hit names the id's slot
  // (slots numbered by first occurrence) and counts the slot's hits; nothing else is touched per hit, so
  // the only random accesses are the Map's own and one small counter. 2: a counting sort groups the hits
  // by slot as (list, rank) pairs, each group in list order. 3: one walk over the groups sums each slot's
  // score in list order, keeps its best rank and finds an id repeated within a list. No object is
  // allocated per input hit; the returned contributions are made from the groups, row after row.
  const slotOf = new Map<string, number>()
  const ids: string[] = []
  const cursor = new Int32Array(total)
  const nodeSlot = new Int32Array(total)
  let node = 0
  for (let l = 0; l < lists.length; l++) {
    const hits = lists[l]!.hits
    const end = Math.min(hits.length, window)
    for (let i = 0; i < end; i++) {
      const hit = hits[i]
      const id = typeof hit === 'object' && hit !== null ? hit.id : undefined
      if (typeof id !== 'string' || id.length === 0) throw badHit(lists, l, i, id, window)
      let slot = slotOf.get(id)
      if (slot === undefined) {
        slot = ids.length
        slotOf.set(id, slot)
        ids.push(id)
      }
      cursor[slot]!++
      nodeSlot[node++] = slot
    }
  }

  const count = ids.length
  // Slot s's hits are groups[2 * starts[s]] to groups[2 * starts[s + 1]], each a (list, rank) pair.
  const starts = new Int32Array(count + 1)
  for (let s = 0, at = 0; s < count; s++) {
    const n = cursor[s]!
    cursor[s] = at
    at += n
    starts[s + 1] = at
  }
  const groups = new Int32Array(2 * total)
  node = 0
  for (let l = 0; l < lists.length; l++) {
    const end = Math.min(lists[l]!.hits.length, window)
    for (let i = 0; i < end; i++) {
      const at = 2 * cursor[nodeSlot[node++]!]!++
      groups[at] = l
      groups[at + 1] = i + 1
    }
  }

  const scores = new Float64Array(count)
  const bestRanks = new Int32Array(count)
  // the first repeat in the order the lists are read: (list, rank), or none
  let repeatList = lists.length
  let repeatRank = 0
  let repeatSlot = -1
  for (let s = 0; s < count; s++) {
    const end = 2 * starts[s + 1]!
    let at = 2 * starts[s]!
    let l = groups[at]!
    let rank = groups[at + 1]!
    // Added in list order, like the reference formula: the sums are bit-for-bit reproducible.
    let score = weights[l]! / (k + rank)
    let best = rank
    for (at += 2; at < end; at += 2) {
      const next = groups[at]!
      rank = groups[at + 1]!
      if (next === l && (l < repeatList || (l === repeatList && rank < repeatRank))) {
        repeatList = l
        repeatRank = rank
        repeatSlot = s
      }
      score += weights[next]! / (k + rank)
      if (rank < best) best = rank
      l = next
    }
    scores[s] = score
    bestRanks[s] = best
  }
  if (repeatSlot >= 0) {
    const { sourceId, hits } = lists[repeatList]!
    throw repeatedId(hits, repeatList, sourceId, ids[repeatSlot]!, repeatRank)
  }

  const selected =
    limit < count
      ? selectBest(count, limit, (a, b) => compareSlots(a, b, scores, bestRanks, ids))
      : sortSlots(count, scores, bestRanks, ids)

  // The fused ranks in order, each with its group's contributions (in list order), made from the hits read.
  const sourceIds: string[] = new Array(lists.length)
  const hitsOf: (readonly Item[])[] = new Array(lists.length)
  for (let l = 0; l < lists.length; l++) {
    sourceIds[l] = lists[l]!.sourceId
    hitsOf[l] = lists[l]!.hits
  }
  const out: FusedRank<Item>[] = new Array(selected.length)
  for (let p = 0; p < selected.length; p++) {
    const slot = selected[p]!
    const first = starts[slot]!
    const contributions: RankContribution<Item>[] = new Array(starts[slot + 1]! - first)
    for (let c = 0, at = 2 * first; c < contributions.length; c++, at += 2) {
      const l = groups[at]!
      const rank = groups[at + 1]!
      const weight = weights[l]!
      contributions[c] = {
        sourceId: sourceIds[l]!,
        rank,
        weight,
        contribution: weight / (k + rank),
        hit: hitsOf[l]![rank - 1]!,
      }
    }
    out[p] = { id: ids[slot]!, score: scores[slot]!, rank: p + 1, contributions }
  }
  return out
}

/**
 * The error for a hit without a usable id at lists[l].hits[i], or for an id repeated before it: the
 * first fault in the order the lists are read, as a scan that checks each hit in turn would meet it.
 */
function badHit(
  lists: readonly Ranking[],
  l: number,
  i: number,
  id: unknown,
  window: number,
): InvalidInputError {
  for (let m = 0; m <= l; m++) {
    const { sourceId, hits } = lists[m]!
    const seen = new Set<string>()
    const end = m === l ? i : Math.min(hits.length, window)
    for (let j = 0; j < end; j++) {
      const earlier = hits[j]!.id
      if (seen.has(earlier)) return repeatedId(hits, m, sourceId, earlier, j + 1)
      seen.add(earlier)
    }
  }
  const { sourceId } = lists[l]!
  return new InvalidInputError(
    `reciprocalRankFusion list "${sourceId}" hit ${i} must be an object with a non-empty string id, but its id is ${describeValue(id)}.`,
    { details: { field: `lists[${l}].hits[${i}].id`, received: describeValue(id) } },
  )
}

function repeatedId(
  hits: readonly RankedItem[],
  l: number,
  sourceId: string,
  id: string,
  rank: number,
): InvalidInputError {
  const first = hits.findIndex((hit) => hit.id === id) + 1
  return new InvalidInputError(
    `reciprocalRankFusion list "${sourceId}" has the id "${id}" at ranks ${first} and ${rank}. A ranking lists each id once: keep its best rank and drop the rest.`,
    {
      details: {
        field: `lists[${l}].hits[${rank - 1}].id`,
        received: describeValue(id),
        ranks: [first, rank],
      },
    },
  )
}

/** The documented order: higher score, then better (smaller) best rank, then id by UTF-16 code units. */
function compareSlots(
  a: number,
  b: number,
  scores: Float64Array,
  bestRanks: Int32Array,
  ids: readonly string[],
): number {
  const sa = scores[a]!
  const sb = scores[b]!
  if (sa !== sb) return sa > sb ? -1 : 1
  const ra = bestRanks[a]!
  const rb = bestRanks[b]!
  if (ra !== rb) return ra - rb
  const ia = ids[a]!
  const ib = ids[b]!
  return ia < ib ? -1 : ia > ib ? 1 : 0
}

/** Which 32-bit word of a float64 holds its sign, exponent and high mantissa bits on this platform. */
const HIGH_WORD = new Uint32Array(new Float64Array([1]).buffer)[1] === 0x3ff00000 ? 1 : 0

/**
 * Slots 0..count-1 in the documented order, in linear time. A stable least-significant-digit radix
 * sort, descending, on the high 32 bits of each score (sign, exponent and the top 20 bits of the
 * mantissa: about six significant digits) in three digits of 11, 11 and 10 bits, each pass moving the
 * keys along with the slots so that it reads them in order; a digit that all slots share is skipped.
 * Scores are sums of positive terms (at least +0, never NaN), whose IEEE 754 bit patterns order like the
 * numbers, so slots with different keys are then in order. A run of slots with equal keys (equal scores,
 * or scores within about a millionth of each other) is then ordered by the full comparison: score, best
 * rank, id. Runs are as long as the number of ways the lists can produce nearly the same score (a few
 * slots, as a rule), so that step stays linear in practice.
 */
function sortSlots(
  count: number,
  scores: Float64Array,
  bestRanks: Int32Array,
  ids: readonly string[],
): Int32Array {
  let order = new Int32Array(count)
  if (count < 2) return order
  const words = new Uint32Array(scores.buffer, scores.byteOffset, 2 * count)
  let keys = new Uint32Array(count)
  const histogram = new Int32Array(3 * 2048)
  for (let s = 0; s < count; s++) {
    const key = words[2 * s + HIGH_WORD]!
    order[s] = s
    keys[s] = key
    histogram[key & 2047]!++
    histogram[2048 + ((key >>> 11) & 2047)]!++
    histogram[4096 + (key >>> 22)]!++
  }
  let nextOrder = new Int32Array(count)
  let nextKeys = new Uint32Array(count)
  const offsets = new Int32Array(2048)
  for (let digit = 0; digit < 3; digit++) {
    const base = digit * 2048
    let at = 0
    let shared = false
    for (let b = 2047; b >= 0; b--) {
      const c = histogram[base + b]!
      if (c === count) {
        shared = true
        break
      }
      offsets[b] = at
      at += c
    }
    if (shared) continue
    const shift = digit * 11
    for (let i = 0; i < count; i++) {
      const key = keys[i]!
      const to = offsets[(key >>> shift) & 2047]!++
      nextOrder[to] = order[i]!
      nextKeys[to] = key
    }
    const o = order
    order = nextOrder
    nextOrder = o
    const k = keys
    keys = nextKeys
    nextKeys = k
  }
  for (let i = 0; i < count; ) {
    const key = keys[i]!
    let j = i + 1
    while (j < count && keys[j] === key) j++
    if (j - i > 16) {
      const run = Array.from(order.subarray(i, j)).sort((a, b) => compareSlots(a, b, scores, bestRanks, ids))
      order.set(run, i)
    } else {
      // a short run (the common case): an insertion sort in place, with no array or closure made
      for (let m = i + 1; m < j; m++) {
        const slot = order[m]!
        let n = m - 1
        while (n >= i && compareSlots(order[n]!, slot, scores, bestRanks, ids) > 0) {
          order[n + 1] = order[n]!
          n--
        }
        order[n + 1] = slot
      }
    }
    i = j
  }
  return order
}

/** The best `limit` of slots 0..count-1 under `order`, best first, with a worst-first heap of `limit`. */
function selectBest(count: number, limit: number, order: (a: number, b: number) => number): number[] {
  if (limit === 0) return []
  const heap = new Int32Array(limit)
  let size = 0
  for (let slot = 0; slot < count; slot++) {
    if (size < limit) {
      let i = size++
      while (i > 0) {
        const parent = (i - 1) >> 1
        if (order(slot, heap[parent]!) <= 0) break
        heap[i] = heap[parent]!
        i = parent
      }
      heap[i] = slot
    } else if (order(slot, heap[0]!) < 0) {
      let i = 0
      for (;;) {
        const left = 2 * i + 1
        if (left >= limit) break
        const right = left + 1
        const child = right < limit && order(heap[right]!, heap[left]!) > 0 ? right : left
        if (order(heap[child]!, slot) <= 0) break
        heap[i] = heap[child]!
        i = child
      }
      heap[i] = slot
    }
  }
  return Array.from(heap).sort(order)
}
