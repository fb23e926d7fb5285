import { writeNormalized } from '../../../packages/kits/src/search/internal/vector-math.js'
const N = 100_000, D = 384
const data = new Float32Array(N * D)
for (let i = 0; i < data.length; i++) data[i] = Math.random() - 0.5
const target = new Float32Array(N * D)
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
for (let r = 0; r < 4; r++) {
  let t = cpu()
  for (let i = 0; i < N; i++) writeNormalized(data.subarray(i * D, (i + 1) * D), D, target, i * D, 'x')
  const a = cpu() - t
  t = cpu()
  const subs = []; for (let i = 0; i < N; i++) subs.push(data.subarray(i * D, (i + 1) * D))
  const b = cpu() - t
  console.log('writeNormalized', a.toFixed(0), 'ms; subarray creation only', b.toFixed(0))
}
