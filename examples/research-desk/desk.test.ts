/**
 * The research desk end to end, in child processes, as a user runs it: on a small fixture corpus with
 * the offline model; killed with SIGKILL at random points and resumed; suspended with --defer and
 * decided in another process; pointed at a MockGPT server through OPENAI_*; and the --web page in
 * headless Chromium.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createSqliteDurableStore } from '@agent-core/kits/durable/sqlite'
import type { AgentRunState } from '@agent-core/kits/loop'
import { startMockGPTServer } from '@agent-core/mock/node'
import { chromium } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

const HERE = fileURLToPath(new URL('.', import.meta.url))
const MAIN = fileURLToPath(new URL('./src/main.ts', import.meta.url))
const FIXTURE = fileURLToPath(new URL('./fixtures/corpus', import.meta.url))
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const OTTERS = 'Why do sea otters hold hands?'

type Line = Record<string, unknown> & { type: string }

interface Run {
  readonly lines: Line[]
  readonly code: number | null
  readonly killed: boolean
  readonly stdout: string
  readonly stderr: string
}

const children = new Set<ChildProcess>()
const dirs: string[] = []

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return dir
}

/** Environment of a child: no OPENAI_* from the machine, no streaming delay, a trace of tool executions. */
function childEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, RESEARCH_DESK_STREAM_DELAY_MS: '0', NO_COLOR: '1' }
  for (const key of Object.keys(env)) if (key.startsWith('OPENAI_') || key === 'INIT_CWD') delete env[key]
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
}

/** Runs the desk; with `killAfter`, SIGKILLs it right after its n-th JSON line. */
function desk(
  args: string[],
  options: {
    cwd: string
    env?: Record<string, string | undefined>
    killAfter?: number
    input?: string
    onLine?: (line: Line, child: ChildProcess) => void
  },
): Promise<Run> {
  const child = spawn(
    process.execPath,
    ['--conditions=@agent-core/source', '--import', 'tsx', MAIN, ...args],
    {
      // Started in the example's folder (where tsx resolves), for a user in `options.cwd` (as pnpm tells it).
      cwd: HERE,
      env: childEnv({ INIT_CWD: options.cwd, ...options.env }),
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  )
  children.add(child)
  if (options.input !== undefined) child.stdin.end(options.input)
  else child.stdin.end()
  const lines: Line[] = []
  let stdout = ''
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk)
  })
  createInterface({ input: child.stdout }).on('line', (text) => {
    stdout += `${text}\n`
    if (!args.includes('--json')) return
    const line = JSON.parse(text) as Line
    lines.push(line)
    options.onLine?.(line, child)
    if (options.killAfter !== undefined && lines.length === options.killAfter) child.kill('SIGKILL')
  })
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      children.delete(child)
      resolve({ lines, code, killed: signal === 'SIGKILL', stdout, stderr })
    })
  })
}

function only(lines: readonly Line[], type: string): Line {
  const found = lines.filter((line) => line.type === type)
  expect(found, `one ${type} line`).toHaveLength(1)
  return found[0]!
}

/** A seeded generator, so a failing sequence of kills can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A data folder whose knowledge store already holds the fixture corpus (indexed once, in beforeAll). */
let indexed: string
function dataDir(): string {
  const dir = tempDir('desk-data-')
  copyFileSync(join(indexed, 'knowledge.db'), join(dir, 'knowledge.db'))
  return dir
}

beforeAll(async () => {
  indexed = tempDir('desk-index-')
  const run = await desk(['What do sea otters eat?', '--corpus', FIXTURE, '--data', indexed, '--json'], {
    cwd: indexed,
  })
  expect(run.code, run.stderr).toBe(0)
  const summary = only(run.lines, 'desk-indexed')
  expect(summary).toMatchObject({ files: 3, skippedFiles: 2, published: 3, embedded: summary.passages })
  rmSync(join(indexed, 'runs.db'), { force: true })
}, 240_000)

afterEach(async () => {
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('close', () => resolve())
          child.kill('SIGKILL')
        }),
    ),
  )
})

afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('the research desk on a fixture corpus, offline', () => {
  it('answers with the passage that says it, cited with file and line range; a second run embeds nothing', async () => {
    const data = dataDir()
    const first = await desk([OTTERS, '--corpus', FIXTURE, '--data', data, '--json'], { cwd: data })
    expect(first.code, first.stderr).toBe(0)
    expect(only(first.lines, 'desk-indexed')).toMatchObject({ embedded: 0, unchanged: 3, published: 0 })
    const answer = only(first.lines, 'desk-answer') as Line & {
      text: string
      citations: { id: string; file: string; lines: string }[]
    }
    expect(answer.text).toContain('hold hands while they sleep')
    expect(answer.citations).toEqual([
      expect.objectContaining({
        id: 'otters.md@1#2',
        file: 'otters.md',
        lines: '5-8',
        headings: 'Sea otters > Sleeping',
      }),
    ])
    // The answer was streamed: its text deltas add up to it.
    const streamed = first.lines
      .filter((line) => line.type === 'text-delta')
      .map((line) => line.text)
      .join('')
    expect(streamed).toBe(answer.text)
    // The tools really ran: a search, then reads.
    const tools = first.lines.filter((line) => line.type === 'tool-resolved').map((line) => line.toolId)
    expect(tools[0]).toBe('search_passages')
    expect(tools).toContain('read_passage')

    // The same command again: nothing embedded, nothing run; the saved answer.
    const second = await desk([OTTERS, '--corpus', FIXTURE, '--data', data, '--json'], { cwd: data })
    expect(second.code, second.stderr).toBe(0)
    expect(only(second.lines, 'desk-indexed')).toMatchObject({ embedded: 0, published: 0 })
    expect(second.lines.some((line) => line.type === 'run-start')).toBe(false)
    expect(only(second.lines, 'desk-answer')).toMatchObject({
      text: answer.text,
      citations: answer.citations,
    })
  }, 120_000)

  it('re-embeds only the passages of a changed file, and retracts a deleted one', async () => {
    const data = dataDir()
    const corpus = join(tempDir('desk-corpus-'), 'corpus')
    cpSync(FIXTURE, corpus, { recursive: true })
    const before = await desk(['How long does bread bake?', '--corpus', corpus, '--data', data, '--json'], {
      cwd: data,
    })
    expect(before.code, before.stderr).toBe(0)
    // A new corpus path is a new publication: everything embedded once.
    const initial = only(before.lines, 'desk-indexed') as Line & { passages: number; embedded: number }
    expect(initial.embedded).toBe(initial.passages)
    writeFileSync(
      join(corpus, 'notes', 'tea.txt'),
      `${readFileSync(join(corpus, 'notes', 'tea.txt'), 'utf8')}\nOolong tea is steeped for three minutes.\n`,
    )
    rmSync(join(corpus, 'guides', 'baking.md'))
    const after = await desk(
      ['How long is oolong tea steeped?', '--corpus', corpus, '--data', data, '--json'],
      {
        cwd: data,
      },
    )
    expect(after.code, after.stderr).toBe(0)
    expect(only(after.lines, 'desk-indexed')).toMatchObject({
      published: 1,
      unchanged: 1,
      retracted: 1,
      embedded: 1,
    })
    expect(only(after.lines, 'desk-answer').text).toContain('Oolong tea is steeped for three minutes.')
  }, 180_000)

  it('says so and cites nothing when no passage supports an answer', async () => {
    const data = dataDir()
    const run = await desk(['What is the capital of France?', '--corpus', FIXTURE, '--data', data], {
      cwd: data,
    })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('I found no passage in the corpus that answers this question')
    expect(run.stdout).toContain('sources: none')
  }, 60_000)

  it('prints the answer and its sources for a person (no --json)', async () => {
    const data = dataDir()
    const run = await desk(['What do sea otters use stones for?', '--corpus', FIXTURE, '--data', data], {
      cwd: data,
    })
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/They use stones as tools to crack open hard shells\. \[otters\.md@1#3\]/)
    expect(run.stdout).toMatch(/\[otters\.md@1#3\] otters\.md:10-12 {2}Sea otters > Food/)
    expect(run.stderr).toContain('indexed 3 files (0 new or changed, 3 unchanged; 2 other files skipped)')
    expect(run.stderr).toContain('offline model')
  }, 60_000)
})

describe('--session: follow-up questions build on earlier answers', () => {
  it('reads the earlier turn, answers a follow-up the question alone does not carry, and keeps the conversation in sessions.db', async () => {
    const data = dataDir()
    const ask = (question: string, ...extra: string[]) =>
      desk([question, '--corpus', FIXTURE, '--data', data, '--json', ...extra], { cwd: data })
    // Alone (an empty session), the follow-up names nothing the corpus says.
    const alone = await ask('At what temperature?', '--session', 'garden')
    expect(alone.code, alone.stderr).toBe(0)
    expect(only(alone.lines, 'desk-answer').text).toContain('I found no passage')

    const first = await ask('How long does bread bake?', '--session', 'kitchen')
    expect(first.code, first.stderr).toBe(0)
    expect(only(first.lines, 'desk-answer').text).toContain('thirty minutes')
    expect(only(first.lines, 'desk-session')).toMatchObject({ session: 'kitchen', revision: 1 })

    const followUp = await ask('At what temperature?', '--session', 'kitchen')
    expect(followUp.code, followUp.stderr).toBe(0)
    const answer = only(followUp.lines, 'desk-answer') as Line & {
      text: string
      citations: { file: string }[]
    }
    expect(answer.text).toContain('230 degrees Celsius')
    expect(answer.citations.map((citation) => citation.file)).toEqual(['guides/baking.md'])
    // It searched with the earlier question's key terms (a follow-up is read in context).
    const searched = followUp.lines
      .filter((line) => line.type === 'tool-start' && line.toolId === 'search_passages')
      .map((line) => String((line.input as { query?: string }).query))
    expect(searched[0]).toMatch(/bread.*bake.*temperature/i)
    expect(only(followUp.lines, 'desk-session')).toMatchObject({ session: 'kitchen', revision: 2 })

    // The session holds the two turns, question and answer each, in order.
    const { createSqliteSessionStore } = await import('@agent-core/kits/memory/sqlite')
    const { default: Database } = await import('better-sqlite3')
    const database = new Database(join(data, 'sessions.db'))
    const stored = await createSqliteSessionStore(database).read('kitchen')
    database.close()
    expect(
      stored.messages.map((entry) => [entry.message.role, String(entry.message.content).slice(0, 26)]),
    ).toEqual([
      ['user', 'How long does bread bake?'],
      ['assistant', String(only(first.lines, 'desk-answer').text).slice(0, 26)],
      ['user', 'At what temperature?'],
      ['assistant', answer.text.slice(0, 26)],
    ])

    // The other session does not see this one: it holds its own turn only.
    const garden = new Database(join(data, 'sessions.db'))
    expect((await createSqliteSessionStore(garden).read('garden')).messages).toHaveLength(2)
    garden.close()
  }, 600_000)

  it('a run killed after its answer is recorded once when the same command runs again', async () => {
    const data = dataDir()
    const args = [
      'How long does bread bake?',
      '--corpus',
      FIXTURE,
      '--data',
      data,
      '--json',
      '--session',
      's',
    ]
    // Killed right after the answer line: the turn may not be in the session yet.
    const killed = await desk(args, {
      cwd: data,
      onLine: (line, child) => {
        if (line.type === 'desk-answer') child.kill('SIGKILL')
      },
    })
    expect(killed.killed).toBe(true)
    const again = await desk(args, { cwd: data })
    expect(again.code, again.stderr).toBe(0)
    const { createSqliteSessionStore } = await import('@agent-core/kits/memory/sqlite')
    const { default: Database } = await import('better-sqlite3')
    const database = new Database(join(data, 'sessions.db'))
    const stored = await createSqliteSessionStore(database).read('s')
    database.close()
    // Either the killed process recorded it and this is the follow-up turn, or this run recorded the
    // killed one's answer (saved, nothing ran): never one turn twice, never half a turn.
    const questions = stored.messages.filter((entry) => entry.message.role === 'user')
    expect(stored.messages.length).toBe(questions.length * 2)
    const saved = again.lines.some((line) => line.type === 'run-start') === false
    expect(questions.length).toBe(saved ? 1 : 2)
  }, 600_000)

  it('refuses a bad session name as a usage error', async () => {
    const data = dataDir()
    const run = await desk(['x', '--corpus', FIXTURE, '--data', data, '--session', 'a b/c'], { cwd: data })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('--session takes a name')
  }, 180_000)
})

describe('killed at random points, the same command resumes', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: ends with the uninterrupted answer; each tool call ran under one invocation id, and a saved result never ran again`, async () => {
      const reference = await desk([OTTERS, '--corpus', FIXTURE, '--data', dataDir(), '--json'], {
        cwd: tmpdir(),
      })
      expect(reference.code, reference.stderr).toBe(0)
      const expected = only(reference.lines, 'desk-answer')
      const total = reference.lines.length

      const data = dataDir()
      const trace = join(data, 'trace.jsonl')
      const next = random(seed)
      const kills: number[] = []
      let finished: Run | undefined
      for (let attempt = 0; attempt < 8 && finished === undefined; attempt++) {
        const killAfter = attempt >= 4 ? undefined : 1 + Math.floor(next() * total)
        const run = await desk([OTTERS, '--corpus', FIXTURE, '--data', data, '--json'], {
          cwd: data,
          env: { RESEARCH_DESK_TRACE: trace },
          killAfter,
        })
        if (run.killed) {
          kills.push(killAfter!)
          continue
        }
        expect(run.code, run.stderr).toBe(0)
        finished = run
      }
      expect(finished, `never finished (kills after lines ${kills.join(', ')})`).toBeDefined()
      expect(kills.length, 'no run was killed: the test would prove nothing').toBeGreaterThan(0)
      // Resuming never re-indexes.
      expect(only(finished!.lines, 'desk-indexed')).toMatchObject({ embedded: 0, published: 0 })
      expect(only(finished!.lines, 'desk-answer')).toMatchObject({
        text: expected.text,
        citations: expected.citations,
      })

      const taskId = String(only(finished!.lines, 'desk-task').taskId)
      const store = createSqliteDurableStore(join(data, 'runs.db'))
      const database = store.database
      try {
        const checkpoint = (await store.load(taskId)) as { status: string; state: AgentRunState }
        expect(checkpoint.status).toBe('completed')
        const messages = checkpoint.state.messages
        const calls = messages.flatMap((message) =>
          message.role === 'assistant' ? (message.toolCalls ?? []) : [],
        )
        const results = messages.filter((message) => message.role === 'tool')
        expect(results).toHaveLength(calls.length)
        const log = database
          .prepare('SELECT invocation_id AS invocationId, tool, input, executions FROM desk_tool_log')
          .all() as { invocationId: string; tool: string; input: string; executions: number }[]
        // Every execution of a read (the keyed tool) used one invocation id per passage: a restart
        // re-entered a read cut short with the id it was saved with, and never started a settled one again.
        const reads = log.filter((entry) => entry.tool === 'read_passage')
        const byInput = new Map<string, Set<string>>()
        for (const entry of reads)
          byInput.set(entry.input, (byInput.get(entry.input) ?? new Set()).add(entry.invocationId))
        for (const [input, ids] of byInput)
          expect([...ids], `read ${input} (kills ${kills.join(', ')})`).toHaveLength(1)
        expect(byInput.size).toBe(calls.filter((call) => call.name === 'read_passage').length)
        // At most one execution per invocation beyond those a kill cut short.
        for (const entry of log) expect(entry.executions).toBeLessThanOrEqual(1 + kills.length)
      } finally {
        store.close()
      }
      const executions = readFileSync(trace, 'utf8').split('\n').filter(Boolean)
      expect(executions.length).toBeGreaterThan(0)
    }, 240_000)
  }
})

describe('approvals', () => {
  it('--defer exits with the pending read printed; --decide resumes it in a new process', async () => {
    const data = dataDir()
    const args = ['How long does the loaf bake?', '--corpus', FIXTURE, '--data', data, '--json']
    const deferred = await desk([...args, '--defer'], { cwd: data })
    expect(deferred.code, deferred.stderr).toBe(7)
    const pending = only(deferred.lines, 'desk-pending') as Line & {
      calls: { toolCallId: string; toolId: string; input: { id: string } }[]
      command: string
    }
    expect(pending.calls.length).toBeGreaterThan(0)
    expect(pending.calls.every((call) => call.toolId === 'read_passage')).toBe(true)
    expect(pending.command).toContain(`--decide ${pending.calls[0]!.toolCallId}=y`)
    // Running it again without a decision shows the same pending reads, and runs nothing.
    const again = await desk([...args, '--defer'], { cwd: data })
    expect(again.code).toBe(7)
    expect(only(again.lines, 'desk-pending')).toEqual(pending)

    // A decision for a call that does not wait is refused with what does.
    const wrong = await desk([...args, '--decide', 'call_nope=y'], { cwd: data })
    expect(wrong.code).toBe(8)
    expect(only(wrong.lines, 'desk-error').message).toContain(pending.calls[0]!.toolCallId)

    // Approve every read, one process per decision round, until the run answers.
    let waiting = pending
    const approvedIds: string[] = []
    let decided: Run | undefined
    for (let round = 0; round < 4 && decided === undefined; round++) {
      const decisions = waiting.calls.flatMap((call) => ['--decide', `${call.toolCallId}=y`])
      approvedIds.push(...waiting.calls.map((call) => call.toolCallId))
      const run = await desk([...args, ...decisions], { cwd: data })
      if (run.code === 7) waiting = only(run.lines, 'desk-pending') as typeof pending
      else decided = run
    }
    expect(decided?.code, decided?.stderr).toBe(0)
    const answer = only(decided!.lines, 'desk-answer') as Line & { text: string; citations: { id: string }[] }
    expect(answer.text).toContain('Bake the loaf at 230 degrees Celsius for thirty minutes.')
    expect(answer.citations.map((citation) => citation.id)).toContain('guides/baking.md@1#3')
    // Each approved read ran once, in the process that decided it.
    const store = createSqliteDurableStore(join(data, 'runs.db'))
    try {
      const reads = store.database
        .prepare("SELECT executions FROM desk_tool_log WHERE tool = 'read_passage'")
        .all() as { executions: number }[]
      expect(reads).toHaveLength(approvedIds.length)
      expect(reads.every((read) => read.executions === 1)).toBe(true)
    } finally {
      store.close()
    }
  }, 180_000)

  it('--decide with an instruction refuses the read, and the model follows the instruction', async () => {
    const data = dataDir()
    const args = ['How long does the loaf bake?', '--corpus', FIXTURE, '--data', data, '--json']
    const deferred = await desk([...args, '--defer'], { cwd: data })
    const pending = only(deferred.lines, 'desk-pending') as Line & { calls: { toolCallId: string }[] }
    const decisions = pending.calls.flatMap((call) => [
      '--decide',
      `${call.toolCallId}=green tea water temperature`,
    ])
    const decided = await desk([...args, ...decisions], { cwd: data })
    // The refusal carried the instruction: the model searched for it, and now waits on a read of tea.txt.
    expect(decided.code, decided.stderr).toBe(7)
    const searches = decided.lines.filter(
      (line) => line.type === 'tool-start' && line.toolId === 'search_passages',
    )
    expect(searches.map((line) => (line.input as { query: string }).query)).toEqual([
      'green tea water temperature',
    ])
    const next = only(decided.lines, 'desk-pending') as Line & {
      calls: { toolCallId: string; input: { id: string } }[]
    }
    expect(next.calls.map((call) => call.input.id)).toEqual(['notes/tea.txt@1#1'])
    let waiting = next
    let done: Run | undefined
    for (let round = 0; round < 4 && done === undefined; round++) {
      const run = await desk(
        [...args, ...waiting.calls.flatMap((call) => ['--decide', `${call.toolCallId}=y`])],
        {
          cwd: data,
        },
      )
      if (run.code === 7) waiting = only(run.lines, 'desk-pending') as typeof next
      else done = run
    }
    expect(done?.code, done?.stderr).toBe(0)
    const answer = only(done!.lines, 'desk-answer') as Line & { text: string; citations: { id: string }[] }
    expect(answer.text).toContain('Green tea is brewed with water at about 80 degrees Celsius')
    expect(answer.citations.map((citation) => citation.id)).toEqual(['notes/tea.txt@1#1'])
  }, 180_000)

  it('--approve asks in the terminal before each read: y runs it, n refuses it', async () => {
    const data = dataDir()
    const approved = await desk(
      ['What do sea otters eat?', '--corpus', FIXTURE, '--data', data, '--approve'],
      {
        cwd: data,
        input: 'y\ny\ny\n',
      },
    )
    expect(approved.code, approved.stderr).toBe(0)
    expect(approved.stderr).toContain('Read passage otters.md@1#3? [y]es / [n]o / or type an instruction:')
    expect(approved.stdout).toContain('Sea otters eat sea urchins, crabs and clams. [otters.md@1#3]')

    const refused = await desk(
      ['What do sea otters eat?', '--corpus', FIXTURE, '--data', dataDir(), '--approve'],
      {
        cwd: data,
        input: 'n\nn\nn\n',
      },
    )
    expect(refused.code, refused.stderr).toBe(0)
    expect(refused.stdout).toContain('I found no passage in the corpus that answers this question')
    expect(refused.stdout).toContain('sources: none')
  }, 120_000)
})

describe('any OpenAI-compatible endpoint through OPENAI_*', () => {
  it('uses the endpoint, model and key from the environment (a MockGPT server here)', async () => {
    const server = await startMockGPTServer({
      apiKey: 'sk-desk-test',
      models: ['desk-test-model'],
      script: [
        {
          times: Number.POSITIVE_INFINITY,
          reply: (request) =>
            request.toolResults.length === 0
              ? {
                  type: 'tool-calls',
                  calls: [{ name: 'search_passages', arguments: { query: 'black tea' } }],
                }
              : request.toolResults.length === 1
                ? {
                    type: 'tool-calls',
                    calls: [{ name: 'read_passage', arguments: { id: 'notes/tea.txt@1#1' } }],
                  }
                : { type: 'text', text: 'Black tea steeps for four minutes [notes/tea.txt@1#1].' },
        },
      ],
    })
    try {
      const data = dataDir()
      const env = {
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: 'sk-desk-test',
        OPENAI_MODEL: 'desk-test-model',
      }
      const run = await desk(['How long does black tea steep?', '--corpus', FIXTURE, '--data', data], {
        cwd: data,
        env,
      })
      expect(run.code, run.stderr).toBe(0)
      expect(run.stdout).toContain('Black tea steeps for four minutes [notes/tea.txt@1#1].')
      expect(run.stdout).toMatch(/\[notes\/tea\.txt@1#1\] notes\/tea\.txt:1-3/)
      expect(run.stderr).toContain(`model: desk-test-model at ${server.baseURL}`)
      const requests = server.mock.requests
      expect(requests).toHaveLength(3)
      expect(
        requests.every((request) => (request.body as { model?: string }).model === 'desk-test-model'),
      ).toBe(true)
      // The system prompt asks for cited answers; the tools were offered.
      expect(JSON.stringify(requests[0]!.body)).toContain('square brackets')

      const badKey = await desk(['What is green tea brewed with?', '--corpus', FIXTURE, '--data', data], {
        cwd: data,
        env: { ...env, OPENAI_API_KEY: 'sk-wrong' },
      })
      expect(badKey.code).toBe(5)
      expect(badKey.stderr).toContain('refused the API key')
    } finally {
      await server.close()
    }
  }, 120_000)

  it('an unreachable endpoint and a half-set environment are clear errors with their exit codes', async () => {
    const data = dataDir()
    const unreachable = await desk(['How long does black tea steep?', '--corpus', FIXTURE, '--data', data], {
      cwd: data,
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'sk-x', OPENAI_MODEL: 'm' },
    })
    expect(unreachable.code).toBe(4)
    expect(unreachable.stderr).toContain('Could not reach the endpoint in OPENAI_BASE_URL')
    const halfSet = await desk(['q?', '--corpus', FIXTURE, '--data', data], {
      cwd: data,
      env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
    })
    expect(halfSet.code).toBe(2)
    expect(halfSet.stderr).toContain('set OPENAI_API_KEY and OPENAI_MODEL too')
  }, 120_000)
})

describe('clear errors for the corpus and the command line', () => {
  it('a missing folder, an empty folder and bad options', async () => {
    const cwd = tempDir('desk-cwd-')
    const missing = await desk(['q?', '--corpus', join(cwd, 'nope'), '--data', cwd], { cwd })
    expect(missing.code).toBe(3)
    expect(missing.stderr).toContain('does not exist. Pass --corpus with a folder of .md or .txt files.')
    mkdirSync(join(cwd, 'empty'))
    writeFileSync(join(cwd, 'empty', 'photo.jpg'), 'not text')
    const empty = await desk(['q?', '--corpus', join(cwd, 'empty'), '--data', cwd, '--json'], { cwd })
    expect(empty.code).toBe(3)
    expect(only(empty.lines, 'desk-error').message).toContain(
      'holds no .md or .txt file (1 other files skipped)',
    )
    const both = await desk(['q?', '--approve', '--defer'], { cwd })
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('exclude each other')
    const badDecision = await desk(['q?', '--decide', 'nothing'], { cwd })
    expect(badDecision.code).toBe(2)
    const unknown = await desk(['q?', '--colour'], { cwd })
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("unknown option '--colour'")
    expect(existsSync(join(cwd, '.agent-core'))).toBe(false)
  }, 120_000)
})

describe('--web', () => {
  it('serves a page that streams the answer and shows the cited passages (headless Chromium)', async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium is not installed at ${CHROMIUM}. Install it (apt-get install -y chromium) or set CHROMIUM_PATH.`,
      )
    }
    const data = dataDir()
    const profile = tempDir('desk-chromium-')
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
      ],
    })
    try {
      let url: string | undefined
      let webSeen: (value: string) => void = () => {}
      const webUrl = new Promise<string>((resolve) => {
        webSeen = resolve
      })
      const running = desk([OTTERS, '--corpus', FIXTURE, '--data', data, '--json', '--web'], {
        cwd: data,
        env: { RESEARCH_DESK_STREAM_DELAY_MS: '40' },
        onLine: (line) => {
          if (line.type === 'desk-web') webSeen((url = String(line.url)))
        },
      })
      const page = await browser.newPage()
      await page.goto(await webUrl)
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
      // Part of the answer shows before all of it: it streams.
      await page.waitForFunction(() => (document.getElementById('answer')?.textContent ?? '').length > 0)
      const partial = await page.textContent('#answer')
      await page.waitForSelector('body[data-done="true"]', { timeout: 60_000 })
      const answer = await page.textContent('#answer')
      expect(answer).toContain('Sea otters hold hands while they sleep')
      expect(partial!.length).toBeLessThan(answer!.length)
      const sources = await page.$$eval('#sources li', (items) =>
        items.map((item) => (item as HTMLElement).dataset.id),
      )
      expect(sources).toEqual(['otters.md@1#2'])
      expect(await page.textContent('#sources .where')).toContain('otters.md:5-8')
      for (const child of children) child.kill('SIGINT')
      const run = await running
      expect(run.code, run.stderr).toBe(0)
    } finally {
      await browser.close()
    }
  }, 120_000)
})
