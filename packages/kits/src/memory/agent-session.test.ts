// `agent.run({ session })` is the loop's; it is tested here because the loop cannot import the stores.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ModelRequest } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import {
  type AgentSessionStore,
  createScriptedModel,
  defineAgent,
  defineExternalTool,
  holdSession,
  SessionBusyError as LoopBusy,
  type ScriptedTurn,
} from '@agent-core/kits/loop'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import {
  compactSession,
  createMemorySessionStore,
  runSession,
  SessionBusyError,
  SessionConflictError,
  sessionView,
} from './index.js'
import { createSqliteSessionStore } from './sqlite/index.js'

const folders: string[] = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

function answering(count: number, delay = 0) {
  const seen: ModelRequest[] = []
  const turn: ScriptedTurn = async (request) => {
    seen.push(request)
    await new Promise((resolve) => setTimeout(resolve, delay))
    return { text: `answer to ${String(request.messages.at(-1)?.content)}` }
  }
  return { model: createScriptedModel(Array.from({ length: count }, () => turn)), seen }
}

function sqliteStore() {
  const folder = mkdtempSync(join(tmpdir(), 'agent-session-'))
  folders.push(folder)
  return createSqliteSessionStore(new Database(join(folder, 'chat.db')))
}

describe('agent.run({ session })', () => {
  it('is the memory kit’s classes: one SessionBusyError, one SessionConflictError', () => {
    expect(SessionBusyError).toBe(LoopBusy)
    expect(SessionConflictError.code).toBe('session-conflict')
  })

  for (const [name, make] of [
    ['memory', () => createMemorySessionStore()],
    ['SQLite', sqliteStore],
  ] as const) {
    it(`reads the history, runs on it and appends what the run added (${name} store)`, async () => {
      const { model, seen } = answering(2)
      const agent = defineAgent({ model, system: 'Be brief.' })
      const store: AgentSessionStore = make()
      const session = { store, id: 'chat' }
      const first = await agent.run({ session, prompt: 'one' })
      expect(first.reason).toBe('final')
      const second = await agent.run({ session, prompt: 'two' })
      expect(seen[1]!.messages.map((m) => m.content)).toEqual(['Be brief.', 'one', 'answer to one', 'two'])
      expect(second.messages.map((m) => m.content)).toEqual(['one', 'answer to one', 'two', 'answer to two'])
      const stored = await store.read('chat')
      expect(stored.revision).toBe(2)
      expect(stored.messages.map((entry) => [entry.seq, entry.message.content])).toEqual([
        [1, 'one'],
        [2, 'answer to one'],
        [3, 'two'],
        [4, 'answer to two'],
      ])
    })
  }

  it('streams on a session too, and a runSession turn and an agent.run turn share one history', async () => {
    const { model, seen } = answering(3)
    const agent = defineAgent({ model })
    const session = { store: createMemorySessionStore(), id: 'chat' }
    await runSession(agent, { session, prompt: 'one' })
    const stream = agent.stream({ session, prompt: 'two' })
    const types = new Set<string>()
    for await (const event of stream) types.add(event.type)
    expect((await stream.result).reason).toBe('final')
    expect(types.has('run-end') || types.size > 0).toBe(true)
    await runSession(agent, { session, prompt: 'three' })
    expect(seen[2]!.messages.map((m) => m.content)).toEqual([
      'one',
      'answer to one',
      'two',
      'answer to two',
      'three',
    ])
  })

  it('reads the summary a compaction recorded, as runSession does', async () => {
    const store = createMemorySessionStore()
    await store.append('chat', {
      messages: [
        { role: 'system', content: 'pinned' },
        ...Array.from({ length: 8 }, (_, k) => ({
          role: (k % 2 === 0 ? 'user' : 'assistant') as 'user' | 'assistant',
          content: `m${k} ${'word '.repeat(30)}`,
        })),
      ],
    })
    const outcome = await compactSession(
      { store, id: 'chat' },
      {
        summarizer: createScriptedModel([{ text: 'They talked about words.' }]),
        maxTokens: 50,
        keepTurns: 1,
      },
    )
    expect(outcome.status).toBe('compacted')
    const { model, seen } = answering(1)
    await defineAgent({ model }).run({ session: { store, id: 'chat' }, prompt: 'and then?' })
    const view = sessionView(await store.read('chat'))
    expect(seen[0]!.messages.map((m) => m.content)).toEqual(view.slice(0, -1).map((m) => m.content))
    expect(String(seen[0]!.messages[1]!.content)).toContain('They talked about words.')
    // the compaction stays recorded after the run's write
    expect((await store.read('chat')).state?.compaction?.summary).toBe('They talked about words.')
  })

  it('appends a suspended run once, on its resume, and refuses a new turn meanwhile', async () => {
    const tool = defineExternalTool({ id: 'deploy', description: 'Deploys', inputSchema: { type: 'object' } })
    const model = createScriptedModel([
      { toolCalls: [{ id: 'd1', name: 'deploy', input: {} }] },
      { text: 'Deployed.' },
    ])
    const agent = defineAgent({ model, tools: [tool] })
    const store = sqliteStore()
    const session = { store, id: 'ops' }
    await store.append('ops', {
      messages: [
        { role: 'user', content: 'earlier' },
        { role: 'assistant', content: 'ok' },
      ],
    })
    const before = (await store.read('ops')).messages.length
    const suspended = await agent.run({ session, prompt: 'deploy it', defer: true })
    expect(suspended.reason).toBe('suspended')
    expect((await store.read('ops')).messages).toHaveLength(before)
    await expect(agent.run({ session, prompt: 'hello?' })).rejects.toSatisfy(
      (error) => SessionBusyError.isInstance(error) && error.details.reason === 'suspended',
    )
    const outcomes = { d1: { type: 'result' as const, toolCallId: 'd1', output: 'v2 live' } }
    const done = await agent.run({ session, outcomes })
    expect(done.reason).toBe('final')
    const after = (await store.read('ops')).messages.slice(before).map((entry) => entry.message.role)
    expect(after).toEqual(['user', 'assistant', 'tool', 'assistant'])
    expect((await store.read('ops')).state?.suspended).toBeUndefined()
    // resumed once: a second resume is refused and appends nothing
    await expect(agent.run({ session, outcomes })).rejects.toMatchObject({ code: 'invalid-state' })
    expect((await store.read('ops')).messages.length).toBe(before + 4)
  })

  it('resumes through runSession a run that suspended through agent.run (one state format)', async () => {
    const tool = defineExternalTool({ id: 'deploy', description: 'Deploys', inputSchema: { type: 'object' } })
    const model = createScriptedModel([
      { toolCalls: [{ id: 'd1', name: 'deploy', input: {} }] },
      { text: 'Deployed.' },
    ])
    const agent = defineAgent({ model, tools: [tool] })
    const session = { store: createMemorySessionStore(), id: 'ops' }
    expect((await agent.run({ session, prompt: 'deploy', defer: true })).reason).toBe('suspended')
    const done = await runSession(agent, {
      session,
      resume: true,
      outcomes: { d1: { type: 'result', toolCallId: 'd1', output: 'ok' } },
    })
    expect(done.session.appended.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })

  it("refuses a second run on a busy session with concurrency: 'refuse', also against runSession", async () => {
    const { model } = answering(2, 30)
    const agent = defineAgent({ model })
    const session = { store: createMemorySessionStore(), id: 'chat' }
    const first = runSession(agent, { session, prompt: 'one' })
    await expect(agent.run({ session, prompt: 'two', concurrency: 'refuse' })).rejects.toSatisfy(
      (error) => SessionBusyError.isInstance(error) && error.details.reason === 'running',
    )
    await first
    const queued = [agent.run({ session, prompt: 'two' })]
    await Promise.all(queued)
    expect((await session.store.read('chat')).messages).toHaveLength(4)
  })

  it('refuses the later write across processes (two SQLite connections) with SessionConflictError', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'agent-session-'))
    folders.push(folder)
    const file = join(folder, 'chat.db')
    const [a, b] = [new Database(file), new Database(file)]
    for (const database of [a, b]) database.pragma('journal_mode = WAL')
    const stores = [createSqliteSessionStore(a), createSqliteSessionStore(b)]
    const results = await Promise.allSettled([
      defineAgent({ model: answering(1, 40).model }).run({
        session: { store: stores[0]!, id: 'c' },
        prompt: 'slow',
      }),
      defineAgent({ model: answering(1, 0).model }).run({
        session: { store: stores[1]!, id: 'c' },
        prompt: 'fast',
      }),
    ])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled'])
    expect(SessionConflictError.isInstance((results[0] as PromiseRejectedResult).reason)).toBe(true)
    expect((await stores[0]!.read('c')).messages.map((entry) => entry.message.content)).toEqual([
      'fast',
      'answer to fast',
    ])
    a.close()
    b.close()
  })

  it('refuses bad requests with a typed error before touching the session', async () => {
    const agent = defineAgent({ model: createScriptedModel([]) })
    const store = createMemorySessionStore()
    const session = { store, id: 'chat' }
    const bad: unknown[] = [
      { session: { store, id: '' }, prompt: 'x' },
      { session: { store: {}, id: 'chat' }, prompt: 'x' },
      { session: { store, id: 'chat', extra: 1 }, prompt: 'x' },
      { session, prompt: 'x', concurrency: 'parallel' },
      { concurrency: 'queue', prompt: 'x' },
      { session, prompt: 'x', outcomes: {} },
      { session, resume: { runId: 'r' } },
      { session, prompt: 'x', typo: true },
    ]
    for (const request of bad)
      await expect(agent.run(request as never), JSON.stringify(request)).rejects.toMatchObject({
        code: 'invalid-input',
      })
    await expect(agent.run({ session })).rejects.toMatchObject({ code: 'invalid-state' })
    expect((await store.read('chat')).revision).toBe(0)
  })
})

