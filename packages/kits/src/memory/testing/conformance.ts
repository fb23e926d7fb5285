import type { ChatMessage } from '@agent-core/core'
import { defineAgent, defineExternalTool } from '@agent-core/kits/loop'
import { type FactStore, runSession, SessionConflictError, type SessionStore } from '@agent-core/kits/memory'
import { assert } from './assert.js'

/**
 * The loop's test kit, imported when the first runner test runs: the memory kit loads the loop itself, but
 * its testing subpath is one module more that importing this suite need not load (docs/design/cold-import.md).
 */
const loadScriptedModel = async () => (await import('@agent-core/kits/loop/testing')).createScriptedModel

/**
 * What the store factory of {@link describeSessionStoreConformance} hands to each test.
 * @example
 * ```ts
 * import { createMemorySessionStore } from '@agent-core/kits/memory'
 * import type { SessionStoreHarness } from '@agent-core/kits/memory/testing'
 * const harness: SessionStoreHarness = { store: createMemorySessionStore() }
 * ```
 */
export interface SessionStoreHarness {
  /** The store under test, over empty storage. */
  readonly store: SessionStore & FactStore
  /**
   * Another store over the same storage, as another process sees it (a second connection to the same
   * file or database). Omit it for stores that cannot be shared; the tests then use `store` twice.
   */
  openPeer?(): Promise<SessionStore & FactStore>
  /** Releases what the harness opened (peers included). */
  close?(): Promise<void>
}

/**
 * The test functions of a runner: `describe(name, body)` and `it(name, body)` as vitest, `node:test`,
 * jest and mocha provide them.
 * @example
 * ```ts no-run
 * import { suite, test } from 'node:test'
 * import type { SessionConformanceRunner } from '@agent-core/kits/memory/testing'
 * const runner: SessionConformanceRunner = { describe: suite, it: test }
 * ```
 */
export interface SessionConformanceRunner {
  readonly describe: (name: string, body: () => void) => unknown
  readonly it: (name: string, body: () => Promise<void>) => unknown
}

/**
 * Options of {@link describeSessionStoreConformance}.
 * @example
 * ```ts no-run
 * import { describe, it } from 'node:test'
 * import { createMemorySessionStore } from '@agent-core/kits/memory'
 * import type { SessionStoreConformanceOptions } from '@agent-core/kits/memory/testing'
 * const options: SessionStoreConformanceOptions = {
 *   describe,
 *   it,
 *   name: 'memory store',
 *   open: async () => ({ store: createMemorySessionStore() }),
 * }
 * ```
 */
export interface SessionStoreConformanceOptions extends SessionConformanceRunner {
  /** Names the suite: its tests are grouped under `<name>: session store conformance`. */
  readonly name: string
  /** Opens the store under test over empty storage; called once per test, closed after it. */
  open(): Promise<SessionStoreHarness>
}

type Test = (harness: SessionStoreHarness) => Promise<void>

const user = (content: string): ChatMessage => ({ role: 'user', content })
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content })

/** Messages of every shape the loop writes, to check they come back as they went in. */
const EVERY_SHAPE: readonly ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is this?' },
      { type: 'image', url: 'https://example.com/a.png' },
    ],
  },
  {
    role: 'assistant',
    content: '',
    thinking: 'Look it up.',
    toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":"é 🚀 \\u0000"}' }],
  },
  { role: 'tool', toolCallId: 'call_1', content: 'not found', isError: true },
  { role: 'assistant', content: 'I could not find it. "Quotes", \\ and ünïcode survive.' },
]

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.equal((error as { code?: unknown }).code, code)
    return true
  })
}

