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
let minR = Infinity,
  minL = Infinity,
  minM = Infinity
for (let r = 0; r < 40; r++) {
  let t = performance.now()
  reciprocalRankFusion(lists)
  minR = Math.min(minR, performance.now() - t)
  t = performance.now()
  reciprocalRankFusion(lists, { limit: 10 })
  minL = Math.min(minL, performance.now() - t)
  t = performance.now()
  const m = new Map<string, number>()
  for (const l of lists) for (const h of l.hits) m.set(h.id, (m.get(h.id) ?? 0) + 1)
  minM = Math.min(minM, performance.now() - t)
}
console.log('min full', minR.toFixed(1), 'limit10', minL.toFixed(1), 'bare map', minM.toFixed(1))
