/**
 * The child-process harness of the repository's tests: a TypeScript script started in a fresh Node
 * process the way the repository runs its sources (tsx, the `@agent-core/source` condition, from the
 * repository root), given JSON on stdin, its output collected. For the tests that resume a run in another
 * process from JSON alone, and those that kill one mid-way.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const running = new Set<ChildProcess>()

/** How a child ended, and what it wrote. */
export interface ChildExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** What to give a child. */
export interface ChildOptions {
  /** Written as JSON to its stdin, which is then closed; without it stdin is closed at once. */
  readonly input?: unknown
  /** Arguments after the script path. */
  readonly args?: readonly string[]
  /** Environment variables added to this process's own. */
  readonly env?: Readonly<Record<string, string>>
  /** Called with each line the child prints on stdout, as it prints it (and the child, to kill it). */
  readonly onLine?: (line: string, child: ChildProcess) => void
}

/** A started child: the process itself, and its exit once it has closed its streams. */
export interface StartedChild {
  readonly child: ChildProcess
  readonly exit: Promise<ChildExit>
}

/** Starts `script` (a path or a `file:` URL) in a fresh Node process. */
export function startChild(script: string | URL, options: ChildOptions = {}): StartedChild {
  const path = typeof script === 'string' ? script : fileURLToPath(script)
  const child = spawn(
    process.execPath,
    ['--conditions=@agent-core/source', '--import', 'tsx', path, ...(options.args ?? [])],
    {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: options.env ? { ...process.env, ...options.env } : process.env,
    },
  )
  running.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => {
    stdout += chunk
  })
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const { onLine } = options
  if (onLine) createInterface({ input: child.stdout }).on('line', (line) => onLine(line, child))
  const exit = new Promise<ChildExit>((resolve, reject) => {
    child.on('error', (error) => {
      running.delete(child)
      reject(error)
    })
    child.on('close', (code, signal) => {
      running.delete(child)
      resolve({ code, signal, stdout, stderr })
    })
  })
  // A child killed before it read its input closes the pipe: that is the test's doing, not a failure.
  child.stdin.on('error', () => {})
  child.stdin.end(options.input === undefined ? undefined : JSON.stringify(options.input))
  return { child, exit }
}

/** Runs `script` to its end and parses its stdout as JSON; rejects, with its stderr, unless it exits with 0. */
export async function runChildJson<T>(script: string | URL, input: unknown): Promise<T> {
  const { code, signal, stdout, stderr } = await startChild(script, { input }).exit
  if (code !== 0) throw new Error(`child exited with ${signal ?? code}: ${stderr}`)
  return JSON.parse(stdout) as T
}

/** Kills every child still running and waits for each to close (for `afterEach`). */
export async function killChildren(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve()
          child.once('close', () => resolve())
          child.kill('SIGKILL')
        }),
    ),
  )
}