function contractTests(): Record<string, Test> {
  return {
    'an unknown session reads as empty at revision 0': async ({ store }) => {
      assert.deepEqual(await store.read('nobody'), {
        sessionId: 'nobody',
        revision: 0,
        messages: [],
        state: undefined,
      })
    },
    'append stores messages of every shape and reads them back in order with growing seqs': async ({
      store,
    }) => {
      const write = await store.append('s', { messages: EVERY_SHAPE })
      assert.deepEqual(write, { revision: 1, firstSeq: 1, lastSeq: EVERY_SHAPE.length })
      const snapshot = await store.read('s')
      assert.equal(snapshot.revision, 1)
      assert.deepEqual(
        snapshot.messages.map((entry) => entry.message),
        EVERY_SHAPE,
      )
      assert.deepEqual(
        snapshot.messages.map((entry) => entry.seq),
        EVERY_SHAPE.map((_, index) => index + 1),
      )
    },
    'every write bumps the revision by exactly one; an append of no messages changes only the state': async ({
      store,
    }) => {
      await store.append('s', { messages: [user('a')] })
      const write = await store.append('s', { messages: [], state: { usage: { tokens: 5, revision: 2 } } })
      assert.deepEqual(write, { revision: 2, firstSeq: 2, lastSeq: 1 })
      const snapshot = await store.read('s')
      assert.equal(snapshot.messages.length, 1)
      assert.deepEqual(snapshot.state, { usage: { tokens: 5, revision: 2 } })
    },
    'the state is kept when a write leaves it out and removed by null': async ({ store }) => {
      const state = { compaction: { summary: 'S "quoted" é', throughSeq: 1, folded: 1, atMs: 17 } }
      await store.append('s', { messages: [user('a')], state })
      await store.append('s', { messages: [assistant('b')] })
      assert.deepEqual((await store.read('s')).state, state)
      await store.append('s', { messages: [], state: null })
      assert.equal((await store.read('s')).state, undefined)
    },
    'a write at the wrong revision is refused with SessionConflictError and stores nothing': async ({
      store,
    }) => {
      await store.append('s', { messages: [user('a')], expectedRevision: 0 })
      const before = await store.read('s')
      await rejectsWith(
        store.append('s', { messages: [user('b')], expectedRevision: 0, state: null }),
        'session-conflict',
      )
      await rejectsWith(store.pop('s', { expectedRevision: 5 }), 'session-conflict')
      await rejectsWith(store.clear('s', { expectedRevision: 0 }), 'session-conflict')
      await rejectsWith(
        store.append('fresh', { messages: [user('b')], expectedRevision: 1 }),
        'session-conflict',
      )
      assert.deepEqual(await store.read('s'), before)
      assert.equal((await store.read('fresh')).revision, 0)
      try {
        await store.append('s', { messages: [], expectedRevision: 7 })
        assert.fail('expected a conflict')
      } catch (error) {
        assert.ok(SessionConflictError.isInstance(error))
        assert.deepEqual(error.details, { sessionId: 's', expectedRevision: 7, revision: 1 })
      }
    },
    'read with afterSeq returns only later messages': async ({ store }) => {
      await store.append('s', { messages: [user('1'), assistant('2'), user('3')] })
      const tail = await store.read('s', { afterSeq: 1 })
      assert.deepEqual(
        tail.messages.map((entry) => entry.seq),
        [2, 3],
      )
      assert.equal(tail.revision, 1)
    },
    'pop removes the last message; its seq is never reused; an empty session pops nothing': async ({
      store,
    }) => {
      assert.deepEqual(await store.pop('s'), { revision: 0, removed: undefined })
      await store.append('s', { messages: [user('1'), assistant('2')] })
      const popped = await store.pop('s', { expectedRevision: 1 })
      assert.deepEqual(popped, { revision: 2, removed: { seq: 2, message: assistant('2') } })
      const write = await store.append('s', { messages: [assistant('3')] })
      assert.equal(write.firstSeq, 3)
      await store.pop('s')
      await store.pop('s')
      const empty = await store.read('s')
      assert.deepEqual(empty.messages, [])
      assert.deepEqual(await store.pop('s'), { revision: empty.revision, removed: undefined })
    },
    'clear removes messages and state, bumps the revision and never reuses seqs': async ({ store }) => {
      await store.append('s', {
        messages: [user('1'), assistant('2')],
        state: { usage: { tokens: 1, revision: 1 } },
      })
      assert.deepEqual(await store.clear('s', { expectedRevision: 1 }), { revision: 2 })
      assert.deepEqual(await store.read('s'), { sessionId: 's', revision: 2, messages: [], state: undefined })
      assert.equal((await store.append('s', { messages: [user('3')] })).firstSeq, 3)
    },
    'sessions are separate': async ({ store }) => {
      await store.append('a', { messages: [user('for a')] })
      await store.append('b', { messages: [user('for b'), assistant('b2')] })
      await store.clear('a')
      assert.equal((await store.read('b')).messages.length, 2)
      assert.equal((await store.read('a')).messages.length, 0)
    },
    'what a caller passed or got can be mutated without changing what is stored': async ({ store }) => {
      const messages = [{ role: 'user', content: 'original' }] as { role: 'user'; content: string }[]
      await store.append('s', { messages })
      messages[0]!.content = 'mutated'
      const first = await store.read('s')
      ;(first.messages[0]!.message as { content: string }).content = 'mutated too'
      assert.equal((await store.read('s')).messages[0]!.message.content, 'original')
    },
    'bad input is refused with InvalidInputError and writes nothing': async ({ store }) => {
      await rejectsWith(store.read(''), 'invalid-input')
      await rejectsWith(
        store.append('s', { messages: [{ role: 'robot', content: 'x' } as never] }),
        'invalid-input',
      )
      await rejectsWith(store.append('s', { messages: 'hi' as never }), 'invalid-input')
      await rejectsWith(store.append('s', { messages: [], expectedRevision: -1 }), 'invalid-input')
      await rejectsWith(store.append('s', { messages: [], expectedRevision: Number.NaN }), 'invalid-input')
      await rejectsWith(store.append('s', { messages: [], extra: 1 } as never), 'invalid-input')
      await rejectsWith(store.read('s', { afterSeq: 1.5 }), 'invalid-input')
      await rejectsWith(store.remember('u', 'k', 42 as never), 'invalid-input')
      assert.equal((await store.read('s')).revision, 0)
    },
  }
}

