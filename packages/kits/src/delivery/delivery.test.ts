import {
  AbortedError,
  createOperationContext,
  DuplicateIdError,
  InvalidDefinitionError,
  InvalidIdError,
  InvalidInputError,
  InvalidOutputError,
  MemoryDiagnosticSink,
  type OperationContext,
  RejectedThenableError,
  TimeoutError,
} from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  type BeforeStageEvent,
  type DeliveryDecision,
  type DeliveryDefinition,
  type DeliveryStage,
  defineDelivery,
} from './delivery.js'

function caught(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected the call to throw')
}

describe('defineDelivery: stages', () => {
  it('interleaves beforeStage with each handler and passes the state along', () => {
    const log: string[] = []
    const delivery = defineDelivery<string, string>({
      beforeStage: ({ stageId, state }) => {
        log.push(`before ${stageId}: ${state}`)
      },
      stages: [
        {
          id: 'trim',
          handle: (text) => {
            log.push('trim')
            return { type: 'continue', state: text.trim() }
          },
        },
        {
          id: 'shout',
          handle: (text) => {
            log.push('shout')
            return { type: 'continue', state: text.toUpperCase() }
          },
        },
        {
          id: 'send',
          handle: (text) => {
            log.push('send')
            return { type: 'complete', value: `> ${text}` }
          },
        },
      ],
    })
    expect(delivery.deliver('  hi ')).toEqual({ value: '> HI', stageId: 'send' })
    expect(log).toEqual([
      'before trim:   hi ',
      'trim',
      'before shout: hi',
      'shout',
      'before send: HI',
      'send',
    ])
  })

  it('stops at the first stage that completes', () => {
    const ran: string[] = []
    const delivery = defineDelivery<number, string>({
      stages: [
        {
          id: 'a',
          handle: (n) => {
            ran.push('a')
            return n > 0 ? { type: 'complete', value: 'positive' } : { type: 'continue', state: n }
          },
        },
        {
          id: 'b',
          handle: () => {
            ran.push('b')
            return { type: 'complete', value: 'other' }
          },
        },
      ],
    })
    expect(delivery.deliver(1)).toEqual({ value: 'positive', stageId: 'a' })
    expect(ran).toEqual(['a'])
  })

  it('supports a legitimate undefined final value', () => {
    const delivery = defineDelivery<string, string | undefined>({
      stages: [{ id: 'drop', handle: () => ({ type: 'complete', value: undefined }) }],
    })
    const result = delivery.deliver('x')
    expect(result).toEqual({ value: undefined, stageId: 'drop' })
    expect('value' in result).toBe(true)
    expect(Object.isFrozen(result)).toBe(true)
  })

  it.each([0, false, '', null, undefined, Number.NaN])('passes the falsy state %s on unchanged', (falsy) => {
    const seen: unknown[] = []
    const delivery = defineDelivery<unknown, unknown>({
      stages: [
        { id: 'set', handle: () => ({ type: 'continue', state: falsy }) },
        {
          id: 'end',
          handle: (state) => {
            seen.push(state)
            return { type: 'complete', value: state }
          },
        },
      ],
    })
    expect(Object.is(delivery.deliver('start').value, falsy)).toBe(true)
    expect(Object.is(seen[0], falsy)).toBe(true)
  })

  it('exposes the stages as given, in order', () => {
    const stage = { id: 'only', handle: () => ({ type: 'complete', value: 1 }) as const }
    const delivery = defineDelivery<unknown, number>({ stages: [stage] })
    expect(delivery.stages).toEqual([stage])
    expect(delivery.stages[0]).toBe(stage)
    expect(Object.isFrozen(delivery.stages)).toBe(true)
  })

  it('property: the result is the first completing stage, and stages run in order up to it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer(), { nil: undefined }), { minLength: 1, maxLength: 8 }),
        (plan) => {
          // plan[i] === undefined: stage i continues with state + 1; otherwise it completes with plan[i]
          const withEnd = [...plan.slice(0, -1), plan[plan.length - 1] ?? 0]
          const ran: string[] = []
          const delivery = defineDelivery<number, number>({
            stages: withEnd.map((completeWith, i) => ({
              id: `s${i}`,
              handle: (state: number): DeliveryDecision<number, number> => {
                ran.push(`s${i}`)
                return completeWith === undefined
                  ? { type: 'continue', state: state + 1 }
                  : { type: 'complete', value: completeWith + state }
              },
            })),
          })
          const first = withEnd.findIndex((v) => v !== undefined)
          expect(delivery.deliver(0)).toEqual({
            value: (withEnd[first] as number) + first,
            stageId: `s${first}`,
          })
          expect(ran).toEqual(withEnd.slice(0, first + 1).map((_, i) => `s${i}`))
        },
      ),
    )
  })
})

