/**
 * Compaction with MockGPT as the summarizer (the official `openai` client through the OpenAI adapter, over
 * real HTTP on loopback): older turns folded into one summary, the last turns verbatim, the summary
 * recorded so it is not redone and folded forward (not nested), a failed or empty summary leaving the
 * session exactly as it was; and a property test against a reference split of the history.
 */
import type { ChatMessage, ModelRequest } from '@agent-core/core'
import { createDiagnostics, MemoryDiagnosticSink } from '@agent-core/core'
import { createScriptedModel, defineAgent } from '@agent-core/kits/loop'
import { defineModelBinding, ModelCalls } from '@agent-core/kits/models'
import { createOpenAIChatModel } from '@agent-core/kits/openai'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import {
  CompactionError,
  compactSession,
  createMemorySessionStore,
  runSession,
  type SessionEvent,
  SUMMARY_PREFIX,
  sessionView,
} from './index.js'
import { historyUnits } from './window.js'

const servers: MockGPTServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function mockSummarizer(script: NonNullable<Parameters<typeof startMockGPTServer>[0]>['script']) {
  const server = await startMockGPTServer({ apiKey: 'sk-test', script })
  servers.push(server)
  const model = createOpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: server.baseURL })
  return { server, model }
}

const filler = 'and a long sentence that pads this message to a realistic size for a chat turn in a test'
function turns(from: number, count: number): ChatMessage[] {
  return Array.from({ length: count }, (_, k) => [
    { role: 'user' as const, content: `Question ${from + k} ${filler}` },
    { role: 'assistant' as const, content: `Answer ${from + k} ${filler}` },
  ]).flat()
}

/** An agent whose model answers "ok" and records what it read. */
function recordingAgent() {
  const seen: ModelRequest[] = []
  const reply = (request: ModelRequest) => {
    seen.push(request)
    return { text: `ok ${seen.length}` }
  }
  const model = createScriptedModel(Array.from({ length: 10 }, () => reply))
  return { agent: defineAgent({ model }), seen }
}