describe('holdSession', () => {
  it('lets go of the session when the body throws, and stops waiting on the signal', async () => {
    const session = { store: createMemorySessionStore(), id: 's' }
    await expect(
      holdSession(session, {}, async () => {
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    let release!: () => void
    const held = holdSession(session, {}, () => new Promise<void>((resolve) => (release = resolve)))
    const controller = new AbortController()
    const waiting = holdSession(session, { signal: controller.signal }, async () => 'ran')
    controller.abort()
    await expect(waiting).rejects.toBeDefined()
    release()
    await held
    await expect(holdSession(session, { concurrency: 'refuse' }, async () => 'free')).resolves.toBe('free')
  })
})

describe('concurrent agent.run on one session (property)', () => {
  it('never interleave: the session is whole runs one after another; refused runs add nothing', async () => {
    const lookup = defineModelTool({
      id: 'lookup',
      description: 'Looks up',
      inputSchema: { type: 'object' },
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 1))
        return 'found'
      },
    })
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            delay: fc.integer({ min: 0, max: 8 }),
            tools: fc.boolean(),
            refuse: fc.boolean(),
            viaRunSession: fc.boolean(),
          }),
          { minLength: 2, maxLength: 6 },
        ),
        async (runs) => {
          const store = createMemorySessionStore()
          const session = { store, id: 's' }
          const started = runs.map((run, index) => {
            const reply = async () => {
              await new Promise((resolve) => setTimeout(resolve, run.delay))
              return run.tools
                ? { toolCalls: [{ id: `r${index}`, name: 'lookup', input: {} }] }
                : { text: `done ${index}` }
            }
            const turns: ScriptedTurn[] = run.tools ? [reply, { text: `done ${index}` }] : [reply]
            const agent = defineAgent({ model: createScriptedModel(turns), tools: [lookup] })
            const request = {
              session,
              prompt: `run ${index}`,
              concurrency: run.refuse ? ('refuse' as const) : ('queue' as const),
            }
            const going = run.viaRunSession ? runSession(agent, request) : agent.run(request)
            return going.then(
              () => true,
              (error: unknown) => {
                expect(run.refuse && SessionBusyError.isInstance(error)).toBe(true)
                return false
              },
            )
          })
          const ran = await Promise.all(started)
          const messages = (await store.read('s')).messages.map((entry) => entry.message)
          let at = 0
          const order: number[] = []
          while (at < messages.length) {
            expect(messages[at]!.role).toBe('user')
            const index = Number(String(messages[at]!.content).replace('run ', ''))
            order.push(index)
            const length = runs[index]!.tools ? 4 : 2
            const block = messages.slice(at, at + length)
            expect(block.at(-1)).toMatchObject({ role: 'assistant', content: `done ${index}` })
            for (const message of block.slice(1)) expect(message.role).not.toBe('user')
            at += length
          }
          expect([...order].sort((x, y) => x - y)).toEqual(runs.flatMap((_, i) => (ran[i] ? [i] : [])))
          expect(ran[0]).toBe(true)
        },
      ),
      { numRuns: 40 },
    )
  })
})
