/** Levenshtein distance, bounded: returns `max + 1` as soon as the distance must exceed `max`. */
export function editDistance(a: string, b: string, max = 8): number {
  if (Math.abs(a.length - b.length) > max) return max + 1
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let best = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      const value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      )
      current.push(value)
      if (value < best) best = value
    }
    if (best > max) return max + 1
    previous = current
  }
  return previous[b.length] as number
}

/** The known word closest to `word` (case-insensitive edit distance), or `undefined` when none is close. */
export function nearest(word: string, known: readonly string[]): string | undefined {
  const lower = word.toLowerCase()
  let best: string | undefined
  let bestDistance = Math.max(2, Math.ceil(word.length / 2)) + 1
  for (const candidate of known) {
    const c = candidate.toLowerCase()
    let shared = 0
    while (shared < c.length && shared < lower.length && c[shared] === lower[shared]) shared++
    const d =
      c.startsWith(lower) || lower.startsWith(c) ? 1 : shared >= 3 ? 2 : editDistance(lower, c, bestDistance)
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}
