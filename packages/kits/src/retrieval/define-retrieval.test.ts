import {
  AbortedError,
  BudgetExhaustedError,
  InvalidDefinitionError,
  InvalidOutputError,
  MemoryDiagnosticSink,
  type OperationContext,
  RejectedThenableError,
} from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import {
  type AsyncRetrievalDefinition,
  DuplicateRetrievalError,
  defineRetrieval,
  type RetrievalDefinition,
  RetrievalLedger,
} from './index.js'

interface Doc {
  readonly id: string
  readonly text: string
}
interface App {
  readonly ledger: RetrievalLedger
  readonly notes: string[]
}

const docs: readonly Doc[] = [
  { id: 'doc-1', text: 'deploy with cf push' },
  { id: 'doc-2', text: 'preview locally' },
  { id: 'doc-3', text: 'deploy checklist' },
]

/** A definition whose every hook records itself (and the ledger state where it matters) in `log`. */
function recordedDefinition(
  log: string[],
  overrides: Partial<RetrievalDefinition<string, Doc, App>> = {},
): RetrievalDefinition<string, Doc, App> {
  return {
    id: 'docs',
    assertInput(input) {
      log.push('assertInput')
      if (typeof input !== 'string') throw new TypeError('a query string')
    },
    key(query) {
      log.push('key')
      return query.toLowerCase()
    },
    ledger(context) {
      log.push('ledger')
      return context.app.ledger
    },
    authorize(_query, context) {
      log.push(`authorize (queryCount ${context.app.ledger.queryCount})`)
    },
    execute(query, context) {
      const ledger = context.app.ledger
      log.push(`execute (queryCount ${ledger.queryCount}, seen ${ledger.has('docs', query.toLowerCase())})`)
      return docs.filter((doc) => doc.text.includes(query))
    },
    assertResult(result) {
      log.push(`assertResult (${result.length})`)
    },
    effects: [
      {
        id: 'observe',
        apply(submission, context) {
          log.push(`effect observe (${submission.effects.join(',')})`)
          for (const source of submission.sources)
            context.app.notes.push(`${source.sourceId}=${source.material.id}`)
        },
      },
      {
        id: 'cite',
        apply(submission) {
          log.push(`effect cite (${submission.effects.join(',')})`)
        },
      },
    ],
    ...overrides,
  }
}

function appWith(limit: number): App {
  return { ledger: new RetrievalLedger({ limit }), notes: [] }
}