describe('defineDelivery: context', () => {
  it('passes one complete OperationContext, identical for every hook', () => {
    const contexts: OperationContext<{ user: string }>[] = []
    const delivery = defineDelivery<number, number, { user: string }>({
      beforeStage: (_event, context) => {
        contexts.push(context)
      },
      stages: [
        {
          id: 'a',
          handle: (n, context) => {
            contexts.push(context)
            return { type: 'continue', state: n }
          },
        },
        {
          id: 'b',
          handle: (n, context) => {
            contexts.push(context)
            return { type: 'complete', value: n }
          },
        },
      ],
    })
    const signal = new AbortController().signal
    delivery.deliver(1, { signal, app: { user: 'u1' } })
    expect(contexts).toHaveLength(4)
    for (const context of contexts) expect(context).toBe(contexts[0])
    expect(contexts[0]?.signal).toBe(signal)
    expect(contexts[0]?.app).toEqual({ user: 'u1' })
    expect(typeof contexts[0]?.diagnostics.emit).toBe('function')
  })

  it('passes a complete context through unchanged and works without any context', () => {
    let received: unknown
    const delivery = defineDelivery<number, number>({
      stages: [
        {
          id: 'a',
          handle: (n, context) => {
            received = context
            return { type: 'complete', value: n }
          },
        },
      ],
    })
    const context = createOperationContext({ signal: new AbortController().signal, now: () => 0, app: 'app' })
    delivery.deliver(1, context)
    expect(received).toBe(context)
    expect(delivery.deliver(2)).toEqual({ value: 2, stageId: 'a' })
  })

  it('reports each stage as a stage span (start and end, same span id) under the delivery scope', () => {
    const sink = new MemoryDiagnosticSink()
    const delivery = defineDelivery<number, number>({
      stages: [
        { id: 'a', handle: (n) => ({ type: 'continue', state: n }) },
        { id: 'b', handle: (n) => ({ type: 'complete', value: n }) },
      ],
    })
    delivery.deliver(1, { diagnostics: sink.sink, now: () => 0 })
    expect(sink.events.map((e) => [e.scope, e.kind, e.data])).toEqual([
      [['delivery'], 'stage-start', { stageId: 'a' }],
      [['delivery'], 'stage-end', { stageId: 'a', decision: 'continue', outcome: 'ok', durationMs: 0 }],
      [['delivery'], 'stage-start', { stageId: 'b' }],
      [['delivery'], 'stage-end', { stageId: 'b', decision: 'complete', outcome: 'ok', durationMs: 0 }],
    ])
    const [startA, endA, startB, endB] = sink.events
    expect(startA?.spanId).toMatch(/^[0-9a-z]+-[0-9a-z]+$/)
    expect(endA?.spanId).toBe(startA?.spanId)
    expect(endB?.spanId).toBe(startB?.spanId)
    expect(startB?.spanId).not.toBe(startA?.spanId)
  })

  it('ends the stage span when a hook, the handler or a check throws', () => {
    const cases: [string, () => DeliveryStage<number, number>[], 'error' | 'aborted'][] = [
      [
        'handler throws',
        () => [
          {
            id: 'a',
            handle: () => {
              throw new Error('boom')
            },
          },
        ],
        'error',
      ],
      ['bad decision', () => [{ id: 'a', handle: () => ({ type: 'continue', state: 1 }) }], 'error'],
    ]
    for (const [label, stages, outcome] of cases) {
      const sink = new MemoryDiagnosticSink()
      expect(
        () => defineDelivery<number, number>({ stages: stages() }).deliver(1, { diagnostics: sink.sink }),
        label,
      ).toThrow()
      expect(sink.kinds(), label).toEqual(['stage-start', 'stage-end'])
      expect(sink.events[1]?.data.outcome, label).toBe(outcome)
      expect(sink.events[1]?.spanId, label).toBe(sink.events[0]?.spanId)
    }
    const controller = new AbortController()
    const sink = new MemoryDiagnosticSink()
    const delivery = defineDelivery<number, number>({
      beforeStage: () => controller.abort(),
      stages: [{ id: 'a', handle: (n) => ({ type: 'complete', value: n }) }],
    })
    expect(() => delivery.deliver(1, { diagnostics: sink.sink, signal: controller.signal })).toThrow(
      AbortedError,
    )
    expect(sink.kinds()).toEqual(['stage-start', 'stage-end'])
    expect(sink.events[1]?.data).toMatchObject({ stageId: 'a', outcome: 'aborted', errorCode: 'aborted' })
  })
})

