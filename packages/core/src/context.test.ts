import { describe, expect, it } from 'vitest'
import { AttemptBudget } from './attempt-budget.js'
import { childContext, createOperationContext } from './context.js'
import {
  consoleDiagnosticSink,
  consoleDiagnosticSinkFromEnv,
  createDiagnostics,
  MemoryDiagnosticSink,
  silentDiagnostics,
} from './diagnostics.js'
import { InvalidInputError } from './errors/errors.js'

describe('OperationContext', () => {
  it('fills defaults: a live signal, silent diagnostics, Date.now', () => {
    const context = createOperationContext({ app: { user: 'u1' } })
    expect(context.signal.aborted).toBe(false)
    expect(context.app).toEqual({ user: 'u1' })
    expect(typeof context.now()).toBe('number')
    expect(context.attemptBudget).toBeUndefined()
  })

  it('accepts a sink function, a budget and a clock', () => {
    const memory = new MemoryDiagnosticSink()
    const budget = new AttemptBudget(1)
    const context = createOperationContext({ diagnostics: memory.sink, attemptBudget: budget, now: () => 42 })
    context.diagnostics.emit('thing-happened', { a: 1 })
    expect(memory.events).toEqual([
      { scope: [], kind: 'thing-happened', level: 'info', atMs: 42, data: { a: 1 } },
    ])
    expect(context.attemptBudget).toBe(budget)
  })

  it('returns a complete context unchanged', () => {
    const complete = createOperationContext({
      app: 1,
      signal: new AbortController().signal,
      diagnostics: silentDiagnostics,
      now: Date.now,
    })
    expect(createOperationContext(complete)).toBe(complete)
  })

  it.each([
    [{ signal: {} }, 'signal'],
    [{ now: 5 }, 'now'],
    [{ attemptBudget: 3 }, 'attemptBudget'],
    [{ diagnostics: 'loud' }, 'diagnostics'],
  ])('rejects a wrong %o with a typed error naming the field', (init, field) => {
    expect(() => createOperationContext(init as never)).toThrow(InvalidInputError)
    expect(() => createOperationContext(init as never)).toThrow(field)
  })

  it('rejects a non-object', () => {
    expect(() => createOperationContext(null as never)).toThrow(InvalidInputError)
  })

  it('child scopes carry the scope path; everything else is shared', () => {
    const memory = new MemoryDiagnosticSink()
    const root = createOperationContext({ diagnostics: memory.sink })
    const loop = childContext(root, 'loop')
    const tools = childContext(loop, 'tools')
    tools.diagnostics.emit('tool-start', {}, 'debug')
    root.diagnostics.emit('run-start')
    expect(memory.events.map((e) => e.scope)).toEqual([['loop', 'tools'], []])
    expect(memory.kinds(['loop'])).toEqual(['tool-start'])
    expect(memory.ofKind('run-start')).toHaveLength(1)
    expect(tools.signal).toBe(root.signal)
  })
})

describe('diagnostics', () => {
  it('is silent by default and enabled by AGENT_CORE_DEBUG', () => {
    const previous = process.env.AGENT_CORE_DEBUG
    try {
      delete process.env.AGENT_CORE_DEBUG
      expect(consoleDiagnosticSinkFromEnv()).toBeUndefined()
      expect(createDiagnostics().enabled).toBe(false)
      process.env.AGENT_CORE_DEBUG = '0'
      expect(consoleDiagnosticSinkFromEnv()).toBeUndefined()
      process.env.AGENT_CORE_DEBUG = 'durable'
      expect(typeof consoleDiagnosticSinkFromEnv()).toBe('function')
      expect(createDiagnostics().enabled).toBe(true)
    } finally {
      if (previous === undefined) delete process.env.AGENT_CORE_DEBUG
      else process.env.AGENT_CORE_DEBUG = previous
    }
  })

  it('the console sink prints only the scopes its filter names', () => {
    const lines: unknown[] = []
    const original = console.error
    console.error = (...args: unknown[]) => lines.push(args.join(' '))
    try {
      const d = createDiagnostics({ sink: consoleDiagnosticSink('durable'), now: () => 0 })
      d.child('loop').emit('turn-start')
      d.child('durable').child('t1').emit('checkpoint-saved', { version: 2 })
      d.child('durable-x').emit('other')
    } finally {
      console.error = original
    }
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('durable/t1 checkpoint-saved {"version":2}')
  })

  it('a throwing sink never changes control flow and is reported once', () => {
    const reports: unknown[] = []
    const original = console.error
    console.error = (...args: unknown[]) => reports.push(args)
    try {
      const d = createDiagnostics({
        sink: () => {
          throw new Error('sink down')
        },
      })
      d.emit('a')
      d.emit('b')
    } finally {
      console.error = original
    }
    expect(reports).toHaveLength(1)
  })
})

describe('default signal', () => {
  it('is never aborted and not shared between contexts, so listeners of concurrent runs never pile up on one signal', () => {
    const a = createOperationContext()
    const b = createOperationContext()
    expect(a.signal.aborted).toBe(false)
    expect(a.signal).not.toBe(b.signal)
  })
})
