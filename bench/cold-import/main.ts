/**
 * Cold import cost of every public subpath, against the goal of issue 9: the core root loads no ajv (no
 * third-party code at all), and importing any subpath costs under 10 ms.
 *
 * Each run is a fresh Node process that imports one subpath from the built `dist` (from a folder outside the
 * workspace, as a user's program would) and reports how long `await import(...)` took; the module counts come
 * from one extra probe process per subpath (see scripts/cold-import.mjs for how both are measured). Runs
 * go round-robin over the subpaths so that a burst of load on this shared machine spreads over all of them.
 * Printed per subpath: min, median and max over the runs, the median against the 10 ms limit, the median CPU
 * time of the same span (user + system: on a loaded machine the wall time also holds the waits for a core), and the
 * same for importing an empty module (the floor: what any `import()` costs in that process).
 *
 * Needs `pnpm build` first. Run with `pnpm bench cold-import` (`COLD_IMPORT_RUNS=20` for more runs).
 */
import { existsSync } from 'node:fs'
import {
  createConsumer,
  measureColdImport,
  median,
  probeColdImport,
  publicSubpaths,
} from '../../scripts/cold-import.mjs'

const LIMIT_MS = 10
const RUNS = Number(process.env.COLD_IMPORT_RUNS ?? 9)
const EMPTY = './empty.mjs'

// `COLD_IMPORT_ONLY=search,durable` measures the subpaths whose specifier contains one of the words.
const only = (process.env.COLD_IMPORT_ONLY ?? '').split(',').filter(Boolean)
const subpaths = publicSubpaths().filter(
  (s: { specifier: string }) => only.length === 0 || only.some((word) => s.specifier.includes(word)),
)
const missing = subpaths.filter((s) => !existsSync(s.entry))
if (missing.length) {
  console.error(`dist is missing for ${missing.map((s) => s.specifier).join(', ')}: run \`pnpm build\` first`)
  process.exit(1)
}

const consumer = createConsumer()
try {
  const probes = new Map(subpaths.map((s) => [s.specifier, probeColdImport(consumer.dir, s.specifier)]))
  const times = new Map<string, number[]>([
    [EMPTY, []],
    ...subpaths.map((s): [string, number[]] => [s.specifier, []]),
  ])
  const cpuTimes = new Map<string, number[]>([...times.keys()].map((k): [string, number[]] => [k, []]))
  for (let run = 0; run < RUNS; run++)
    for (const specifier of times.keys()) {
      const { ms, cpuMs } = measureColdImport(consumer.dir, specifier)
      times.get(specifier)?.push(ms)
      cpuTimes.get(specifier)?.push(cpuMs)
    }

  const width = Math.max(...[...times.keys()].map((s) => s.length))
  const fmt = (ms: number) => ms.toFixed(1).padStart(6)
  console.log(
    `cold import from dist, ${RUNS} fresh Node ${process.version} processes per subpath; limit ${LIMIT_MS} ms`,
  )
  console.log(
    `${'import'.padEnd(width)}  modules   min    median  max     median/limit  cpu median (user+system, ms)`,
  )
  let under = 0
  for (const [specifier, list] of times) {
    const probe = probes.get(specifier)
    const m = median(list)
    const modules = probe ? `${String(probe.esm + probe.cjs).padStart(3)} ` : '  - '
    const verdict = specifier === EMPTY ? '(floor)' : m < LIMIT_MS ? 'ok' : 'OVER'
    if (specifier !== EMPTY && m < LIMIT_MS) under++
    console.log(
      `${specifier.padEnd(width)}  ${modules}   ${fmt(Math.min(...list))} ${fmt(m)} ${fmt(Math.max(...list))}   ${(m / LIMIT_MS).toFixed(2)}x ${verdict.padEnd(7)} ${fmt(median(cpuTimes.get(specifier) ?? []))}`,
    )
  }
  const core = probes.get('@agent-core/core')
  const coreThirdParty = core?.thirdParty.length ? core.thirdParty.join(', ') : 'none'
  console.log(
    `\ngoal: core root loads no ajv: ${core?.thirdParty.includes('ajv') ? 'NO' : 'yes'} (third-party packages: ${coreThirdParty})`,
  )
  console.log(`goal: every subpath under ${LIMIT_MS} ms (median): ${under} of ${subpaths.length}`)
  for (const s of subpaths) {
    const probe = probes.get(s.specifier)
    const m = median(times.get(s.specifier) ?? [])
    if (probe && m >= LIMIT_MS)
      console.log(
        `  over: ${s.specifier} (${probe.thirdPartyModules} third-party modules: ${probe.thirdParty.join(', ') || 'none'})`,
      )
  }
} finally {
  consumer.dispose()
}
