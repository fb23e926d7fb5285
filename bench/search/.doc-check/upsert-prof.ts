import { VectorSearch } from '@agent-core/kits/search'
const N = 100_000, D = 384
const data = new Float32Array(N * D)
for (let i = 0; i < data.length; i++) data[i] = Math.random() - 0.5
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
for (let r = 0; r < 3; r++) {
  const vs = new VectorSearch({ identity: 'x', dimensions: D })
  const t = cpu()
  for (let s = 0; s < N; s += 10000) vs.upsertMany(Array.from({ length: 10000 }, (_, i) => ({ document: { id: `v${s + i}`, source: 'abc' }, vector: data.subarray((s + i) * D, (s + i + 1) * D) })))
  console.log('upsert cpu ms', (cpu() - t).toFixed(0))
}
