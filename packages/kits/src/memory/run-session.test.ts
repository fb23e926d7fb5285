import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChatMessage, ModelRequest } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import {
  createScriptedModel,
  defineAgent,
  defineExternalTool,
  type ScriptedTurn,
} from '@agent-core/kits/loop'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createMemorySessionStore,
  runSession,
  SessionBusyError,
  SessionConflictError,
  type SessionEvent,
} from './index.js'
import { createSqliteSessionStore } from './sqlite/index.js'

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

/** A model that answers each request with `answer <n>` after `delay` ms (cancellation not needed here). */
function answering(count: number, delays: readonly number[] = []) {
  const seen: ModelRequest[] = []
  const turn =
    (index: number): ScriptedTurn =>
    async (request) => {
      seen.push(request)
      await new Promise((resolve) => setTimeout(resolve, delays[index % Math.max(1, delays.length)] ?? 0))
      return { text: `answer to ${String(request.messages[request.messages.length - 1]?.content)}` }
    }
  return { model: createScriptedModel(Array.from({ length: count }, (_, index) => turn(index))), seen }
}

describe('runSession', () => {
  it('reads the history, runs on it and appends exactly what the run added', async () => {
    const { model, seen } = answering(2)
    const agent = defineAgent({ model, system: 'Be brief.' })
    const session = { store: createMemorySessionStore(), id: 'chat' }
    const events: SessionEvent[] = []
    const first = await runSession(agent, { session, prompt: 'one', onEvent: (event) => events.push(event) })
    expect(first.session.appended).toEqual([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'answer to one' },
    ])
    const second = await runSession(agent, { session, prompt: 'two' })
    expect(seen[1]!.messages.map((m) => m.content)).toEqual(['Be brief.', 'one', 'answer to one', 'two'])
    expect(second.session.revision).toBe(2)
    expect((await session.store.read('chat')).messages.map((entry) => entry.message.content)).toEqual([
      'one',
      'answer to one',
      'two',
      'answer to two',
    ])
    expect(events.at(-1)).toMatchObject({ type: 'session-saved', sessionId: 'chat', firstSeq: 1, lastSeq: 2 })
  })

  it('lets the model see the window while the session keeps everything', async () => {
    const { model, seen } = answering(1)
    const store = createMemorySessionStore()
    const old: ChatMessage[] = Array.from({ length: 20 }, (_, k) => ({
      role: k % 2 === 0 ? 'user' : 'assistant',
      content: `m${k}`,
    })) as ChatMessage[]
    await store.append('chat', { messages: [{ role: 'system', content: 'pinned' }, ...old] })
    const result = await runSession(defineAgent({ model }), {
      session: { store, id: 'chat' },
      prompt: 'now',
      window: { maxMessages: 4 },
    })
    expect(seen[0]!.messages.map((m) => m.content)).toEqual(['pinned', 'm16', 'm17', 'm18', 'm19', 'now'])
    expect(result.session.dropped).toBe(16)
    expect((await store.read('chat')).messages).toHaveLength(23)
  })

  it("records the model's reported usage when one call read the whole session, and uses it as the session's size", async () => {
    const model = createScriptedModel([
      { text: 'hi', usage: { inputTokens: 321, outputTokens: 9, totalTokens: 330 } },
    ])
    const store = createMemorySessionStore()
    const result = await runSession(defineAgent({ model }), {
      session: { store, id: 'chat' },
      prompt: 'hello',
    })
    expect((await store.read('chat')).state?.usage).toEqual({
      tokens: 330,
      revision: result.session.revision,
    })
  })

  it('appends a suspended run once, on its resume, and refuses a new turn meanwhile', async () => {
    const tool = defineExternalTool({ id: 'deploy', description: 'Deploys', inputSchema: { type: 'object' } })
    const model = createScriptedModel([
      { toolCalls: [{ id: 'd1', name: 'deploy', input: {} }] },
      { text: 'Deployed.' },
    ])
    const agent = defineAgent({ model, tools: [tool] })
    const store = createMemorySessionStore()
    const session = { store, id: 'ops' }
    await store.append('ops', {
      messages: [
        { role: 'user', content: 'earlier' },
        { role: 'assistant', content: 'ok' },
      ],
    })
    const suspended = await runSession(agent, { session, prompt: 'deploy it', defer: true })
    expect(suspended.reason).toBe('suspended')
    expect(suspended.session.appended).toEqual([])
    await expect(runSession(agent, { session, prompt: 'hello?' })).rejects.toSatisfy(
      (error) => SessionBusyError.isInstance(error) && error.details.reason === 'suspended',
    )
    const done = await runSession(agent, {
      session,
      resume: true,
      outcomes: { d1: { type: 'result', toolCallId: 'd1', output: 'v2 live' } },
    })
    expect(done.reason).toBe('final')
    const texts = (await store.read('ops')).messages.map((entry) => entry.message.role)
    expect(texts).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'assistant'])
    expect((await store.read('ops')).state?.suspended).toBeUndefined()
    await expect(runSession(agent, { session, resume: true, outcomes: {} })).rejects.toMatchObject({
      code: 'invalid-state',
    })
  })

  it("refuses a second run on a busy session with concurrency: 'refuse'", async () => {
    const { model } = answering(2, [30])
    const agent = defineAgent({ model })
    const session = { store: createMemorySessionStore(), id: 'chat' }
    const first = runSession(agent, { session, prompt: 'one' })
    await expect(runSession(agent, { session, prompt: 'two', concurrency: 'refuse' })).rejects.toSatisfy(
      (error) => SessionBusyError.isInstance(error) && error.details.reason === 'running',
    )
    await first
    expect((await session.store.read('chat')).messages).toHaveLength(2)
  })

  it('refuses the later write across processes (two SQLite connections) with SessionConflictError, storing nothing of it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'memory-run-'))
    folders.push(folder)
    const file = join(folder, 'chat.db')
    const [a, b] = [new Database(file), new Database(file)]
    for (const database of [a, b]) database.pragma('journal_mode = WAL')
    // two stores over one file, as two processes: no in-process queue between them
    const stores = [createSqliteSessionStore(a), createSqliteSessionStore(b)]
    const slow = answering(1, [40])
    const fast = answering(1, [0])
    const results = await Promise.allSettled([
      runSession(defineAgent({ model: slow.model }), {
        session: { store: stores[0]!, id: 'chat' },
        prompt: 'slow',
      }),
      runSession(defineAgent({ model: fast.model }), {
        session: { store: stores[1]!, id: 'chat' },
        prompt: 'fast',
      }),
    ])
    expect(results[1]!.status).toBe('fulfilled')
    expect(results[0]!.status).toBe('rejected')
    expect(SessionConflictError.isInstance((results[0] as PromiseRejectedResult).reason)).toBe(true)
    expect((await stores[0]!.read('chat')).messages.map((entry) => entry.message.content)).toEqual([
      'fast',
      'answer to fast',
    ])
    a.close()
    b.close()
  })

  it('refuses bad requests with InvalidInputError before touching the session', async () => {
    const agent = defineAgent({ model: createScriptedModel([]) })
    const store = createMemorySessionStore()
    const session = { store, id: 'chat' }
    const bad: unknown[] = [
      undefined,
      { session },
      { session: { store, id: '' }, prompt: 'x' },
      { session: { store: {}, id: 'chat' }, prompt: 'x' },
      { session, prompt: 'x', resume: true },
      { session, prompt: 'x', outcomes: {} },
      { session, prompt: 'x', window: { maxMessages: 0 } },
      { session, prompt: 'x', window: { maxMessages: Number.NaN } },
      { session, prompt: 'x', compaction: { maxTokens: 10 } },
      { session, prompt: 'x', compaction: { summarizer: async () => 's', maxTokens: -1 } },
      { session, prompt: 'x', concurrency: 'parallel' },
      { session, prompt: 'x', onEvent: 'log' },
      { session, prompt: 'x', messages: [{ role: 'bot', content: 'x' }] },
      { session, prompt: 'x', typo: true },
    ]
    for (const request of bad)
      await expect(runSession(agent, request as never), JSON.stringify(request)).rejects.toMatchObject({
        code: 'invalid-input',
      })
    await expect(runSession({} as never, { session, prompt: 'x' })).rejects.toMatchObject({
      code: 'invalid-input',
    })
    const aborted = new AbortController()
    aborted.abort()
    await expect(
      runSession(agent, { session, prompt: 'x' }, { signal: aborted.signal }),
    ).resolves.toMatchObject({
      reason: 'stopped',
    })
    expect((await store.read('chat')).revision).toBe(1)
  })
})

