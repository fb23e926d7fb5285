/**
 * The engines executions run in: worker threads, each owning one QuickJS WebAssembly module in a memory of
 * bounded size, kept in a small pool. The host's event loop never runs the script: it waits for messages,
 * measures wall time itself and ends an execution that overruns by terminating its worker (which stops
 * the engine even inside one long builtin call). A worker whose engine failed, ran out of memory, or was
 * terminated is dropped, and the next execution gets a fresh one; a script can never end the host.
 *
 * Nothing is loaded when the kit is imported: the first execution starts the first worker.
 */
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { pathToFileURL } from 'node:url'
import type { Worker } from 'node:worker_threads'
// by the public subpath (the same class): imported by relative path, sandbox-errors.ts would be a module
// this runtime shares with the kit's entry, and the bundler would make it a chunk of its own (internal/load-runtime.ts)
import { SandboxUnavailableError } from '@agent-core/kits/sandbox'
import { WORKER_SOURCE } from './worker-source.js'

/** At most this many engines run at once outside nesting; further executions queue (until their signal aborts). */
export const MAX_ENGINES = Math.max(4, Math.min(16, availableParallelism() * 2))
/** Idle engines kept warm. */
const MAX_IDLE = 2
/** The V8 heap a worker may use (it only relays strings whose size the engine checked). */
const WORKER_HEAP_MB = 48

/** What the worker posts when an execution ends. */
export type EngineEnd =
  | {
      readonly kind: 'compile' | 'fulfilled' | 'rejected'
      readonly text: string
      /** With kept globals, after the script ran: their JSON text `{ values, dropped }`, or why they were not read. */
      readonly globals?: string | undefined
      readonly globalsProblem?: string | undefined
    }
  | { readonly kind: 'output' | 'stuck' }
  | { readonly kind: 'limit'; readonly limit: 'cpuTime' | 'hostCalls' | 'recording' }
  | { readonly kind: 'engine'; readonly native: boolean; readonly message: string }
  | { readonly kind: 'thrown'; readonly name: string; readonly message: string }
  | { readonly kind: 'died'; readonly memory: boolean; readonly message: string }

/** What an execution hands its engine. */
export interface EngineJob {
  readonly code: string
  readonly prelude: string
  readonly ids: string
  readonly declarable: string
  readonly seed: number
  readonly now: number
  readonly maxText: number
  /** With kept globals: the JSON text of the globals the script starts with. */
  readonly globals?: string | undefined
  readonly limits: {
    readonly memoryBytes: number
    readonly stackBytes: number
    readonly cpuTimeMs: number
    readonly maxHostCalls: number
    readonly maxLogBytes: number
    readonly maxOutputBytes: number
    readonly maxRecordingBytes: number
  }
}

/** The host's side of an execution running in an engine. */
export interface EngineHandlers {
  /** The prelude is set up: the script starts now. */
  onStarted(): void
  onLog(level: string, text: string): void
  onCall(n: number, toolId: string, json: string): void
}

let quickjsUrl: string | undefined
function resolveQuickjs(): string {
  if (quickjsUrl !== undefined) return quickjsUrl
  try {
    quickjsUrl = pathToFileURL(createRequire(import.meta.url).resolve('quickjs-emscripten')).href
  } catch (error) {
    throw new SandboxUnavailableError(
      'The sandbox needs the optional peer dependency quickjs-emscripten, which could not be loaded. Install it next to @agent-core/kits (npm install quickjs-emscripten@^0.32.0).',
      { cause: error },
    )
  }
  return quickjsUrl
}

/** The WebAssembly pages an engine for a heap of `memoryBytes` may grow to: twice the heap, plus 16 MiB. */
export function enginePages(memoryBytes: number): number {
  return Math.min(32_768, Math.ceil((2 * memoryBytes + 16 * 1024 * 1024) / 65_536))
}

let failed = 0
let lastEngineBytes = 0

/** One worker and its QuickJS module. */
export class Engine {
  readonly #worker: Worker
  readonly pages: number
  readonly ready: Promise<void>
  #handlers: EngineHandlers | undefined
  #finish: ((end: EngineEnd) => void) | undefined
  #dead = false

