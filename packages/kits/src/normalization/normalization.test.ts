import {
  DuplicateIdError,
  InvalidDefinitionError,
  InvalidIdError,
  InvalidOutputError,
  RejectedThenableError,
} from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { defineNormalization, type NormalizationDefinition, type NormalizationStep } from './normalization.js'

interface Limits {
  readonly max: number
}

describe('defineNormalization: running steps', () => {
  it('runs steps in order, each on the previous value, and reports the applied ids', () => {
    const normalization = defineNormalization<unknown>({
      steps: [
        { id: 'trim', when: (v) => typeof v === 'string', transform: (v) => (v as string).trim() },
        { id: 'parse', when: (v) => typeof v === 'string', transform: (v) => Number(v) },
        { id: 'double', transform: (v) => (v as number) * 2 },
      ],
    })
    expect(normalization.normalize('  21 ')).toEqual({
      value: 42,
      complete: true,
      appliedStepIds: ['trim', 'parse', 'double'],
    })
    expect(normalization.normalize(5)).toEqual({ value: 10, complete: true, appliedStepIds: ['double'] })
  })

  it('passes the same caller context to every hook', () => {
    const seen: unknown[] = []
    const context: Limits = { max: 10 }
    const normalization = defineNormalization<number, Limits>({
      steps: [
        {
          id: 'clamp',
          when: (_v, c) => {
            seen.push(c)
            return true
          },
          transform: (v, c) => {
            seen.push(c)
            return Math.min(v, c.max)
          },
        },
      ],
      isComplete: (v, c) => {
        seen.push(c)
        return v <= c.max
      },
    })
    expect(normalization.normalize(50, context)).toEqual({
      value: 10,
      complete: true,
      appliedStepIds: ['clamp'],
    })
    expect(seen).toHaveLength(4)
    for (const c of seen) expect(c).toBe(context)
  })

  it('treats the context as plain caller data with no execution lifecycle', () => {
    const context = { signal: AbortSignal.abort(), app: {} }
    const normalization = defineNormalization<number, typeof context>({
      steps: [{ id: 'inc', transform: (v, c) => (c === context ? v + 1 : Number.NaN) }],
    })
    expect(normalization.normalize(1, context)).toEqual({ value: 2, complete: true, appliedStepIds: ['inc'] })
  })

  it('stops before the first step when the input is already complete', () => {
    let transforms = 0
    const normalization = defineNormalization<number, Limits>({
      steps: [
        {
          id: 'clamp',
          transform: (v, c) => {
            transforms++
            return Math.min(v, c.max)
          },
        },
      ],
      isComplete: (v, c) => v <= c.max,
    })
    expect(normalization.normalize(3, { max: 10 })).toEqual({ value: 3, complete: true, appliedStepIds: [] })
    expect(transforms).toBe(0)
  })

  it('stops as soon as isComplete accepts the value, skipping later steps', () => {
    const normalization = defineNormalization<string>({
      steps: [
        { id: 'a', transform: (v) => `${v}a` },
        { id: 'b', transform: (v) => `${v}b` },
        { id: 'c', transform: (v) => `${v}c` },
      ],
      isComplete: (v) => v.length >= 2,
    })
    expect(normalization.normalize('')).toEqual({ value: 'ab', complete: true, appliedStepIds: ['a', 'b'] })
  })

  it('reports complete: false when isComplete rejects the final value', () => {
    const normalization = defineNormalization<number>({
      steps: [{ id: 'inc', when: (v) => v < 100, transform: (v) => v + 1 }],
      isComplete: (v) => v > 100,
    })
    expect(normalization.normalize(5)).toEqual({ value: 6, complete: false, appliedStepIds: ['inc'] })
    expect(normalization.normalize(500)).toEqual({ value: 500, complete: true, appliedStepIds: [] })
  })

  it('with no steps returns the input and the isComplete verdict', () => {
    expect(defineNormalization<number>({ steps: [] }).normalize(0)).toEqual({
      value: 0,
      complete: true,
      appliedStepIds: [],
    })
    expect(defineNormalization<number>({ steps: [], isComplete: (v) => v > 0 }).normalize(0).complete).toBe(
      false,
    )
  })

  it('returns frozen results and exposes the steps in order', () => {
    const step = { id: 's', transform: (v: number) => v }
    const normalization = defineNormalization<number>({ steps: [step] })
    const result = normalization.normalize(1)
    expect(Object.isFrozen(result)).toBe(true)
    expect(Object.isFrozen(result.appliedStepIds)).toBe(true)
    expect(normalization.steps).toEqual([step])
    expect(normalization.steps[0]).toBe(step)
  })
})

