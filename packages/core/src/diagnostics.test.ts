import { describe, expect, it } from 'vitest'
import { childContext, createOperationContext } from './context.js'
import { createDiagnostics, MemoryDiagnosticSink, silentDiagnostics, spanOutcomeOf } from './diagnostics.js'
import { AbortedError, InvalidInputError, TimeoutError } from './errors/errors.js'

describe('diagnostic spans', () => {
  it('emit exactly one start and one end event with the same span id, the outcome and the duration', () => {
    const memory = new MemoryDiagnosticSink()
    let clock = 100
    const diagnostics = createDiagnostics({ sink: memory.sink, now: () => clock })
    const span = diagnostics.span('tool-call', { toolId: 'search' })
    clock = 130
    span.end('ok', { bytes: 3 })
    span.end('error')
    span.fail(new Error('late'))
    expect(span.ended).toBe(true)
    expect(memory.events.map((e) => e.kind)).toEqual(['tool-call-start', 'tool-call-end'])
    const [start, end] = memory.events
    expect(start?.spanId).toBe(span.id)
    expect(end?.spanId).toBe(span.id)
    expect(start?.data).toEqual({ toolId: 'search' })
    expect(end?.data).toEqual({ bytes: 3, outcome: 'ok', durationMs: 30 })
    expect(start?.parentSpanId).toBeUndefined()
  })

  it('nest through span.diagnostics: parallel children under one scope path keep their own parents', () => {
    const memory = new MemoryDiagnosticSink()
    const context = createOperationContext({ diagnostics: memory.sink })
    const run = context.diagnostics.span('run')
    const turn = run.diagnostics.span('turn')
    const a = turn.diagnostics.span('tool-call', { toolId: 'a' })
    const b = turn.diagnostics.span('tool-call', { toolId: 'b' })
    a.diagnostics.emit('tool-progress')
    b.end('ok')
    a.end('ok')
    turn.end('ok')
    run.end('ok')
    const byKind = (kind: string) => memory.events.filter((e) => e.kind === kind)
    expect(byKind('tool-call-start').map((e) => e.parentSpanId)).toEqual([turn.id, turn.id])
    expect(byKind('tool-call-start').map((e) => e.scope)).toEqual([
      ['run', 'turn'],
      ['run', 'turn'],
    ])
    expect(a.id).not.toBe(b.id)
    expect(byKind('tool-progress')[0]).toMatchObject({
      parentSpanId: a.id,
      scope: ['run', 'turn', 'tool-call'],
    })
    expect(byKind('turn-start')[0]?.parentSpanId).toBe(run.id)
    // a child context of a span's diagnostics stays inside the span
    const inner = childContext({ ...context, diagnostics: turn.diagnostics }, 'retrieval')
    inner.diagnostics.emit('read')
    expect(byKind('read')[0]).toMatchObject({ parentSpanId: turn.id, scope: ['run', 'turn', 'retrieval'] })
  })

  it('fail() derives the outcome and records the error code and message', () => {
    const memory = new MemoryDiagnosticSink()
    const diagnostics = createDiagnostics({ sink: memory.sink, now: () => 1_000 })
    diagnostics.span('a').fail(new AbortedError('stopped'))
    diagnostics.span('b').fail(new TimeoutError('slow'))
    diagnostics.span('c').fail(new InvalidInputError('bad'))
    diagnostics.span('d').fail('a string')
    expect(memory.events.filter((e) => e.kind.endsWith('-end')).map((e) => e.data)).toEqual([
      { errorCode: 'aborted', errorMessage: 'stopped', outcome: 'aborted', durationMs: 0 },
      { errorCode: 'timeout', errorMessage: 'slow', outcome: 'timeout', durationMs: 0 },
      { errorCode: 'invalid-input', errorMessage: 'bad', outcome: 'error', durationMs: 0 },
      { errorMessage: 'a string', outcome: 'error', durationMs: 0 },
    ])
    expect(memory.events.filter((e) => e.kind.endsWith('-end')).map((e) => e.level)).toEqual([
      'warn',
      'warn',
      'error',
      'error',
    ])
  })

  it('cost nothing when diagnostics are disabled', () => {
    const span = silentDiagnostics.span('run')
    expect(span.id).toBe('')
    span.end('ok')
    expect(span.ended).toBe(true)
    expect(span.diagnostics.enabled).toBe(false)
  })

  it('spanOutcomeOf maps cancellation and time limits, also from another copy of core', () => {
    expect(spanOutcomeOf(new AbortedError('x'))).toBe('aborted')
    expect(spanOutcomeOf({ code: 'timeout' })).toBe('timeout')
    expect(spanOutcomeOf(new Error('x'))).toBe('error')
    expect(spanOutcomeOf(undefined)).toBe('error')
  })

  it('a context refuses a diagnostics object without span()', () => {
    const legacy = { scope: [], enabled: true, emit() {}, child() {} }
    expect(() => createOperationContext({ diagnostics: legacy as never })).toThrow(InvalidInputError)
  })
})
