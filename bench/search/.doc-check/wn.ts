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
function w2(value: Float32Array, dims: number, target: Float32Array, offset: number) {
  let maxAbs = 0
  for (let i = 0; i < dims; i++) { const x = value[i]!; if (!(x - x === 0)) throw new Error(); const abs = Math.abs(x); if (abs > maxAbs) maxAbs = abs }
  const inv = 1 / maxAbs
  let sum = 0
  for (let i = 0; i < dims; i++) { const x = value[i]! * inv; sum += x * x }
  const scale = 1 / (maxAbs * Math.sqrt(sum))
  for (let i = 0; i < dims; i++) target[offset + i] = value[i]! * scale
}
for (let r = 0; r < 4; r++) {
  const t = cpu()
  for (let i = 0; i < N; i++) w2(data.subarray(i * D, (i + 1) * D), D, target, i * D)
  console.log('w2 in tsx', (cpu() - t).toFixed(0))
}
import { InvalidInputError } from '@agent-core/core'
function bad(i: number): never { throw new InvalidInputError(`x ${i}`) }
function w3(value: Float32Array | Float64Array, dims: number, target: Float32Array, offset: number) {
  let maxAbs = 0
  for (let i = 0; i < dims; i++) { const x = value[i]!; if (!(x - x === 0)) bad(i); const abs = x < 0 ? -x : x; if (abs > maxAbs) maxAbs = abs }
  const inv = 1 / maxAbs
  let sum = 0
  for (let i = 0; i < dims; i++) { const x = value[i]! * inv; sum += x * x }
  const scale = inv / Math.sqrt(sum)
  for (let i = 0; i < dims; i++) target[offset + i] = value[i]! * scale
}
function w4(value: unknown, dims: number, target: Float32Array, offset: number) {
  if (!(value instanceof Float32Array) && !(value instanceof Float64Array)) throw new Error()
  w3(value, dims, target, offset)
}
for (let r = 0; r < 4; r++) {
  let t = cpu()
  for (let i = 0; i < N; i++) w3(data.subarray(i * D, (i + 1) * D), D, target, i * D)
  const a = cpu() - t
  t = cpu()
  for (let i = 0; i < N; i++) w4(data.subarray(i * D, (i + 1) * D), D, target, i * D)
  console.log('w3', a.toFixed(0), 'w4', (cpu() - t).toFixed(0))
}