describe('defineNormalization: falsy values are values', () => {
  it.each([0, -0, false, '', null, undefined, Number.NaN])(
    'a transform returning %s sets the value to it',
    (falsy) => {
      const normalization = defineNormalization<unknown>({
        steps: [
          { id: 'set', transform: () => falsy },
          { id: 'observe', when: (v) => Object.is(v, falsy), transform: (v) => v },
        ],
      })
      const result = normalization.normalize('original')
      expect(Object.is(result.value, falsy)).toBe(true)
      expect(result.appliedStepIds).toEqual(['set', 'observe'])
    },
  )

  it('"0", 0, false and "" inputs are passed to the steps, not replaced by a default', () => {
    const normalization = defineNormalization<unknown, { fallback: string }>({
      steps: [{ id: 'default', when: (v) => v === undefined, transform: (_v, c) => c.fallback }],
    })
    for (const input of [0, false, '', null, Number.NaN]) {
      expect(Object.is(normalization.normalize(input, { fallback: 'x' }).value, input)).toBe(true)
    }
    expect(normalization.normalize(undefined, { fallback: 'x' }).value).toBe('x')
  })

  it('property: identity steps preserve any input exactly', () => {
    fc.assert(
      fc.property(fc.anything(), fc.integer({ min: 0, max: 5 }), (input, count) => {
        const steps = Array.from({ length: count }, (_, i) => ({
          id: `id${i}`,
          transform: (v: unknown) => v,
        }))
        const result = defineNormalization<unknown>({ steps }).normalize(input)
        expect(Object.is(result.value, input)).toBe(true)
        expect(result.appliedStepIds).toHaveLength(count)
      }),
    )
  })

  it('property: steps that produce falsy constants keep exactly those constants', () => {
    const falsy = fc.constantFrom<unknown>(0, -0, false, '', null, undefined, Number.NaN, 0n)
    fc.assert(
      fc.property(fc.array(falsy, { minLength: 1, maxLength: 6 }), fc.anything(), (outputs, input) => {
        const steps = outputs.map((out, i) => ({ id: `s${i}`, transform: () => out }))
        const result = defineNormalization<unknown>({ steps }).normalize(input)
        expect(Object.is(result.value, outputs[outputs.length - 1])).toBe(true)
      }),
    )
  })
})

describe('defineNormalization: reference model', () => {
  it('property: equals a plain loop over the steps', () => {
    const stepArb = fc.record({
      add: fc.integer({ min: -5, max: 5 }),
      onlyWhenEven: fc.boolean(),
    })
    fc.assert(
      fc.property(
        fc.array(stepArb, { maxLength: 8 }),
        fc.integer({ min: -20, max: 20 }),
        fc.option(fc.integer({ min: -10, max: 10 }), { nil: undefined }),
        (specs, input, completeAbove) => {
          const steps: NormalizationStep<number, undefined>[] = specs.map((spec, i) => ({
            id: `s${i}`,
            ...(spec.onlyWhenEven ? { when: (v: number) => v % 2 === 0 } : {}),
            transform: (v: number) => v + spec.add,
          }))
          const definition: NormalizationDefinition<number, undefined> =
            completeAbove === undefined ? { steps } : { steps, isComplete: (v) => v > completeAbove }
          // Reference model
          const done = (v: number) => (completeAbove === undefined ? false : v > completeAbove)
          let value = input
          const applied: string[] = []
          let stopped = false
          for (const [i, spec] of specs.entries()) {
            if (done(value)) {
              stopped = true
              break
            }
            if (spec.onlyWhenEven && value % 2 !== 0) continue
            value += spec.add
            applied.push(`s${i}`)
          }
          const complete = stopped || completeAbove === undefined || done(value)
          expect(defineNormalization(definition).normalize(input)).toEqual({
            value,
            complete,
            appliedStepIds: applied,
          })
        },
      ),
    )
  })
})

describe('defineNormalization: class instances', () => {
  class Clamp implements NormalizationStep<number, undefined> {
    readonly #max: number
    constructor(
      readonly id: string,
      max: number,
    ) {
      this.#max = max
    }
    get max(): number {
      return this.#max
    }
    when(value: number): boolean {
      return value > this.max
    }
    transform(): number {
      return this.#max
    }
  }

  class Bounded implements NormalizationDefinition<number, undefined> {
    readonly steps = [new Clamp('clamp-100', 100), new Clamp('clamp-10', 10)]
    readonly #floor = 0
    isComplete(value: number): boolean {
      return value >= this.#floor && value <= 10
    }
  }

  it('keeps method receivers, private fields and getters of steps and definitions', () => {
    const normalization = defineNormalization(new Bounded())
    expect(normalization.normalize(500)).toEqual({
      value: 10,
      complete: true,
      appliedStepIds: ['clamp-100', 'clamp-10'],
    })
    expect(normalization.normalize(50)).toEqual({ value: 10, complete: true, appliedStepIds: ['clamp-10'] })
    expect(normalization.normalize(-1)).toEqual({ value: -1, complete: false, appliedStepIds: [] })
  })
})

