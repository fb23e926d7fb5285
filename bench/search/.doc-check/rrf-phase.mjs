const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
for (const perList of [10000, 100000]) {
  const universe = perList * 3
  const lists = Array.from({ length: 10 }, (_, l) => {
    const ids = Array.from({ length: universe }, (_, i) => i)
    for (let i = 0; i < perList; i++) { const j = i + Math.floor(Math.random() * (universe - i)); [ids[i], ids[j]] = [ids[j], ids[i]] }
    return { sourceId: `s${l}`, hits: ids.slice(0, perList).map((i) => ({ id: `doc-${i}` })) }
  })
  const best = {}
  for (let r = 0; r < 7; r++) {
    let t = cpu()
    const slotOf = new Map(); const ids = []; const total = perList * 10
    const scores = new Float64Array(total), bestRanks = new Int32Array(total)
    for (let l = 0; l < 10; l++) { const hits = lists[l].hits; for (let i = 0; i < hits.length; i++) { const id = hits[i].id; let s = slotOf.get(id); const c = 1 / (61 + i); if (s === undefined) { s = ids.length; slotOf.set(id, s); ids.push(id); scores[s] = c; bestRanks[s] = i + 1 } else { scores[s] += c; if (i + 1 < bestRanks[s]) bestRanks[s] = i + 1 } } }
    const t1 = cpu()
    const order = (a, b) => { const sa = scores[a], sb = scores[b]; if (sa !== sb) return sb - sa; const ra = bestRanks[a], rb = bestRanks[b]; if (ra !== rb) return ra - rb; const ia = ids[a], ib = ids[b]; return ia < ib ? -1 : ia > ib ? 1 : 0 }
    const idx = Array.from({ length: ids.length }, (_, i) => i).sort(order)
    const t2 = cpu()
    // native alternative
    const n = ids.length; const neg = new Float64Array(n); for (let i = 0; i < n; i++) neg[i] = -scores[i]; neg.sort()
    const start = new Map(); for (let i = n - 1; i >= 0; i--) start.set(neg[i], i)
    const placed = new Int32Array(n); for (let i = 0; i < n; i++) { const p = start.get(-scores[i]); placed[p] = i; start.set(-scores[i], p + 1) }
    const t3 = cpu()
    best.accumulate = Math.min(best.accumulate ?? 1e9, t1 - t); best.sortComparator = Math.min(best.sortComparator ?? 1e9, t2 - t1); best.sortNative = Math.min(best.sortNative ?? 1e9, t3 - t2)
  }
  console.log(perList, best)
}