describe('defineDelivery: class instances', () => {
  class Prefix implements DeliveryStage<string, string> {
    readonly #prefix: string
    constructor(
      readonly id: string,
      prefix: string,
    ) {
      this.#prefix = prefix
    }
    get prefix(): string {
      return this.#prefix
    }
    handle(text: string): DeliveryDecision<string, string> {
      return { type: 'continue', state: `${this.prefix}${text}` }
    }
  }
  class Audited implements DeliveryDefinition<string, string> {
    readonly seen: string[] = []
    readonly stages: readonly DeliveryStage<string, string>[] = [
      new Prefix('hello', 'hello '),
      { id: 'send', handle: (text) => ({ type: 'complete', value: text }) },
    ]
    beforeStage({ stageId }: BeforeStageEvent<string>): void {
      this.seen.push(stageId)
    }
  }

  it('keeps receivers, private fields and getters of the definition and its stages', () => {
    const definition = new Audited()
    expect(defineDelivery(definition).deliver('world')).toEqual({ value: 'hello world', stageId: 'send' })
    expect(definition.seen).toEqual(['hello', 'send'])
  })
})

describe('defineDelivery: cancellation', () => {
  const twoStages = (hooks: { onBefore?: (id: string) => void; onHandle?: (id: string) => void }) => {
    const ran: string[] = []
    const delivery = defineDelivery<number, number>({
      beforeStage: ({ stageId }) => {
        ran.push(`before ${stageId}`)
        hooks.onBefore?.(stageId)
      },
      stages: [
        {
          id: 'a',
          handle: (n) => {
            ran.push('handle a')
            hooks.onHandle?.('a')
            return { type: 'continue', state: n }
          },
        },
        {
          id: 'b',
          handle: (n) => {
            ran.push('handle b')
            hooks.onHandle?.('b')
            return { type: 'complete', value: n }
          },
        },
      ],
    })
    return { delivery, ran }
  }

  it('rejects an already aborted signal on entering the first stage, before any hook', () => {
    const controller = new AbortController()
    const reason = new Error('user left')
    controller.abort(reason)
    const { delivery, ran } = twoStages({})
    const error = caught(() => delivery.deliver(1, { signal: controller.signal }))
    expect(AbortedError.isInstance(error)).toBe(true)
    expect((error as AbortedError).details.point).toBe('entering delivery stage "a"')
    expect((error as AbortedError).cause).toBe(reason)
    expect(ran).toEqual([])
  })

  it('checks before the handler: an abort in beforeStage stops the handler from running', () => {
    const controller = new AbortController()
    const { delivery, ran } = twoStages({ onBefore: (id) => id === 'b' && controller.abort() })
    const error = caught(() => delivery.deliver(1, { signal: controller.signal }))
    expect((error as AbortedError).details.point).toBe('before delivery stage "b" handler')
    expect(ran).toEqual(['before a', 'handle a', 'before b'])
  })

  it('checks after the handler: an abort during the handler wins over its completion', () => {
    const controller = new AbortController()
    const { delivery, ran } = twoStages({ onHandle: (id) => id === 'b' && controller.abort() })
    const error = caught(() => delivery.deliver(1, { signal: controller.signal }))
    expect(AbortedError.isInstance(error)).toBe(true)
    expect((error as AbortedError).details.point).toBe('after delivery stage "b" handler')
    expect(ran).toEqual(['before a', 'handle a', 'before b', 'handle b'])
  })

  it('checks on entering the next stage: nothing of it runs after an abort between stages', () => {
    const controller = new AbortController()
    const { delivery, ran } = twoStages({})
    // A diagnostics sink runs synchronously after stage "a" ended: the only code between two stages.
    const sink = (event: { kind: string; data: Readonly<Record<string, unknown>> }) => {
      if (event.kind === 'stage-end' && event.data.stageId === 'a') controller.abort()
    }
    const error = caught(() => delivery.deliver(1, { signal: controller.signal, diagnostics: sink }))
    expect((error as AbortedError).details.point).toBe('entering delivery stage "b"')
    expect(ran).toEqual(['before a', 'handle a'])
  })

  it('passes a TimeoutError reason through unchanged', () => {
    const controller = new AbortController()
    const timeout = new TimeoutError('delivery did not finish within 5 ms.', { details: { timeoutMs: 5 } })
    controller.abort(timeout)
    const { delivery } = twoStages({})
    expect(caught(() => delivery.deliver(1, { signal: controller.signal }))).toBe(timeout)
  })

  it('property: an abort at any hook stops at the next checkpoint and nothing later runs', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.nat(), (count, pick) => {
        const hookCount = count * 2
        const abortAt = pick % hookCount
        const controller = new AbortController()
        let hook = 0
        const ran: number[] = []
        const touch = () => {
          ran.push(hook)
          if (hook++ === abortAt) controller.abort()
        }
        const delivery = defineDelivery<number, number>({
          beforeStage: () => {
            touch()
          },
          stages: Array.from({ length: count }, (_, i) => ({
            id: `s${i}`,
            handle: (n: number): DeliveryDecision<number, number> => {
              touch()
              return i === count - 1 ? { type: 'complete', value: n } : { type: 'continue', state: n + 1 }
            },
          })),
        })
        const error = caught(() => delivery.deliver(0, { signal: controller.signal }))
        const stage = Math.floor(abortAt / 2)
        const point =
          abortAt % 2 === 0
            ? `before delivery stage "s${stage}" handler`
            : `after delivery stage "s${stage}" handler`
        expect((error as AbortedError).details.point).toBe(point)
        expect(ran).toEqual(Array.from({ length: abortAt + 1 }, (_, i) => i))
      }),
    )
  })
})

