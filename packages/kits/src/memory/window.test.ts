import type { ChatMessage } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { defaultTokenEstimate, selectWindow } from './index.js'

const sys = (content: string): ChatMessage => ({ role: 'system', content })
const user = (content: string): ChatMessage => ({ role: 'user', content })
const said = (content: string): ChatMessage => ({ role: 'assistant', content })
const calls = (...ids: string[]): ChatMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: ids.map((id) => ({ id, name: 'look', arguments: '{}' })),
})
const result = (id: string): ChatMessage => ({ role: 'tool', toolCallId: id, content: `result ${id}` })

describe('selectWindow', () => {
  it('keeps the system messages and the newest messages that fit', () => {
    const history = [sys('rules'), user('1'), said('2'), user('3'), said('4')]
    expect(selectWindow(history, { maxMessages: 2 }).messages).toEqual([sys('rules'), user('3'), said('4')])
    expect(selectWindow(history, { maxMessages: 2 }).dropped).toBe(2)
  })

  it('keeps a call and its results together, or drops them together', () => {
    const history = [user('q'), calls('a', 'b'), result('a'), result('b'), said('done')]
    expect(selectWindow(history, { maxMessages: 3 }).messages).toEqual([said('done')])
    expect(selectWindow(history, { maxMessages: 4 }).messages).toEqual(history.slice(1))
  })

  it('always keeps the newest turn, and says so when it is over the budget', () => {
    const window = selectWindow([user('x'.repeat(400))], { maxTokens: 10 })
    expect(window.messages).toHaveLength(1)
    expect(window.overBudget).toBe(true)
  })

  it('counts tokens with the estimator port', () => {
    const history = [user('a'), said('b'), user('c')]
    const window = selectWindow(history, { maxTokens: 2, estimate: (messages) => messages.length })
    expect(window.messages).toEqual([said('b'), user('c')])
    expect(window.tokens).toBe(2)
  })

  it('refuses bad input with InvalidInputError, and a bad estimate with InvalidOutputError', () => {
    expect(() => selectWindow('x' as never, { maxMessages: 1 })).toThrow(
      expect.objectContaining({ code: 'invalid-input' }),
    )
    expect(() => selectWindow([], undefined as never)).toThrow(
      expect.objectContaining({ code: 'invalid-input' }),
    )
    for (const maxMessages of [0, -1, 1.5, Number.NaN, '3'])
      expect(() => selectWindow([], { maxMessages } as never)).toThrow(
        expect.objectContaining({ code: 'invalid-input' }),
      )
    expect(() => selectWindow([], { maxMessage: 3 } as never)).toThrow(/not a known field/)
    expect(() => selectWindow([user('a')], { maxTokens: 5, estimate: () => Number.NaN })).toThrow(
      expect.objectContaining({ code: 'invalid-output' }),
    )
  })
})

// ---- properties against a reference model ----

interface TurnSpec {
  readonly system: boolean
  readonly calls: number
  readonly text: string
}

const historyArbitrary = fc
  .array(
    fc.record({
      system: fc.boolean(),
      calls: fc.integer({ min: 0, max: 3 }),
      text: fc.string({ maxLength: 40 }),
    }),
    { maxLength: 14 },
  )
  .map((specs: TurnSpec[]) => {
    const messages: ChatMessage[] = []
    specs.forEach((spec, turn) => {
      if (spec.system) messages.push(sys(`rule ${turn}`))
      messages.push(user(`q${turn} ${spec.text}`))
      if (spec.calls > 0) {
        const ids = Array.from({ length: spec.calls }, (_, k) => `c${turn}_${k}`)
        messages.push(calls(...ids))
        for (const id of ids) messages.push(result(id))
      }
      messages.push(said(`a${turn} ${spec.text}`))
    })
    return messages
  })

/**
 * The reference: among every suffix of the non-system messages that starts at a message that is not a
 * tool result, the longest one that fits (with all the system messages), or the shortest one when none does.
 */
function reference(history: ChatMessage[], maxMessages: number | undefined, maxTokens: number | undefined) {
  const systems = history.filter((m) => m.role === 'system')
  const rest = history.filter((m) => m.role !== 'system')
  const starts = rest.flatMap((m, i) => (m.role === 'tool' ? [] : [i]))
  const fits = (tail: ChatMessage[]) =>
    (maxMessages === undefined || tail.length <= maxMessages) &&
    (maxTokens === undefined ||
      [...systems, ...tail].reduce((sum, m) => sum + defaultTokenEstimate([m]), 0) <= maxTokens)
  for (const start of starts) if (fits(rest.slice(start))) return rest.slice(start)
  return starts.length === 0 ? [] : rest.slice(starts[starts.length - 1])
}

describe('window properties', () => {
  it('never orphans a tool result, keeps every system message, and matches the reference suffix', () => {
    fc.assert(
      fc.property(
        historyArbitrary,
        fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
        (history, maxMessages, maxTokens) => {
          const window = selectWindow(history, { maxMessages, maxTokens })
          const shown = window.messages
          // a subsequence of the history, in order
          let at = 0
          for (const message of shown) {
            while (at < history.length && history[at] !== message) at++
            expect(at).toBeLessThan(history.length)
            at++
          }
          // every system message kept
          expect(shown.filter((m) => m.role === 'system')).toEqual(history.filter((m) => m.role === 'system'))
          // every tool result shown comes after the call that asked for it
          const offered = new Set<string>()
          for (const message of shown) {
            if (message.role === 'assistant') for (const call of message.toolCalls ?? []) offered.add(call.id)
            if (message.role === 'tool') expect(offered.has(message.toolCallId)).toBe(true)
          }
          // and every call shown has all its results shown
          const answered = new Set(shown.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])))
          for (const id of offered) expect(answered.has(id)).toBe(true)
          // the rest is the reference suffix
          expect(shown.filter((m) => m.role !== 'system')).toEqual(reference(history, maxMessages, maxTokens))
          expect(window.dropped).toBe(history.length - shown.length)
        },
      ),
      { numRuns: 400 },
    )
  })
})
