/** Garbage in, typed errors out: every public entry of the reflection kit (property). */
import { AgentCoreError } from '@agent-core/core'
import { createScriptedModel, defineAgent } from '@agent-core/kits/loop'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppError, deepGarbage } from '../testing/garbage.js'
import {
  defaultCritiquePrompt,
  defaultRevisePrompt,
  defineReflection,
  reflectionVerdictOutput,
} from './index.js'
import { scripted, verdict } from './testing/fixtures.js'

/** A thenable that settles at once, so no run under test can hang on it. */
const settling = { then: (resolve: (value: unknown) => void) => resolve('{}') }

const garbage: fc.Arbitrary<unknown> = deepGarbage(
  [
    settling,
    () => settling,
    () => Number.NaN,
    () => [],
    () => [{ role: 'user' }],
    new AbortController().signal,
  ],
  fc.sparseArray(fc.anything(), { maxLength: 4 }),
)

function maybe<T>(valid: T): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: fc.constant(valid), weight: 3 }, { arbitrary: garbage, weight: 1 })
}

function isTyped(error: unknown): boolean {
  return error instanceof AppError || AgentCoreError.isInstance(error)
}

async function typedOrSuccess(run: () => unknown): Promise<unknown> {
  try {
    return await run()
  } catch (error) {
    if (!isTyped(error)) throw new Error(`expected an AgentCoreError, got ${String(error)}`, { cause: error })
    expect(isTyped(error)).toBe(true)
    return undefined
  }
}

// biome-ignore lint/suspicious/noExplicitAny: garbage goes through the public API on purpose
type Loose = any

describe('reflection kit: garbage input (property)', () => {
  it('defineReflection and the helpers refuse garbage only with AgentCoreError', async () => {
    const { target } = scripted({ writer: ['x'], critic: [verdict('accept')] })
    await fc.assert(
      fc.asyncProperty(garbage, garbage, garbage, async (a, b, c) => {
        await typedOrSuccess(() => defineReflection(a as Loose))
        await typedOrSuccess(() => defineReflection({ drafter: a, critic: target('critic') } as Loose))
        await typedOrSuccess(() =>
          defineReflection({ critic: { ...target('critic'), timeoutMs: a } } as Loose),
        )
        await typedOrSuccess(() =>
          defineReflection({
            critic: { ...target('critic'), modelId: b },
            reviser: target('writer'),
          } as Loose),
        )
        await typedOrSuccess(() =>
          defineReflection({
            drafter: target('writer'),
            critic: target('critic'),
            maxRounds: a,
            maxTokens: b,
            maxCorrections: c,
          } as Loose),
        )
        await typedOrSuccess(() =>
          defineReflection({
            drafter: target('writer'),
            critic: target('critic'),
            mode: a,
            prompts: b,
            criteria: c,
          } as Loose),
        )
        await typedOrSuccess(() => reflectionVerdictOutput(a as Loose))
        await typedOrSuccess(() => defaultCritiquePrompt(a as Loose))
        await typedOrSuccess(() => defaultRevisePrompt(a as Loose))
      }),
      { numRuns: 300 },
    )
  })

  it('run refuses garbage requests and contexts with typed errors; a run that resolves reports typed errors', async () => {
    await fc.assert(
      fc.asyncProperty(
        garbage,
        fc.record(
          {
            prompt: maybe('Task'),
            messages: garbage,
            draft: garbage,
            criteria: garbage,
            maxTokens: garbage,
            onRound: garbage,
          },
          { requiredKeys: [] },
        ),
        garbage,
        fc.record(
          { draft: maybe(undefined), critique: maybe(undefined), revise: maybe(undefined) },
          { requiredKeys: [] },
        ),
        garbage,
        async (a, request, context, prompts, estimate) => {
          const { target } = scripted(
            { writer: ['x', 'y'], critic: [verdict('revise', 'z'), 'nope', verdict('accept')] },
            { repeatLast: true },
          )
          const agentCritic = defineAgent({ model: createScriptedModel([{ text: verdict('accept') }]) })
          const reflection = defineReflection({
            drafter: target('writer'),
            critic: a === 0 ? agentCritic : target('critic'),
            maxRounds: 2,
          })
          await typedOrSuccess(() => reflection.run(a as Loose))
          const result = (await typedOrSuccess(() =>
            reflection.run(request as Loose, context as Loose),
          )) as Loose
          if (result?.reason === 'error') expect(isTyped(result.error)).toBe(true)
          const custom = await typedOrSuccess(() =>
            defineReflection({
              drafter: target('writer'),
              critic: target('critic'),
              prompts,
              maxTokens: 10_000,
              estimateTokens: estimate,
            } as Loose).run({ prompt: 'Task' }),
          )
          if ((custom as Loose)?.reason === 'error') expect(isTyped((custom as Loose).error)).toBe(true)
        },
      ),
      { numRuns: 300 },
    )
  })
})