describe('defineNormalization: bad input', () => {
  const build = (definition: unknown) => () =>
    defineNormalization(definition as NormalizationDefinition<unknown, undefined>)
  const ok = { id: 'ok', transform: (v: unknown) => v }

  it.each([undefined, null, 'steps', 7, Number.NaN, [ok]])('rejects the definition %s', (definition) => {
    expect(build(definition)).toThrow(InvalidDefinitionError)
    expect(build(definition)).toThrow(/Pass \{ steps: \[\.\.\.\], isComplete\? \}/)
  })

  it.each([undefined, null, {}, 'trim', 3])('rejects steps = %s', (steps) => {
    expect(build({ steps })).toThrow(InvalidDefinitionError)
    expect(build({ steps })).toThrow(/steps must be an array/)
  })

  it.each([null, 'step', 4])('rejects a step that is not an object: %s', (step) => {
    expect(build({ steps: [ok, step] })).toThrow(InvalidDefinitionError)
  })

  it.each([undefined, '', 1, Number.NaN])('rejects the step id %s', (id) => {
    expect(build({ steps: [{ ...ok, id }] })).toThrow(InvalidIdError)
  })

  it('rejects duplicate step ids', () => {
    expect(build({ steps: [ok, { ...ok }] })).toThrow(DuplicateIdError)
  })

  it.each([
    ['transform', undefined],
    ['transform', 'trim'],
    ['when', true],
    ['when', 'typeof v'],
    ['when', null],
  ])('rejects %s = %s', (field, value) => {
    expect(build({ steps: [{ ...ok, [field]: value }] })).toThrow(InvalidDefinitionError)
    expect(build({ steps: [{ ...ok, [field]: value }] })).toThrow(new RegExp(`${field} must be a function`))
  })

  it.each([true, 'yes', null, 1])('rejects isComplete = %s', (isComplete) => {
    expect(build({ steps: [], isComplete })).toThrow(InvalidDefinitionError)
    expect(build({ steps: [], isComplete })).toThrow(/isComplete must be a function/)
  })

  it.each([0, 1, '', 'true', undefined, null, Number.NaN])(
    'rejects a when returning %s (no truthiness)',
    (value) => {
      const normalization = defineNormalization<unknown>({
        steps: [{ ...ok, when: () => value as unknown as boolean }],
      })
      expect(() => normalization.normalize(1)).toThrow(InvalidOutputError)
      expect(() => normalization.normalize(1)).toThrow(/normalization step "ok" when must return a boolean/)
    },
  )

  it.each([0, 1, '', undefined])('rejects an isComplete returning %s', (value) => {
    const normalization = defineNormalization<unknown>({
      steps: [ok],
      isComplete: () => value as unknown as boolean,
    })
    expect(() => normalization.normalize(1)).toThrow(InvalidOutputError)
    expect(() => normalization.normalize(1)).toThrow(/isComplete must return a boolean/)
  })

  it('rejects a transform that returns a Promise and consumes its rejection', async () => {
    const normalization = defineNormalization<unknown>({
      steps: [{ id: 'async', transform: () => Promise.reject(new Error('late')) }],
    })
    expect(() => normalization.normalize(1)).toThrow(RejectedThenableError)
    expect(() => normalization.normalize(1)).toThrow(
      /normalization step "async" transform returned a Promise/,
    )
    await new Promise((resolve) => setTimeout(resolve, 0))
  })

  it('rejects a when or isComplete that returns a Promise', () => {
    const asyncWhen = defineNormalization<unknown>({ steps: [{ ...ok, when: async () => true } as never] })
    expect(() => asyncWhen.normalize(1)).toThrow(RejectedThenableError)
    const asyncComplete = defineNormalization<unknown>({
      steps: [ok],
      isComplete: (async () => true) as never,
    })
    expect(() => asyncComplete.normalize(1)).toThrow(RejectedThenableError)
  })

  it('lets an error thrown by a step propagate unchanged', () => {
    const boom = new RangeError('bad value')
    const normalization = defineNormalization<unknown>({
      steps: [
        {
          id: 'throws',
          transform: () => {
            throw boom
          },
        },
      ],
    })
    expect(() => normalization.normalize(1)).toThrow(boom)
  })

  it('rejects a step broken after the normalization was built', () => {
    const step = { ...ok }
    const normalization = defineNormalization<unknown>({ steps: [step] })
    ;(step as { transform: unknown }).transform = 'gone'
    expect(() => normalization.normalize(1)).toThrow(InvalidDefinitionError)
  })
})