describe('defineDelivery: bad input', () => {
  const build = (definition: unknown) => () =>
    defineDelivery(definition as DeliveryDefinition<unknown, unknown>)
  const ok = { id: 'ok', handle: () => ({ type: 'complete', value: 1 }) }
  const single = (handle: () => unknown) =>
    defineDelivery<unknown, unknown>({ stages: [{ id: 'only', handle } as DeliveryStage<unknown, unknown>] })

  it.each([undefined, null, 'stages', 3, Number.NaN, [ok]])('rejects the definition %s', (definition) => {
    expect(build(definition)).toThrow(InvalidDefinitionError)
    expect(build(definition)).toThrow(/Pass \{ stages: \[\.\.\.\], beforeStage\? \}/)
  })

  it.each([undefined, null, [], {}, 'a'])('rejects stages = %s', (stages) => {
    expect(build({ stages })).toThrow(InvalidDefinitionError)
    expect(build({ stages })).toThrow(/non-empty array/)
  })

  it.each([null, 5, 'stage'])('rejects a stage that is not an object: %s', (stage) => {
    expect(build({ stages: [ok, stage] })).toThrow(InvalidDefinitionError)
  })

  it.each([undefined, '', 0, Number.NaN])('rejects the stage id %s', (id) => {
    expect(build({ stages: [{ ...ok, id }] })).toThrow(InvalidIdError)
  })

  it('rejects duplicate stage ids', () => {
    expect(build({ stages: [ok, { ...ok }] })).toThrow(DuplicateIdError)
  })

  it.each([undefined, 'send', {}])('rejects handle = %s', (handle) => {
    expect(build({ stages: [{ id: 'x', handle }] })).toThrow(InvalidDefinitionError)
    expect(build({ stages: [{ id: 'x', handle }] })).toThrow(
      /handle must be a function, but got .*Give it a handle\(state, context\) method/,
    )
  })

  it.each([true, 'log', {}])('rejects beforeStage = %s', (beforeStage) => {
    expect(build({ stages: [ok], beforeStage })).toThrow(InvalidDefinitionError)
  })

  it.each([
    ['a string', 'context'],
    ['null', null],
    ['a number', Number.NaN],
    ['a bad signal', { signal: { aborted: 'no' } }],
    ['bad diagnostics', { diagnostics: 5 }],
    ['a bad clock', { now: 1 }],
  ])('rejects a context with %s', (_label, context) => {
    const delivery = defineDelivery<unknown, unknown>({ stages: [ok as DeliveryStage<unknown, unknown>] })
    expect(() => delivery.deliver(1, context as never)).toThrow(InvalidInputError)
  })

  it('rejects a handler that returns a Promise and consumes its rejection', async () => {
    const delivery = single(async () => {
      throw new Error('late')
    })
    expect(() => delivery.deliver(1)).toThrow(RejectedThenableError)
    expect(() => delivery.deliver(1)).toThrow(/delivery stage "only" handle returned a Promise/)
    await new Promise((resolve) => setTimeout(resolve, 0))
  })

  it('rejects a beforeStage that returns a Promise, before the handler runs', () => {
    let handled = 0
    const delivery = defineDelivery<unknown, unknown>({
      beforeStage: (async () => undefined) as never,
      stages: [
        {
          id: 'a',
          handle: () => {
            handled++
            return { type: 'complete', value: 1 }
          },
        },
      ],
    })
    expect(() => delivery.deliver(1)).toThrow(RejectedThenableError)
    expect(handled).toBe(0)
  })

  it.each([false, 0, 'ok', {}])('rejects a beforeStage that returns %s instead of nothing', (returned) => {
    const delivery = defineDelivery<unknown, unknown>({
      beforeStage: (() => returned) as never,
      stages: [ok as DeliveryStage<unknown, unknown>],
    })
    expect(() => delivery.deliver(1)).toThrow(InvalidOutputError)
    expect(() => delivery.deliver(1)).toThrow(/must return nothing/)
  })

  it.each([
    undefined,
    null,
    'complete',
    1,
    [],
    { type: 'done', value: 1 },
    { value: 1 },
    { type: undefined },
  ])('rejects the decision %o', (decision) => {
    expect(() => single(() => decision).deliver(1)).toThrow(InvalidOutputError)
    expect(() => single(() => decision).deliver(1)).toThrow(/Return \{ type: 'continue', state \}/)
  })

  it('rejects complete without a value field and continue without a state field', () => {
    expect(() => single(() => ({ type: 'complete' })).deliver(1)).toThrow(/value: undefined explicitly/)
    const delivery = defineDelivery<unknown, unknown>({
      stages: [
        { id: 'a', handle: () => ({ type: 'continue' }) as never },
        ok as DeliveryStage<unknown, unknown>,
      ],
    })
    expect(() => delivery.deliver(1)).toThrow(InvalidOutputError)
    expect(() => delivery.deliver(1)).toThrow(/without a state field/)
  })

  it('rejects a decision that carries the other payload too, which would be lost', () => {
    expect(() => single(() => ({ type: 'complete', value: 1, state: 2 })).deliver(1)).toThrow(
      /with a state field/,
    )
    const delivery = defineDelivery<unknown, unknown>({
      stages: [
        { id: 'a', handle: () => ({ type: 'continue', state: 1, value: 2 }) as never },
        ok as DeliveryStage<unknown, unknown>,
      ],
    })
    expect(() => delivery.deliver(1)).toThrow(InvalidOutputError)
    expect(() => delivery.deliver(1)).toThrow(/with a value field, which would be lost/)
  })

  it('rejects a last stage that continues', () => {
    const error = caught(() => single(() => ({ type: 'continue', state: 1 })).deliver(1))
    expect(InvalidOutputError.isInstance(error)).toBe(true)
    expect((error as InvalidOutputError).message).toMatch(/is the last stage/)
    expect((error as InvalidOutputError).details.id).toBe('only')
  })

  it('rejects a Promise smuggled in as the state or the final value', () => {
    expect(() => single(() => ({ type: 'complete', value: Promise.resolve(1) })).deliver(1)).toThrow(
      RejectedThenableError,
    )
    const delivery = defineDelivery<unknown, unknown>({
      stages: [
        { id: 'a', handle: () => ({ type: 'continue', state: { then: () => undefined } }) },
        ok as DeliveryStage<unknown, unknown>,
      ],
    })
    expect(() => delivery.deliver(1)).toThrow(RejectedThenableError)
  })

  it('lets an error thrown by a handler or by beforeStage propagate unchanged', () => {
    const boom = new Error('send failed')
    expect(() =>
      single(() => {
        throw boom
      }).deliver(1),
    ).toThrow(boom)
    const delivery = defineDelivery<unknown, unknown>({
      beforeStage: () => {
        throw boom
      },
      stages: [ok as DeliveryStage<unknown, unknown>],
    })
    expect(() => delivery.deliver(1)).toThrow(boom)
  })
})
