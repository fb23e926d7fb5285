import { reciprocalRankFusion } from '@agent-core/kits/search'

const perList = 10000,
  universe = 30000
const lists = Array.from({ length: 10 }, (_, l) => {
  const ids = Array.from({ length: universe }, (_, i) => i)
  for (let i = 0; i < perList; i++) {
    const j = i + Math.floor(Math.random() * (universe - i))
    ;[ids[i], ids[j]] = [ids[j]!, ids[i]!]
  }
  return { sourceId: `s${l}`, hits: ids.slice(0, perList).map((i) => ({ id: `doc-${i}` })) }
})
for (let r = 0; r < 8; r++) {
  const t = performance.now()
  const out = reciprocalRankFusion(lists)
  const t2 = performance.now()
  const m = new Map<string, number>()
  for (const l of lists) for (const h of l.hits) m.set(h.id, (m.get(h.id) ?? 0) + 1)
  const t3 = performance.now()
  console.log(out.length, (t2 - t).toFixed(1), 'ms; bare map', (t3 - t2).toFixed(1))
}