describe('compaction through MockGPT', () => {
  it('folds older turns into one summary, keeps the last turns verbatim, records it and shows it in events and diagnostics', async () => {
    const { server, model } = await mockSummarizer([{ reply: { type: 'text', text: 'SUMMARY ONE' } }])
    const store = createMemorySessionStore()
    const session = { store, id: 'chat' }
    await store.append('chat', { messages: turns(1, 8) })
    const { agent, seen } = recordingAgent()
    const events: SessionEvent[] = []
    const sink = new MemoryDiagnosticSink()
    const result = await runSession(
      agent,
      {
        session,
        prompt: 'Next question',
        compaction: { summarizer: model, maxTokens: 400, keepTurns: 2 },
        onEvent: (event) => events.push(event),
      },
      { diagnostics: createDiagnostics({ sink: sink.sink }) },
    )
    expect(result.session.compaction?.status).toBe('compacted')
    // the model read the summary, then the last two turns verbatim, then the prompt
    const read = seen[0]!.messages
    expect(read[0]).toEqual({ role: 'system', content: `${SUMMARY_PREFIX}SUMMARY ONE` })
    expect(read.slice(1, 5)).toEqual(turns(7, 2))
    expect(read[5]).toEqual({ role: 'user', content: 'Next question' })
    // the summarizer read the four older turns, and no earlier summary
    expect(server.mock.requests).toHaveLength(1)
    const asked = JSON.stringify(server.mock.requests[0]!.body)
    for (let k = 1; k <= 6; k++) expect(asked).toContain(`Question ${k} `)
    expect(asked).not.toContain('Question 7 ')
    expect(asked).not.toContain('Earlier summary')
    // the session keeps every message; the compaction is recorded in its state
    const snapshot = await store.read('chat')
    expect(snapshot.messages).toHaveLength(18)
    expect(snapshot.state?.compaction).toMatchObject({ summary: 'SUMMARY ONE', throughSeq: 12, folded: 12 })
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining([
        'compaction-start',
        'compaction-done',
        'run-start',
        'run-done',
        'session-saved',
      ]),
    )
    expect(events.findIndex((event) => event.type === 'compaction-done')).toBeLessThan(
      events.findIndex((event) => event.type === 'run-start'),
    )
    expect(sink.kinds().filter((kind) => kind.startsWith('session-compaction'))).toEqual([
      'session-compaction-start',
      'session-compaction-end',
    ])
  })

  it('is not redone while under the budget, and folds the earlier summary forward instead of nesting it', async () => {
    const { server, model } = await mockSummarizer([
      { reply: { type: 'text', text: 'SUMMARY ONE' } },
      { reply: { type: 'text', text: 'SUMMARY TWO' } },
    ])
    const store = createMemorySessionStore()
    const session = { store, id: 'chat' }
    await store.append('chat', { messages: turns(1, 8) })
    const { agent, seen } = recordingAgent()
    const compaction = { summarizer: model, maxTokens: 400, keepTurns: 2 }
    await runSession(agent, { session, prompt: 'Q7', compaction })
    const second = await runSession(agent, { session, prompt: 'Q8', compaction })
    expect(second.session.compaction?.status).toBe('not-needed')
    expect(server.mock.requests).toHaveLength(1)
    await store.append('chat', { messages: turns(9, 6) })
    const third = await runSession(agent, { session, prompt: 'Q13', compaction })
    expect(third.session.compaction?.status).toBe('compacted')
    expect(server.mock.requests).toHaveLength(2)
    const asked = JSON.stringify(server.mock.requests[1]!.body)
    expect(asked).toContain('Earlier summary:\\nSUMMARY ONE')
    expect(asked).not.toContain('Question 1 ') // folded already: only through the summary
    const read = seen[2]!.messages
    const summaries = read.filter((m) => m.role === 'system' && m.content.startsWith(SUMMARY_PREFIX))
    expect(summaries).toEqual([{ role: 'system', content: `${SUMMARY_PREFIX}SUMMARY TWO` }])
    const state = (await store.read('chat')).state
    expect(state?.compaction?.folded).toBeGreaterThan(12)
  })

  it('leaves the session exactly as it was when the summarizer fails or answers nothing', async () => {
    const { model } = await mockSummarizer([
      { reply: { type: 'error', status: 500, message: 'the summarizer is down' } },
      { reply: { type: 'text', text: '   ' } },
    ])
    const store = createMemorySessionStore()
    await store.append('chat', { messages: turns(1, 6) })
    const before = await store.read('chat')
    const failed = await compactSession({ store, id: 'chat' }, { summarizer: model, maxTokens: 100 })
    expect(failed.status).toBe('failed')
    const error = failed.status === 'failed' ? failed.error : undefined
    expect(CompactionError.isInstance(error)).toBe(true)
    expect(error?.details).toMatchObject({ reason: 'summarizer-failed', sessionId: 'chat' })
    expect(error?.cause).toBeDefined()
    expect(await store.read('chat')).toEqual(before)
    const empty = await compactSession({ store, id: 'chat' }, { summarizer: model, maxTokens: 100 })
    expect(empty.status === 'failed' && empty.error.details.reason).toBe('empty-summary')
    expect(await store.read('chat')).toEqual(before)
  })

  it('a failed compaction in a session run: the run goes on with the whole history and reports the error', async () => {
    const { model } = await mockSummarizer([{ reply: { type: 'error', status: 500 } }])
    const store = createMemorySessionStore()
    await store.append('chat', { messages: turns(1, 6) })
    const { agent, seen } = recordingAgent()
    const events: SessionEvent[] = []
    const result = await runSession(agent, {
      session: { store, id: 'chat' },
      prompt: 'Next',
      compaction: { summarizer: model, maxTokens: 100 },
      onEvent: (event) => events.push(event),
    })
    expect(result.reason).toBe('final')
    expect(result.session.compaction?.status).toBe('failed')
    expect(events.some((event) => event.type === 'compaction-failed')).toBe(true)
    expect(seen[0]!.messages).toHaveLength(13)
    const snapshot = await store.read('chat')
    expect(snapshot.messages).toHaveLength(14)
    expect(snapshot.state?.compaction).toBeUndefined()
  })

  it('takes a ModelCalls binding as the summarizer', async () => {
    const { model } = await mockSummarizer([{ reply: { type: 'text', text: 'BOUND SUMMARY' } }])
    const models = new ModelCalls([
      defineModelBinding({
        id: 'summarize',
        identity: 'gpt-4o-mini',
        invoke: (request: ModelRequest, context) => model.generate(request, context),
      }),
    ])
    const store = createMemorySessionStore()
    await store.append('chat', { messages: turns(1, 4) })
    const outcome = await compactSession(
      { store, id: 'chat' },
      { summarizer: { models, modelId: 'summarize', timeoutMs: 10_000 }, maxTokens: 50, keepTurns: 1 },
    )
    expect(outcome.status === 'compacted' && outcome.compaction.summary).toBe('BOUND SUMMARY')
  })
})

