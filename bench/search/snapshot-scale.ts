/**
 * Proof that a VectorSearch of a million 1536-dimensional vectors (6.1 GB of float32) snapshots and
 * restores: `snapshotChunks()` streamed to a file, `restoreFrom()` read back from it, in constant extra
 * memory per chunk. Too heavy for the test suite (about 10 GB of memory at its peak and 6 GB of disk);
 * `snapshots.test.ts` runs the same chunking code paths on a smaller index. Run it by hand:
 *
 *   node --conditions=@agent-core/source --import tsx --expose-gc bench/search/snapshot-scale.ts [count] [dimensions]
 */
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { SearchLimitError, VectorSearch } from '@agent-core/kits/search'
import { random } from './corpus.js'

const count = Number(process.argv[2] ?? 1_000_000)
const dims = Number(process.argv[3] ?? 1536)
const gc = (globalThis as { gc?: () => void }).gc
const seconds = (start: number) => `${((performance.now() - start) / 1000).toFixed(1)} s`
const gb = (bytes: number) => `${(bytes / 2 ** 30).toFixed(2)} GiB`

const dir = mkdtempSync(join(tmpdir(), 'agent-core-scale-'))
const file = join(dir, 'vectors.snapshot')
try {
  console.log(
    `VectorSearch snapshot at scale: ${count.toLocaleString('en')} vectors x ${dims} dimensions (${gb(count * dims * 4)} of float32)`,
  )
  let index: VectorSearch<{ id: string; n: number }> | undefined = new VectorSearch({
    identity: 'scale',
    dimensions: dims,
  })
  let started = performance.now()
  const next = random(5)
  const batch = 20_000
  const probe = new Float32Array(dims)
  for (let from = 0; from < count; from += batch) {
    const entries = []
    for (let i = from; i < Math.min(count, from + batch); i++) {
      const vector = new Float32Array(dims)
      for (let d = 0; d < dims; d++) vector[d] = next() - 0.5
      if (i === count - 1) probe.set(vector)
      entries.push({ document: { id: `v${i}`, n: i }, vector })
    }
    index.upsertAll(entries)
  }
  console.log(`built in ${seconds(started)}; heap ${gb(process.memoryUsage().rss)} resident`)

  try {
    index.snapshot()
    console.log('JSON snapshot: unexpectedly succeeded')
  } catch (error) {
    console.log(
      `JSON snapshot refused as expected: ${SearchLimitError.isInstance(error) ? 'SearchLimitError' : String(error)}: ${(error as Error).message.slice(0, 160)}...`,
    )
  }

  started = performance.now()
  await pipeline(Readable.from(index.snapshotChunks()), createWriteStream(file))
  console.log(`snapshotChunks() to a file: ${gb(statSync(file).size)} in ${seconds(started)}`)
  const expected = index.search({ vector: probe, limit: 3 })
  index = undefined
  gc?.()

  const restored = new VectorSearch<{ id: string; n: number }>({ identity: 'scale', dimensions: dims })
  started = performance.now()
  await restored.restoreFrom(createReadStream(file, { highWaterMark: 8 << 20 }))
  console.log(`restoreFrom(file) in ${seconds(started)}: ${restored.size.toLocaleString('en')} vectors`)
  const again = restored.search({ vector: probe, limit: 3 })
  const same = JSON.stringify(again) === JSON.stringify(expected)
  console.log(
    `same answers after restore: ${same}; best hit ${again[0]?.id} (score ${again[0]?.score.toFixed(6)})`,
  )
  if (!same || restored.size !== count) process.exitCode = 1
} finally {
  rmSync(dir, { recursive: true, force: true })
}