function concurrencyTests(): Record<string, Test> {
  return {
    'of concurrent writes at one revision exactly one wins, through two connections': async (harness) => {
      const peer = harness.openPeer ? await harness.openPeer() : harness.store
      await harness.store.append('s', { messages: [user('start')] })
      const stores = [harness.store, peer]
      const attempts = await Promise.allSettled(
        Array.from({ length: 8 }, (_, index) =>
          stores[index % 2]!.append('s', {
            messages: [assistant(`w${index}`), user(`w${index}`)],
            expectedRevision: 1,
          }),
        ),
      )
      const won = attempts.filter((attempt) => attempt.status === 'fulfilled')
      assert.equal(won.length, 1)
      for (const attempt of attempts)
        if (attempt.status === 'rejected')
          assert.equal((attempt.reason as { code?: unknown }).code, 'session-conflict')
      const snapshot = await peer.read('s')
      assert.equal(snapshot.revision, 2)
      assert.equal(snapshot.messages.length, 3)
    },
    'concurrent unchecked appends never interleave: each write is one contiguous block': async (harness) => {
      const peer = harness.openPeer ? await harness.openPeer() : harness.store
      const stores = [harness.store, peer]
      const writes = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          stores[index % 2]!.append('s', {
            messages: Array.from({ length: 3 }, (_, k) => user(`${index}:${k}`)),
          }),
        ),
      )
      const snapshot = await harness.store.read('s')
      assert.equal(snapshot.revision, 10)
      assert.equal(snapshot.messages.length, 30)
      for (let block = 0; block < 10; block++) {
        const texts = snapshot.messages
          .slice(block * 3, block * 3 + 3)
          .map((entry) => String(entry.message.content))
        const owner = texts[0]!.split(':')[0]
        assert.deepEqual(
          texts,
          [0, 1, 2].map((k) => `${owner}:${k}`),
        )
      }
      assert.deepEqual(
        writes.map((write) => write.lastSeq - write.firstSeq),
        writes.map(() => 2),
      )
    },
  }
}

function factTests(): Record<string, Test> {
  return {
    'facts: remember, recall, replace, list by key, forget, per scope': async ({ store }) => {
      assert.equal(await store.recall('user:1', 'city'), undefined)
      const fact = await store.remember('user:1', 'city', 'Lyon')
      assert.equal(fact.key, 'city')
      assert.equal(fact.value, 'Lyon')
      assert.equal(typeof fact.updatedAtMs, 'number')
      await store.remember('user:1', 'city', 'Paris "é"')
      await store.remember('user:1', 'b-name', 'Ada')
      await store.remember('user:2', 'city', 'Oslo')
      assert.equal((await store.recall('user:1', 'city'))?.value, 'Paris "é"')
      assert.deepEqual(
        (await store.recallAll('user:1')).map((f) => [f.key, f.value]),
        [
          ['b-name', 'Ada'],
          ['city', 'Paris "é"'],
        ],
      )
      assert.equal(await store.forget('user:1', 'city'), true)
      assert.equal(await store.forget('user:1', 'city'), false)
      assert.deepEqual(
        (await store.recallAll('user:1')).map((f) => f.key),
        ['b-name'],
      )
      assert.equal((await store.recall('user:2', 'city'))?.value, 'Oslo')
    },
    'facts written by one connection are read by another': async (harness) => {
      const peer = harness.openPeer ? await harness.openPeer() : harness.store
      await harness.store.remember('user:1', 'tz', 'Europe/Paris')
      assert.equal((await peer.recall('user:1', 'tz'))?.value, 'Europe/Paris')
    },
  }
}

