import { VectorSearch } from '@agent-core/kits/search'
import { scoreAll } from '../../../packages/kits/src/search/internal/vector-math.js'

const N = 100_000,
  D = 384
const data = new Float32Array(N * D)
for (let i = 0; i < data.length; i++) data[i] = Math.random() - 0.5
function bare(data: Float32Array, count: number, dims: number, query: Float32Array): number {
  let best = -Infinity
  for (let row = 0, base = 0; row < count; row++, base += dims) {
    let s0 = 0,
      s1 = 0,
      s2 = 0,
      s3 = 0
    for (let j = 0; j < dims; j += 4) {
      s0 += query[j]! * data[base + j]!
      s1 += query[j + 1]! * data[base + j + 1]!
      s2 += query[j + 2]! * data[base + j + 2]!
      s3 += query[j + 3]! * data[base + j + 3]!
    }
    const s = s0 + s1 + (s2 + s3)
    if (s > best) best = s
  }
  return best
}
const q32 = new Float32Array(D).map(() => Math.random()),
  q64 = Float64Array.from(q32)
const out = new Float64Array(N)
const vs = new VectorSearch({ identity: 'x', dimensions: D })
for (let s = 0; s < N; s += 10000)
  vs.upsertMany(
    Array.from({ length: 10000 }, (_, i) => ({
      document: { id: `v${s + i}` },
      vector: data.subarray((s + i) * D, (s + i + 1) * D),
    })),
  )
const t = { bare: Infinity, s64: Infinity, s32: Infinity, vs: Infinity }
for (let r = 0; r < 15; r++) {
  let a = performance.now()
  bare(data, N, D, q32)
  t.bare = Math.min(t.bare, performance.now() - a)
  a = performance.now()
  scoreAll(data, N, D, q64, out)
  t.s64 = Math.min(t.s64, performance.now() - a)
  a = performance.now()
  scoreAll(data, N, D, q32 as unknown as Float64Array, out)
  t.s32 = Math.min(t.s32, performance.now() - a)
  a = performance.now()
  vs.search({ vector: q32, limit: 10 })
  t.vs = Math.min(t.vs, performance.now() - a)
}
console.log(
  Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v.toFixed(1)])),
  'ratio vs',
  (t.bare / t.vs).toFixed(2),
)
