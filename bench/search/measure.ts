/**
 * Timing helpers: contenders run interleaved, round after round, and each reports its fastest round in
 * CPU time of this process (`process.cpuUsage`, user + system). The benchmark may share its cores with
 * other work, which inflates wall-clock time by whatever the scheduler gives away; CPU time and the
 * fastest round both filter that out (interference only ever adds time).
 */

const gc = (globalThis as { gc?: () => void }).gc

/** Milliseconds of CPU this process has used so far. */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

export interface Contender {
  readonly name: string
  /** Runs the measured work once; may return a promise. */
  readonly run: () => unknown
}

/**
 * Runs every contender `rounds` times, interleaved (A B C A B C ...) after one warm-up round each, and
 * returns the fastest round's milliseconds by name.
 */
export async function fastest(
  contenders: readonly Contender[],
  rounds: number,
): Promise<Map<string, number>> {
  const times = new Map<string, number[]>(contenders.map((c) => [c.name, []]))
  for (let round = -1; round < rounds; round++) {
    for (const contender of contenders) {
      gc?.()
      const start = cpuMs()
      const result = contender.run()
      if (result instanceof Promise) await result
      const elapsed = cpuMs() - start
      if (round >= 0) times.get(contender.name)!.push(elapsed)
    }
  }
  const out = new Map<string, number>()
  for (const [name, list] of times) {
    out.set(name, Math.min(...list))
  }
  return out
}

export function ms(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)
}

export function ratio(value: number): string {
  return `${value.toFixed(2)}x`
}

export function row(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')
}
