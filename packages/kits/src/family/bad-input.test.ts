/** Garbage in, typed errors out: every public entry of the family kit (property). */
import { AgentCoreError, AttemptBudget } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppError, deepGarbage } from '../testing/garbage.js'
import { defineAgentFamily, type FamilyBranch } from './index.js'
import { echoModel, namedTool } from './testing/fixtures.js'

const settling = { then: (resolve: (value: unknown) => void) => resolve('{}') }

const garbage: fc.Arbitrary<unknown> = deepGarbage(
  [settling, () => settling, () => Number.NaN, new AbortController().signal, ['search'], { role: 'user' }],
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

const search = namedTool('search')

describe('family kit: garbage input (property)', () => {
  it('defineAgentFamily refuses garbage only with AgentCoreError', async () => {
    await fc.assert(
      fc.asyncProperty(garbage, garbage, garbage, async (a, b, c) => {
        await typedOrSuccess(() => defineAgentFamily(a as Loose))
        await typedOrSuccess(() => defineAgentFamily({ members: a } as Loose))
        await typedOrSuccess(() => defineAgentFamily({ members: [a] } as Loose))
        await typedOrSuccess(() => defineAgentFamily({ members: [{ id: a, run: () => 1 }] } as Loose))
        await typedOrSuccess(() => defineAgentFamily({ members: [{ id: 'x', agent: a }] } as Loose))
        await typedOrSuccess(() =>
          defineAgentFamily({ members: [{ id: 'x', agent: { model: echoModel(), maxTurns: b } }] } as Loose),
        )
        await typedOrSuccess(() =>
          defineAgentFamily({
            tools: a,
            scopes: b,
            concurrency: c,
            members: [{ id: 'x', run: () => 1 }],
          } as Loose),
        )
        await typedOrSuccess(() =>
          defineAgentFamily({ childApp: a, members: [{ id: 'x', run: () => 1 }] } as Loose),
        )
      }),
      { numRuns: 300 },
    )
  })

  it('run and spawn refuse garbage with typed errors; children report typed failures', async () => {
    const family = defineAgentFamily({
      tools: [search],
      scopes: ['web'],
      members: [
        { id: 'agent', agent: { model: echoModel() } },
        {
          id: 'lead',
          run: (branch: FamilyBranch) => branch.spawn(branch.input as Loose),
        },
      ],
    })
    await fc.assert(
      fc.asyncProperty(
        garbage,
        fc.record(
          {
            member: fc.constantFrom('agent', 'lead'),
            prompt: maybe('hi'),
            messages: garbage,
            input: garbage,
            tools: maybe(['search']),
            scopes: maybe(['web']),
            attempts: maybe(1),
            tokens: maybe(5),
            id: garbage,
            onEvent: garbage,
          },
          { requiredKeys: ['member'] },
        ),
        garbage,
        garbage,
        async (a, child, context, nested) => {
          await typedOrSuccess(() => family.run(a as Loose))
          await typedOrSuccess(() => family.run({ children: a } as Loose))
          await typedOrSuccess(() =>
            family.run({ children: [], maxTokens: a, concurrency: nested, failFast: context } as Loose),
          )
          const result = (await typedOrSuccess(() =>
            family.run({ maxTokens: 100, children: [child] } as Loose, context as Loose),
          )) as Loose
          for (const report of result?.children ?? []) {
            if (report.status === 'failed') expect(isTyped(report.error)).toBe(true)
          }
          const nestedResult = (await typedOrSuccess(() =>
            family.run(
              { children: [{ member: 'lead', input: nested, attempts: 2 }] },
              { attemptBudget: new AttemptBudget(3) },
            ),
          )) as Loose
          for (const report of nestedResult?.children ?? []) {
            if (report.status === 'failed') expect(isTyped(report.error)).toBe(true)
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