function runnerTests(): Record<string, Test> {
  return {
    'session runs through the store: the second run reads the first, and the session holds both': async ({
      store,
    }) => {
      const createScriptedModel = await loadScriptedModel()
      const model = createScriptedModel([
        { text: 'Hi Ada.' },
        (request) => ({ text: `You said ${request.messages.length - 1} things before.` }),
      ])
      const agent = defineAgent({ model })
      const session = { store, id: 'chat' }
      await runSession(agent, { session, prompt: 'I am Ada.' })
      const second = await runSession(agent, { session, prompt: 'Who am I?' })
      assert.equal(second.text, 'You said 2 things before.')
      assert.deepEqual(
        (await store.read('chat')).messages.map((entry) => entry.message.content),
        ['I am Ada.', 'Hi Ada.', 'Who am I?', 'You said 2 things before.'],
      )
    },
    'agent.run({ session }) runs on the store too: it reads the history and appends its turn once': async ({
      store,
    }) => {
      const createScriptedModel = await loadScriptedModel()
      const model = createScriptedModel([
        { text: 'Hi Ada.' },
        (request) => ({ text: `You said ${request.messages.length - 1} things before.` }),
      ])
      const agent = defineAgent({ model })
      const session = { store, id: 'loop-chat' }
      await agent.run({ session, prompt: 'I am Ada.' })
      const second = await agent.run({ session, prompt: 'Who am I?' })
      assert.equal(second.text, 'You said 2 things before.')
      const stored = await store.read('loop-chat')
      assert.deepEqual(
        stored.messages.map((entry) => [entry.seq, entry.message.content]),
        [
          [1, 'I am Ada.'],
          [2, 'Hi Ada.'],
          [3, 'Who am I?'],
          [4, 'You said 2 things before.'],
        ],
      )
      assert.equal(stored.revision, 2)
    },
    'a suspended run appends nothing; its resume appends the whole turn once; a second resume is refused':
      async ({ store }) => {
        const approve = defineExternalTool({
          id: 'pay',
          description: 'Pays',
          inputSchema: { type: 'object', properties: { amount: { type: 'number' } } },
        })
        const createScriptedModel = await loadScriptedModel()
        const model = createScriptedModel([
          { toolCalls: [{ id: 'c1', name: 'pay', input: { amount: 5 } }] },
          { text: 'Paid.' },
        ])
        const agent = defineAgent({ model, tools: [approve] })
        const session = { store, id: 'pay' }
        const first = await runSession(agent, { session, prompt: 'Pay 5', defer: true })
        assert.equal(first.reason, 'suspended')
        assert.equal((await store.read('pay')).messages.length, 0)
        const done = await runSession(agent, {
          session,
          resume: true,
          outcomes: { c1: { type: 'result', toolCallId: 'c1', output: 'ok' } },
        })
        assert.equal(done.reason, 'final')
        const roles = (await store.read('pay')).messages.map((entry) => entry.message.role)
        assert.deepEqual(roles, ['user', 'assistant', 'tool', 'assistant'])
        await rejectsWith(runSession(agent, { session, resume: true, outcomes: {} }), 'invalid-state')
        assert.equal((await store.read('pay')).messages.length, 4)
      },
  }
}

/**
 * Registers, with any test runner's `describe` and `it`, the tests a session store must pass to back
 * `runSession`: the `read`/`append`/`pop`/`clear` contract (revisions, `seq`s never reused, atomic
 * compare-and-set writes refused with `SessionConflictError`, states kept as JSON), writes that never
 * interleave across two connections, the fact store, and real session runs through the store. It imports
 * no test framework; assertions use `node:assert/strict`.
 * @example
 * ```ts no-run
 * import { describe, it } from 'node:test'
 * import { createMemorySessionStore } from '@agent-core/kits/memory'
 * import { describeSessionStoreConformance } from '@agent-core/kits/memory/testing'
 *
 * describeSessionStoreConformance({
 *   describe,
 *   it,
 *   name: 'memory store',
 *   open: async () => ({ store: createMemorySessionStore() }),
 * })
 * ```
 */
export function describeSessionStoreConformance(options: SessionStoreConformanceOptions): void {
  assert.ok(typeof options === 'object' && options !== null, 'pass { describe, it, name, open }')
  const { describe, it, name, open } = options
  assert.equal(typeof describe, 'function', 'options.describe must be the test runner describe')
  assert.equal(typeof it, 'function', 'options.it must be the test runner it (or test)')
  assert.ok(typeof name === 'string' && name.length > 0, 'options.name must name the store')
  assert.equal(typeof open, 'function', 'options.open must open the store under test')
  const register = (tests: Record<string, Test>) => {
    for (const [title, body] of Object.entries(tests)) {
      it(title, async () => {
        const harness = await open()
        assert.ok(
          harness && typeof harness.store === 'object',
          'open() must resolve to { store, openPeer?, close? }',
        )
        try {
          await body(harness)
        } finally {
          await harness.close?.()
        }
      })
    }
  }
  describe(`${name}: session store conformance`, () => {
    describe('contract', () => register(contractTests()))
    describe('concurrent writes', () => register(concurrencyTests()))
    describe('facts', () => register(factTests()))
    describe('session runs through the store', () => register(runnerTests()))
  })
}
