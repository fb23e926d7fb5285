/**
 * Cold import cost of every public subpath, against the goals of issues 9 and 33: the core root loads no ajv
 * (no third-party code at all), and importing any subpath that wraps no third-party SDK costs under 10 ms.
 *
 * Each run is a fresh Node process that imports one subpath from the built `dist` (from a folder outside the
 * workspace, as a user's program would) and reports how long `await import(...)` took; the module counts come
 * from one extra probe process per subpath (see scripts/cold-import.mjs for how both are measured). Runs
 * go round-robin over the subpaths so that a burst of load on this shared machine spreads over all of them.
 * Printed per subpath: min, median and max over the runs, the median against the 10 ms limit, the median CPU
 * time of the same span (user + system: on a loaded machine the wall time also holds the waits for a core), and the
 * same for two floors: an empty module (what any `import()` costs in that process) and an empty package
 * imported by its bare name (what resolving the first package of a process costs, whoever wrote it). The goal
 * counts every subpath except those that wrap a third-party SDK (`WRAPS`: they load it at import by design).
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
// the first bare specifier of a process sets up package resolution (about 2 ms CPU here): any package pays it
const EMPTY_PACKAGE = 'empty-package'
const FLOORS = new Set([EMPTY, EMPTY_PACKAGE])
// Subpaths that exist to wrap a heavy third-party package load it at import by design; the 10 ms goal is
// for the others (issue 33). The package named is what their time is made of. `kits/ai-sdk` adapts
// models to and from the AI SDK: its users run `ai`, which loads `@ai-sdk/provider` (the error classes the
// adapter builds and recognises) in their process anyway.
const WRAPS: Record<string, string> = {
  '@agent-core/kits/ai-sdk': '@ai-sdk/provider',
  '@agent-core/kits/anthropic': '@anthropic-ai/sdk',
  '@agent-core/kits/mcp': '@modelcontextprotocol/sdk',
  '@agent-core/kits/openai': 'openai',
  '@agent-core/kits/durable/postgres': 'pg',
  '@agent-core/kits/durable/sqlite': 'better-sqlite3',
  '@agent-core/mock/vitest': 'vitest',
}

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
    [EMPTY_PACKAGE, []],
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
    const wraps = WRAPS[specifier]
    const verdict = FLOORS.has(specifier) ? '(floor)' : wraps ? '(wraps)' : m < LIMIT_MS ? 'ok' : 'OVER'
    if (!FLOORS.has(specifier) && !wraps && m < LIMIT_MS) under++
    console.log(
      `${specifier.padEnd(width)}  ${modules}   ${fmt(Math.min(...list))} ${fmt(m)} ${fmt(Math.max(...list))}   ${(m / LIMIT_MS).toFixed(2)}x ${verdict.padEnd(7)} ${fmt(median(cpuTimes.get(specifier) ?? []))}`,
    )
  }
  const core = probes.get('@agent-core/core')
  const coreThirdParty = core?.thirdParty.length ? core.thirdParty.join(', ') : 'none'
  console.log(
    `\ngoal: core root loads no ajv: ${core?.thirdParty.includes('ajv') ? 'NO' : 'yes'} (third-party packages: ${coreThirdParty})`,
  )
  const goal = subpaths.filter((s) => !WRAPS[s.specifier])
  console.log(
    `goal: every subpath that wraps no third-party SDK under ${LIMIT_MS} ms (median wall): ${under} of ${goal.length}`,
  )
  console.log(
    `  not counted (they load the package they wrap): ${Object.entries(WRAPS)
      .map(([specifier, pkg]) => `${specifier} (${pkg})`)
      .join(', ')}`,
  )
  for (const s of goal) {
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