describe('concurrent runs on one session (property)', () => {
  it('never interleave: the session is the runs one after another, each whole (refused runs add nothing)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ delay: fc.integer({ min: 0, max: 8 }), tools: fc.boolean(), refuse: fc.boolean() }),
          {
            minLength: 2,
            maxLength: 6,
          },
        ),
        async (runs) => {
          const store = createMemorySessionStore()
          const session = { store, id: 's' }
          const lookup = defineModelTool({
            id: 'lookup',
            description: 'Looks up',
            inputSchema: { type: 'object' },
            execute: async () => {
              await new Promise((resolve) => setTimeout(resolve, 1))
              return 'found'
            },
          })
          const started = runs.map((run, index) => {
            const turns: ScriptedTurn[] = run.tools
              ? [
                  async () => {
                    await new Promise((resolve) => setTimeout(resolve, run.delay))
                    return { toolCalls: [{ id: `r${index}`, name: 'lookup', input: {} }] }
                  },
                  { text: `done ${index}` },
                ]
              : [
                  async () => {
                    await new Promise((resolve) => setTimeout(resolve, run.delay))
                    return { text: `done ${index}` }
                  },
                ]
            const agent = defineAgent({ model: createScriptedModel(turns), tools: [lookup] })
            return runSession(agent, {
              session,
              prompt: `run ${index}`,
              concurrency: run.refuse ? 'refuse' : 'queue',
            }).then(
              () => true,
              (error: unknown) => {
                // only a refusal, and only in refuse mode
                expect(run.refuse && SessionBusyError.isInstance(error)).toBe(true)
                return false
              },
            )
          })
          const ran = await Promise.all(started)
          const messages = (await store.read('s')).messages.map((entry) => entry.message)
          // reference model: the session is a concatenation of whole runs (user message first, then its own)
          let at = 0
          const order: number[] = []
          while (at < messages.length) {
            const first = messages[at]!
            expect(first.role).toBe('user')
            const index = Number(String(first.content).replace('run ', ''))
            order.push(index)
            const length = runs[index]!.tools ? 4 : 2
            const block = messages.slice(at, at + length)
            expect(block.at(-1)).toMatchObject({ role: 'assistant' })
            for (const message of block.slice(1)) expect(message.role).not.toBe('user')
            at += length
          }
          expect([...order].sort((x, y) => x - y)).toEqual(
            runs.flatMap((_, index) => (ran[index] ? [index] : [])),
          )
          expect(ran[0]).toBe(true) // the first run never waits for another
        },
      ),
      { numRuns: 40 },
    )
  })
})