// ---- property: the last turns verbatim, nothing lost when the summarizer fails ----

const historyArbitrary = fc
  .array(
    fc.record({
      calls: fc.integer({ min: 0, max: 2 }),
      system: fc.boolean(),
      text: fc.string({ maxLength: 30 }),
    }),
    { minLength: 1, maxLength: 12 },
  )
  .map((specs) => {
    const messages: ChatMessage[] = []
    specs.forEach((spec, turn) => {
      if (spec.system) messages.push({ role: 'system', content: `rule ${turn}` })
      messages.push({ role: 'user', content: `q${turn} ${spec.text}` })
      if (spec.calls > 0) {
        const ids = Array.from({ length: spec.calls }, (_, k) => `c${turn}_${k}`)
        messages.push({
          role: 'assistant',
          content: '',
          toolCalls: ids.map((id) => ({ id, name: 'look', arguments: '{}' })),
        })
        for (const id of ids) messages.push({ role: 'tool', toolCallId: id, content: `r ${id}` })
      }
      messages.push({ role: 'assistant', content: `a${turn}` })
    })
    return messages
  })

describe('compaction properties', () => {
  it('keeps the last turns verbatim, stands one summary for the rest, never orphans a tool result, and loses nothing when the summarizer fails', async () => {
    await fc.assert(
      fc.asyncProperty(
        historyArbitrary,
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom('ok', 'throws', 'empty'),
        fc.integer({ min: 0, max: 2 }),
        async (history, keepTurns, behaviour, rounds) => {
          const store = createMemorySessionStore()
          await store.append('s', { messages: history })
          const summarizer = async () => {
            if (behaviour === 'throws') throw new Error('down')
            return behaviour === 'empty' ? '' : `summary ${Math.random()}`
          }
          for (let round = 0; round <= rounds; round++) {
            const before = await store.read('s')
            const outcome = await compactSession({ store, id: 's' }, { summarizer, maxTokens: 1, keepTurns })
            const after = await store.read('s')
            // the messages themselves never change
            expect(after.messages).toEqual(before.messages)
            if (outcome.status !== 'compacted') {
              expect(after).toEqual(before)
              if (behaviour !== 'ok')
                expect(outcome.status === 'failed' || outcome.status === 'nothing-to-fold').toBe(true)
              continue
            }
            expect(behaviour).toBe('ok')
            const view = sessionView(after)
            // reference: the non-system messages from the keepTurns-th last user message on
            const nonSystem = history.filter((m) => m.role !== 'system')
            const userAt = nonSystem.flatMap((m, i) => (m.role === 'user' ? [i] : []))
            const expectedTail = nonSystem.slice(userAt[Math.max(0, userAt.length - keepTurns)]!)
            const viewNonSystem = view.filter((m) => m.role !== 'system')
            expect(viewNonSystem).toEqual(expectedTail)
            // every system message of the history survives, and exactly one summary is shown
            for (const m of history.filter((m) => m.role === 'system')) expect(view).toContainEqual(m)
            expect(
              view.filter((m) => m.role === 'system' && m.content.startsWith(SUMMARY_PREFIX)),
            ).toHaveLength(1)
            // no tool result without its call
            for (const unit of historyUnits(view)) {
              const first = view[unit.indexes[0]!]!
              if (first.role === 'tool') throw new Error('orphaned tool result')
            }
          }
        },
      ),
      { numRuns: 120 },
    )
  })
})