  constructor(pages: number) {
    this.pages = pages
    // node:worker_threads on the first engine: loaded at import, it (and the node:stream it needs) would add
    // 1-2 ms to every cold import of the sandbox subpath
    const { Worker } = process.getBuiltinModule('node:worker_threads')
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { quickjsUrl: resolveQuickjs(), wasmPages: pages },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 8, stackSizeMb: 4 },
      // The engine's own diagnostics (an abort's assertion text) are dropped inside the worker (see
      // worker-source.ts): capturing its streams here would keep an idle engine's process alive.
    })
    this.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: { t: string; message?: string }) => {
        if (message.t === 'ready') resolve()
        else if (message.t === 'unavailable') {
          reject(
            new SandboxUnavailableError(
              `The QuickJS WebAssembly module could not be started: ${message.message}.`,
            ),
          )
        }
      }
      this.#worker.once('message', onMessage)
      this.#worker.once('error', (error) =>
        reject(
          new SandboxUnavailableError(`The sandbox engine could not be started: ${error.message}.`, {
            cause: error,
          }),
        ),
      )
    })
    // Starting, the worker keeps the process alive (an execution waits for it); idle, it does not.
    this.ready.then(
      () => {
        if (this.#finish === undefined && !this.#dead) this.#worker.unref()
      },
      () => this.terminate(),
    )
    this.#worker.on('message', (message: Record<string, unknown>) => this.#receive(message))
    this.#worker.on('error', (error: Error & { code?: string }) => {
      this.#die(error.code === 'ERR_WORKER_OUT_OF_MEMORY', error.message)
    })
    this.#worker.on('exit', () => this.#die(false, 'the engine stopped'))
  }

  get alive(): boolean {
    return !this.#dead
  }

  /** Runs a job; resolves with how it ended (never rejects: a dead worker ends it with `died`). */
  run(job: EngineJob, handlers: EngineHandlers): Promise<EngineEnd> {
    this.#handlers = handlers
    this.#worker.ref()
    return new Promise<EngineEnd>((resolve) => {
      this.#finish = resolve
      this.#worker.postMessage({ t: 'run', ...job })
    })
  }

  answer(n: number, text: string): void {
    if (!this.#dead) this.#worker.postMessage({ t: 'answer', n, text })
  }

  wait(n: number): void {
    if (!this.#dead) this.#worker.postMessage({ t: 'wait', n })
  }

  /** Stops the worker now, wherever its engine is. */
  terminate(): void {
    if (this.#dead) return
    this.#dead = true
    void this.#worker.terminate()
    this.#settle({ kind: 'died', memory: false, message: 'terminated' })
  }

  #receive(message: Record<string, unknown>): void {
    switch (message.t) {
      case 'started':
        this.#handlers?.onStarted()
        return
      case 'log':
        this.#handlers?.onLog(message.level as string, message.text as string)
        return
      case 'call':
        this.#handlers?.onCall(message.n as number, message.toolId as string, message.json as string)
        return
      case 'end': {
        lastEngineBytes = message.engineBytes as number
        // The end first: a worker whose engine could not be freed is dropped after it reported.
        this.#settle(message as unknown as EngineEnd)
        if (message.reusable !== true) {
          failed++
          this.terminate()
        }
        return
      }
    }
  }

  #die(memory: boolean, text: string): void {
    if (!this.#dead) {
      this.#dead = true
      failed++
    }
    this.#settle({ kind: 'died', memory, message: text })
  }

  #settle(end: EngineEnd): void {
    const finish = this.#finish
    this.#finish = undefined
    this.#handlers = undefined
    if (!this.#dead) this.#worker.unref()
    finish?.(end)
  }
}

const idle: Engine[] = []
let active = 0
const queue: (() => void)[] = []

/**
 * An engine for one execution: an idle one of the same memory size, or a new one. Outside nesting, at
 * most {@link MAX_ENGINES} run at once and the rest wait (until `signal` aborts). A nested execution (run
 * by a host call of another one) never waits for a slot, or nesting could wait on itself forever; nesting
 * depth is bounded by the caller.
 */
export async function acquireEngine(
  memoryBytes: number,
  nested: boolean,
  signal: AbortSignal,
): Promise<Engine> {
  if (!nested) {
    while (active >= MAX_ENGINES) {
      signal.throwIfAborted()
      await new Promise<void>((resolve) => {
        const onAbort = () => {
          const at = queue.indexOf(go)
          if (at >= 0) queue.splice(at, 1)
          resolve()
        }
        const go = () => {
          signal.removeEventListener('abort', onAbort)
          resolve()
        }
        queue.push(go)
        signal.addEventListener('abort', onAbort, { once: true })
      })
    }
    active++
  }
  const pages = enginePages(memoryBytes)
  try {
    const at = idle.findIndex((engine) => engine.pages === pages && engine.alive)
    const engine = at >= 0 ? idle.splice(at, 1)[0]! : new Engine(pages)
    await engine.ready
    return engine
  } catch (error) {
    if (!nested) releaseSlot()
    throw error
  }
}

function releaseSlot(): void {
  active--
  queue.shift()?.()
}

/** Gives an engine back after an execution: kept warm when it is reusable, dropped otherwise. */
export function releaseEngine(engine: Engine, nested: boolean): void {
  if (!nested) releaseSlot()
  if (!engine.alive) return
  idle.push(engine)
  while (idle.length > MAX_IDLE) idle.shift()!.terminate()
}

/** Loads an engine now and keeps it warm (for `preloadSandbox`). */
export async function warmEngine(memoryBytes: number): Promise<void> {
  const pages = enginePages(memoryBytes)
  if (idle.some((engine) => engine.pages === pages && engine.alive)) return
  const engine = new Engine(pages)
  await engine.ready
  idle.push(engine)
  while (idle.length > MAX_IDLE) idle.shift()!.terminate()
}

/**
 * For tests and diagnostics: engines dropped because they failed (their module aborted or ran out of the
 * native stack, or the worker died), engines running, engines idle, and the last engine's memory in bytes.
 */
export function engineStats(): {
  failed: number
  active: number
  idle: number
  engineBytes: number
} {
  return { failed, active, idle: idle.length, engineBytes: lastEngineBytes }
}