describe('concurrent runs on one session through two SQLite connections (property)', () => {
  it('never interleave across connections: a run is stored whole or refused with SessionConflictError', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'memory-prop-'))
    folders.push(folder)
    let round = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ delay: fc.integer({ min: 0, max: 6 }), connection: fc.integer({ min: 0, max: 1 }) }),
          {
            minLength: 2,
            maxLength: 5,
          },
        ),
        async (runs) => {
          round += 1
          const file = join(folder, `chat-${round}.db`)
          const databases = [new Database(file), new Database(file)]
          for (const database of databases) database.pragma('journal_mode = WAL')
          const stores = databases.map((database) => createSqliteSessionStore(database))
          try {
            const outcomes = await Promise.all(
              runs.map((run, index) => {
                const model = createScriptedModel([
                  async () => {
                    await new Promise((resolve) => setTimeout(resolve, run.delay))
                    return { text: `done ${index}` }
                  },
                ])
                return runSession(defineAgent({ model }), {
                  session: { store: stores[run.connection]!, id: 's' },
                  prompt: `run ${index}`,
                }).then(
                  () => true,
                  (error: unknown) => {
                    expect(SessionConflictError.isInstance(error)).toBe(true)
                    return false
                  },
                )
              }),
            )
            const messages = (await stores[0]!.read('s')).messages.map((entry) =>
              String(entry.message.content),
            )
            const stored: number[] = []
            for (let at = 0; at < messages.length; at += 2) {
              const index = Number(messages[at]!.replace('run ', ''))
              expect(messages[at + 1]).toBe(`done ${index}`)
              stored.push(index)
            }
            expect([...stored].sort((a, b) => a - b)).toEqual(
              runs.flatMap((_, index) => (outcomes[index] ? [index] : [])),
            )
            expect(stored.length).toBeGreaterThan(0)
          } finally {
            for (const database of databases) database.close()
          }
        },
      ),
      { numRuns: 25 },
    )
  })
})
