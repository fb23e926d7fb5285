import { describeValue, InvalidStateError, refuseField } from '@agent-core/core'
import type { MockGPTScope, MockScriptEntry, MockUsage, RecordedRequest } from '@agent-core/mock'
import { type MockGPTServer, type MockGPTServerOptions, startMockGPTServer } from '@agent-core/mock/node'
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest'

/**
 * Options of {@link useMockGPT}: the server's options (shared by every file of the worker that passes the
 * same ones) plus what each test gets.
 * @example
 * ```ts
 * import { type UseMockGPTOptions, useMockGPT } from '@agent-core/mock/vitest'
 * const options: UseMockGPTOptions = { strict: true, seed: 3, script: [{ reply: { type: 'text', text: 'Hi' } }] }
 * const mock = useMockGPT(options)
 * ```
 */
export interface UseMockGPTOptions extends Omit<MockGPTServerOptions, 'script' | 'mock' | 'record' | 'port'> {
  /** Entries every test starts with (each test gets its own copy, after which `mock.script()` adds more). */
  readonly script?: readonly MockScriptEntry[] | undefined
  /** Set `OPENAI_BASE_URL` / `OPENAI_API_KEY` / `ANTHROPIC_BASE_URL` / `ANTHROPIC_API_KEY` per test. Default true. */
  readonly env?: boolean | undefined
}

/**
 * The current test's MockGPT scope, plus where clients reach it.
 * @example
 * ```ts
 * import OpenAI from 'openai'
 * import { it } from 'vitest'
 * import { useMockGPT } from '@agent-core/mock/vitest'
 * const mock = useMockGPT()
 * it('calls the model once', async () => {
 *   const client = new OpenAI({ baseURL: mock.baseURL, apiKey: mock.apiKey })
 *   await client.models.list()
 *   console.log(mock.requests.length) // 1
 * })
 * ```
 */
export interface MockGPTTestHandle {
  /** The worker's server (shared with the other files of the worker that use the same options). */
  readonly server: MockGPTServer
  /** The current test's scope id. */
  readonly testId: string
  /** The OpenAI base URL of the current test's scope (`http://127.0.0.1:<port>/test/<id>/v1`). */
  readonly baseURL: string
  /** The Anthropic base URL of the current test's scope (`http://127.0.0.1:<port>/test/<id>`). */
  readonly anthropicBaseURL: string
  /** The API key clients must send (`apiKey` option, default `sk-mockgpt-test`). */
  readonly apiKey: string
  /** Adds entries to the current test's script. */
  script(...entries: MockScriptEntry[]): void
  /** The current test's recorded requests. */
  readonly requests: readonly RecordedRequest[]
  readonly usage: MockUsage
  readonly pendingScript: number
  /** The current test's scope on the engine (for everything else it offers). */
  readonly scope: MockGPTScope
}

const REGISTRY = Symbol.for('@agent-core/mock/vitest servers')
const ENV = ['OPENAI_BASE_URL', 'OPENAI_API_KEY', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY'] as const

/** Servers of this worker by options, on globalThis: test files of one worker get fresh modules, not a fresh global. */
function registry(): Map<string, Promise<MockGPTServer>> {
  const holder = globalThis as { [REGISTRY]?: Map<string, Promise<MockGPTServer>> }
  holder[REGISTRY] ??= new Map()
  return holder[REGISTRY]
}

function keyOf(options: object): string {
  return JSON.stringify(options, (_, value) => (typeof value === 'function' ? `fn:${String(value)}` : value))
}

let counter = 0

/**
 * Registers MockGPT for the current test file: `beforeAll` starts (or reuses) the worker's server,
 * `beforeEach` opens a fresh scope for the test and sets the environment variables, `afterEach` restores
 * them and fails the test when it hit a script problem or (in strict mode) left script entries unused.
 * Call it at the top of a test file or inside a `describe`.
 * @throws InvalidInputError when an option is malformed (at once, or when the server starts)
 * @example
 * ```ts
 * import { useMockGPT } from '@agent-core/mock/vitest'
 * const mock = useMockGPT({ strict: true })
 * ```
 */
export function useMockGPT(options: UseMockGPTOptions = {}): MockGPTTestHandle {
  if (typeof options !== 'object' || options === null) {
    refuseField('input', 'options', `must be an object, but got ${describeValue(options)}`, options, {
      prefix: 'useMockGPT ',
    })
  }
  const { script = [], env = true, ...serverOptions } = options
  const apiKey = typeof serverOptions.apiKey === 'string' ? serverOptions.apiKey : 'sk-mockgpt-test'
  const effective: MockGPTServerOptions = {
    ...serverOptions,
    apiKey: serverOptions.apiKey ?? apiKey,
    unref: true,
  }
  let server: MockGPTServer | undefined
  let scope: MockGPTScope | undefined
  let testId: string | undefined
  let saved: Record<string, string | undefined> = {}

  const current = (): { server: MockGPTServer; scope: MockGPTScope; testId: string } => {
    if (!server || !scope || testId === undefined) {
      throw new InvalidStateError(
        'useMockGPT(): the MockGPT scope exists only inside a test (or its hooks); call this from it().',
      )
    }
    return { server, scope, testId }
  }

  beforeAll(async () => {
    const servers = registry()
    const key = keyOf(effective)
    let started = servers.get(key)
    if (!started) {
      started = startMockGPTServer(effective)
      servers.set(key, started)
      started.catch(() => servers.delete(key))
    }
    server = await started
  })

  afterAll(() => {
    server = undefined
  })

  beforeEach(() => {
    const state = expect.getState()
    const file = (state.testPath ?? 'test').split(/[\\/]/).at(-1) ?? 'test'
    testId = `${file.replace(/[^\w.-]/g, '_').slice(0, 120)}-${process.pid}-${++counter}`
    const live = (server as MockGPTServer).mock.scope(testId)
    live.reset()
    if (script.length) live.script(...script)
    scope = live
    if (env) {
      saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]))
      const root = `${(server as MockGPTServer).url}/test/${encodeURIComponent(testId)}`
      process.env.OPENAI_BASE_URL = `${root}/v1`
      process.env.OPENAI_API_KEY = apiKey
      process.env.ANTHROPIC_BASE_URL = root
      process.env.ANTHROPIC_API_KEY = apiKey
    }
  })

  afterEach(() => {
    const live = scope
    scope = undefined
    testId = undefined
    if (env) {
      for (const name of ENV) {
        const value = saved[name]
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    }
    if (!live) return
    let failure: unknown
    try {
      if (effective.strict) live.assertAllScriptsUsed()
      else if (live.scriptProblems.length) live.assertAllScriptsUsed()
    } catch (error) {
      failure = error
    }
    live.reset()
    if (failure) {
      throw failure
    }
  })

  return {
    get server() {
      return current().server
    },
    get testId() {
      return current().testId
    },
    get baseURL() {
      const { server: s, testId: id } = current()
      return `${s.url}/test/${encodeURIComponent(id)}/v1`
    },
    get anthropicBaseURL() {
      const { server: s, testId: id } = current()
      return `${s.url}/test/${encodeURIComponent(id)}`
    },
    apiKey,
    script(...entries) {
      current().scope.script(...entries)
    },
    get requests() {
      return current().scope.requests
    },
    get usage() {
      return current().scope.usage
    },
    get pendingScript() {
      return current().scope.pendingScript
    },
    get scope() {
      return current().scope
    },
  }
}