describe('defineRetrieval: order of a run', () => {
  it('runs input, key, ledger, authorize, reservation, read, result check, then effects in order', () => {
    const log: string[] = []
    const app = appWith(2)
    const receipt = defineRetrieval(recordedDefinition(log)).run('deploy', { app, now: () => 1234 })
    expect(log).toEqual([
      'assertInput',
      'key',
      'ledger',
      'authorize (queryCount 0)',
      'execute (queryCount 1, seen true)',
      'assertResult (2)',
      'effect observe ()',
      'effect cite (observe)',
    ])
    expect(receipt).toEqual({
      retrievalId: 'docs',
      key: 'deploy',
      startedAtMs: 1234,
      queryCount: 1,
      sources: [
        { sourceId: 'S1', retrievalId: 'docs', material: docs[0] },
        { sourceId: 'S2', retrievalId: 'docs', material: docs[2] },
      ],
      effects: ['observe', 'cite'],
    })
    // The source id is the request's reference; the material keeps its own entity id.
    expect(receipt.sources[0]?.material).toBe(docs[0])
    expect(app.notes).toEqual(['S1=doc-1', 'S2=doc-3'])
  })

  it('stays synchronous', () => {
    const result = defineRetrieval(recordedDefinition([])).run('deploy', { app: appWith(1) })
    expect(typeof (result as { then?: unknown }).then).toBe('undefined')
    expect(Object.isFrozen(result)).toBe(true)
  })

  it('deduplication comes before the budget', () => {
    const log: string[] = []
    const app = appWith(1)
    const retrieval = defineRetrieval(recordedDefinition(log))
    retrieval.run('deploy', { app })
    log.length = 0
    expect(() => retrieval.run('DEPLOY', { app })).toThrow(DuplicateRetrievalError)
    expect(log).toEqual(['assertInput', 'key', 'ledger'])
    expect(() => retrieval.run('preview', { app })).toThrow(BudgetExhaustedError)
    expect(app.ledger.queryCount).toBe(1)
  })

  it('a quota of 0 starts no read, and no authorization', () => {
    const log: string[] = []
    const app = appWith(0)
    let error: unknown
    try {
      defineRetrieval(recordedDefinition(log)).run('deploy', { app })
    } catch (caught) {
      error = caught
    }
    expect(BudgetExhaustedError.isInstance(error)).toBe(true)
    expect((error as BudgetExhaustedError).details).toEqual({ limit: 0, used: 0, label: 'docs' })
    expect(log).toEqual(['assertInput', 'key', 'ledger'])
    expect(app.ledger.seen()).toEqual([])
  })

  it('a rejected authorization reserves nothing', () => {
    const log: string[] = []
    const app = appWith(1)
    let allow = false
    const retrieval = defineRetrieval(
      recordedDefinition(log, {
        authorize() {
          log.push('authorize')
          if (!allow) throw new Error('not your documents')
        },
      }),
    )
    expect(() => retrieval.run('deploy', { app })).toThrow('not your documents')
    expect(app.ledger.queryCount).toBe(0)
    expect(app.ledger.has('docs', 'deploy')).toBe(false)
    expect(log).not.toContain('execute (queryCount 1, seen true)')
    allow = true
    expect(retrieval.run('deploy', { app }).queryCount).toBe(1)
  })

  it('a failed read keeps the seen key and the query', () => {
    const app = appWith(5)
    let fail = true
    const retrieval = defineRetrieval(
      recordedDefinition([], {
        execute() {
          if (fail) throw new Error('index offline')
          return []
        },
      }),
    )
    expect(() => retrieval.run('deploy', { app })).toThrow('index offline')
    expect(app.ledger.queryCount).toBe(1)
    expect(app.ledger.has('docs', 'deploy')).toBe(true)
    fail = false
    expect(() => retrieval.run('deploy', { app })).toThrow(DuplicateRetrievalError)
    expect(app.ledger.queryCount).toBe(1)
  })

  it('checks cancellation again after binding the sources, before submitting evidence', () => {
    const log: string[] = []
    const controller = new AbortController()
    const app = appWith(2)
    const retrieval = defineRetrieval(
      recordedDefinition(log, {
        assertResult() {
          log.push('assertResult')
          controller.abort()
        },
      }),
    )
    let error: unknown
    try {
      retrieval.run('deploy', { app, signal: controller.signal })
    } catch (caught) {
      error = caught
    }
    expect(AbortedError.isInstance(error)).toBe(true)
    expect((error as AbortedError).details).toMatchObject({
      point: 'before submitting the evidence of retrieval "docs"',
      effectsApplied: [],
    })
    expect(log.at(-1)).toBe('assertResult')
    // The read happened: its query and its source ids stay used.
    expect(app.ledger.queryCount).toBe(1)
    expect(app.ledger.sourceCount).toBe(2)
  })

  it('a cancellation between effects stops the rest; applied effects are not rolled back', () => {
    const log: string[] = []
    const controller = new AbortController()
    const app = appWith(1)
    const definition = recordedDefinition(log)
    const [observe, cite] = definition.effects ?? []
    const retrieval = defineRetrieval({
      ...definition,
      effects: [
        {
          id: 'observe',
          apply(submission, context) {
            observe?.apply(submission, context)
            controller.abort()
          },
        },
        cite!,
      ],
    })
    let error: unknown
    try {
      retrieval.run('deploy', { app, signal: controller.signal })
    } catch (caught) {
      error = caught
    }
    expect((error as AbortedError).details).toMatchObject({ effectsApplied: ['observe'] })
    expect(log.filter((entry) => entry.startsWith('effect'))).toEqual(['effect observe ()'])
    expect(app.notes).toEqual(['S1=doc-1', 'S2=doc-3'])
  })

  it('a failing effect stops the rest and its error passes through unchanged', () => {
    const log: string[] = []
    const failure = new Error('citation store down')
    const definition = recordedDefinition(log)
    const retrieval = defineRetrieval({
      ...definition,
      effects: [
        {
          id: 'observe',
          apply() {
            log.push('observe')
            throw failure
          },
        },
        { id: 'cite', apply: () => void log.push('cite') },
      ],
    })
    expect(() => retrieval.run('deploy', { app: appWith(1) })).toThrow(failure)
    expect(log.slice(-1)).toEqual(['observe'])
  })

  it('a cancelled signal at the start consumes nothing', () => {
    const log: string[] = []
    const controller = new AbortController()
    controller.abort()
    const app = appWith(1)
    expect(() =>
      defineRetrieval(recordedDefinition(log)).run('deploy', { app, signal: controller.signal }),
    ).toThrow(AbortedError)
    expect(log).toEqual([])
    expect(app.ledger.queryCount).toBe(0)
  })

  it('refuses an accidental Promise from every synchronous hook, consuming its rejection', () => {
    const rejecting = () => Promise.reject(new Error('async by mistake'))
    for (const hook of ['assertInput', 'key', 'ledger', 'authorize', 'execute', 'assertResult'] as const) {
      const retrieval = defineRetrieval(recordedDefinition([], { [hook]: rejecting } as never))
      expect(() => retrieval.run('deploy', { app: appWith(3) })).toThrow(RejectedThenableError)
    }
    const asyncEffect = defineRetrieval(
      recordedDefinition([], { effects: [{ id: 'late', apply: rejecting as never }] }),
    )
    expect(() => asyncEffect.run('deploy', { app: appWith(3) })).toThrow(RejectedThenableError)
  })

  it('refuses assertions and hooks that answer values where nothing is expected', () => {
    const predicate = defineRetrieval(recordedDefinition([], { assertInput: (() => true) as never }))
    expect(() => predicate.run('deploy', { app: appWith(1) })).toThrow(/predicate/)
    const noArray = defineRetrieval(recordedDefinition([], { execute: (() => 'hits') as never }))
    expect(() => noArray.run('deploy', { app: appWith(1) })).toThrow(InvalidOutputError)
    const badKey = defineRetrieval(recordedDefinition([], { key: (() => 7) as never }))
    expect(() => badKey.run('deploy', { app: appWith(1) })).toThrow(/key must return a string/)
    const badLedger = defineRetrieval(recordedDefinition([], { ledger: (() => ({ limit: 1 })) as never }))
    expect(() => badLedger.run('deploy', { app: appWith(1) })).toThrow(/RetrievalLedger/)
  })

  it('declares rejection reasons centrally in errors.duplicate and errors.budget', () => {
    class AlreadyRead extends Error {}
    class OutOfQueries extends Error {}
    const events: unknown[] = []
    const retrieval = defineRetrieval(
      recordedDefinition([], {
        errors: {
          duplicate: (event) => {
            events.push(event)
            return new AlreadyRead(event.key)
          },
          budget: (event) => {
            events.push(event)
            return new OutOfQueries(`${event.queryCount}/${event.limit}`)
          },
        },
      }),
    )
    const app = appWith(1)
    retrieval.run('deploy', { app })
    expect(() => retrieval.run('deploy', { app })).toThrow(AlreadyRead)
    expect(() => retrieval.run('preview', { app })).toThrow(OutOfQueries)
    expect(events).toEqual([
      { retrievalId: 'docs', key: 'deploy', input: 'deploy', limit: 1, queryCount: 1 },
      { retrievalId: 'docs', key: 'preview', input: 'preview', limit: 1, queryCount: 1 },
    ])
  })

  it('allocates source ids across the retrievals of one request, and keys per retrieval', () => {
    const app = appWith(5)
    const a = defineRetrieval(recordedDefinition([]))
    const b = defineRetrieval({ ...recordedDefinition([]), id: 'other' })
    expect(a.run('deploy', { app }).sources.map((s) => s.sourceId)).toEqual(['S1', 'S2'])
    expect(b.run('deploy', { app }).sources.map((s) => s.sourceId)).toEqual(['S3', 'S4'])
    expect(app.ledger.seen()).toEqual([
      { retrievalId: 'docs', key: 'deploy' },
      { retrievalId: 'other', key: 'deploy' },
    ])
  })

  it('binds no request state: one definition serves many requests, and a held ledger is refused', () => {
    const retrieval = defineRetrieval(recordedDefinition([]))
    const first = appWith(1)
    const second = appWith(1)
    retrieval.run('deploy', { app: first })
    expect(retrieval.run('deploy', { app: second }).sources[0]?.sourceId).toBe('S1')
    expect(() =>
      defineRetrieval({ ...recordedDefinition([]), cache: new RetrievalLedger({ limit: 1 }) } as never),
    ).toThrow(/binds no request state/)
  })

  it('refuses malformed definitions; assertInput is required', () => {
    const valid = recordedDefinition([])
    const { assertInput: _omitted, ...withoutAssert } = valid
    expect(() => defineRetrieval(withoutAssert as never)).toThrow(
      /assertInput must be a function \(it is required/,
    )
    expect(() => defineRetrieval({ ...valid, id: '' })).toThrow(InvalidDefinitionError)
    expect(() => defineRetrieval({ ...valid, execute: 1 } as never)).toThrow(InvalidDefinitionError)
    expect(() => defineRetrieval({ ...valid, mode: 'parallel' } as never)).toThrow(/mode/)
    expect(() => defineRetrieval({ ...valid, errors: { budget: 'x' } } as never)).toThrow(/errors.budget/)
    expect(() =>
      defineRetrieval({
        ...valid,
        effects: [
          { id: 'a', apply: () => {} },
          { id: 'a', apply: () => {} },
        ],
      }),
    ).toThrow(/already registered/)
    expect(() => defineRetrieval({ ...valid, effects: [{ id: 'a' }] } as never)).toThrow(/apply/)
  })

  it('opens one retrieval span per run that read its input, whatever the outcome', () => {
    const sink = new MemoryDiagnosticSink()
    const app = appWith(1)
    const retrieval = defineRetrieval(recordedDefinition([]))
    retrieval.run('deploy', { app, diagnostics: sink.sink })
    expect(() => retrieval.run('deploy', { app, diagnostics: sink.sink })).toThrow()
    expect(sink.kinds()).toEqual(['retrieval-start', 'retrieval-end', 'retrieval-start', 'retrieval-end'])
    expect(sink.events[1]?.data).toMatchObject({ outcome: 'ok', queryCount: 1, sources: 2 })
    expect(sink.events[3]?.data).toMatchObject({ outcome: 'error', errorCode: 'retrieval-duplicate' })
  })
})

describe('defineRetrieval: mode async', () => {
  function asyncDefinition(
    log: string[],
    overrides: Partial<AsyncRetrievalDefinition<string, Doc, App>> = {},
  ): AsyncRetrievalDefinition<string, Doc, App> {
    const sync = recordedDefinition(log)
    return {
      ...sync,
      mode: 'async',
      authorize: async (query, context) => {
        await Promise.resolve()
        sync.authorize?.(query, context)
      },
      execute: async (query, context) => {
        await Promise.resolve()
        return sync.execute(query, context)
      },
      effects: (sync.effects ?? []).map((effect) => ({
        id: effect.id,
        apply: async (submission, context: OperationContext<App>) => {
          await Promise.resolve()
          effect.apply(submission, context)
        },
      })),
      ...overrides,
    }
  }

  it('keeps the same order and returns a Promise of the receipt', async () => {
    const log: string[] = []
    const app = appWith(1)
    const pending = defineRetrieval(asyncDefinition(log)).run('deploy', { app })
    expect(pending).toBeInstanceOf(Promise)
    const receipt = await pending
    expect(receipt.effects).toEqual(['observe', 'cite'])
    expect(log).toEqual([
      'assertInput',
      'key',
      'ledger',
      'authorize (queryCount 0)',
      'execute (queryCount 1, seen true)',
      'assertResult (2)',
      'effect observe ()',
      'effect cite (observe)',
    ])
  })

  it('re-checks deduplication and budget atomically after an asynchronous authorization', async () => {
    const app = appWith(1)
    const retrieval = defineRetrieval(asyncDefinition([]))
    const results = await Promise.allSettled([
      retrieval.run('deploy', { app }),
      retrieval.run('deploy', { app }),
      retrieval.run('preview', { app }),
    ])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected'])
    expect(DuplicateRetrievalError.isInstance((results[1] as PromiseRejectedResult).reason)).toBe(true)
    expect(BudgetExhaustedError.isInstance((results[2] as PromiseRejectedResult).reason)).toBe(true)
    expect(app.ledger.queryCount).toBe(1)
  })

  it('a cancellation interrupts a hung read; its late rejection is consumed', async () => {
    let rejectLate: (error: Error) => void = () => {}
    let reading: () => void = () => {}
    const started = new Promise<void>((resolve) => {
      reading = resolve
    })
    const controller = new AbortController()
    const app = appWith(1)
    const retrieval = defineRetrieval(
      asyncDefinition([], {
        execute: () =>
          new Promise<readonly Doc[]>((_resolve, reject) => {
            rejectLate = reject
            reading()
          }),
      }),
    )
    const pending = retrieval.run('deploy', { app, signal: controller.signal })
    await started
    controller.abort()
    await expect(pending).rejects.toSatisfy((error) => AbortedError.isInstance(error))
    rejectLate(new Error('late'))
    expect(app.ledger.queryCount).toBe(1)
  })

  it('a cancellation during an effect stops the rest and names the effects applied', async () => {
    const controller = new AbortController()
    const log: string[] = []
    const retrieval = defineRetrieval(
      asyncDefinition(log, {
        effects: [
          { id: 'first', apply: async () => void log.push('first') },
          {
            id: 'slow',
            apply: () => {
              controller.abort()
              return new Promise<void>(() => {})
            },
          },
          { id: 'never', apply: async () => void log.push('never') },
        ],
      }),
    )
    const error = await retrieval
      .run('deploy', { app: appWith(1), signal: controller.signal })
      .catch((e: unknown) => e)
    expect(AbortedError.isInstance(error)).toBe(true)
    expect((error as AbortedError).details).toMatchObject({ effectsApplied: ['first'] })
    expect(log).not.toContain('never')
  })
})
