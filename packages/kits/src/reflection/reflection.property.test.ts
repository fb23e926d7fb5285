/** The reflection cycle against a reference model: rounds, verdicts, corrections and both budgets. */
import { AttemptBudget } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { defineReflection } from './index.js'
import { scripted, verdict, withUsage } from './testing/fixtures.js'

type CriticReply = 'accept' | 'revise' | 'garbage'

interface Case {
  readonly critic: readonly CriticReply[]
  readonly maxRounds: number
  readonly maxCorrections: number
  readonly attempts: number | undefined
  readonly maxTokens: number | undefined
  readonly tokensPerCall: number
  readonly estimate: number
  readonly given: boolean
}

interface Expected {
  readonly reason: string
  readonly output: string | undefined
  readonly rounds: readonly {
    draft: string
    decision: string | undefined
    refused: number
    attempts: number
  }[]
  readonly attempts: number
  readonly tokens: number
}

/** Simulates the cycle as the definition describes it. */
function reference(c: Case): Expected {
  let attempts = 0
  let tokens = 0
  let drafts = 0
  let next = 0
  const rounds: { draft: string; decision: string | undefined; refused: number; attempts: number }[] = []
  let output: string | undefined
  class Stop {
    constructor(readonly reason: string) {}
  }
  const call = (): void => {
    if (c.attempts !== undefined && attempts >= c.attempts) throw new Stop('attempt-limit')
    if (c.maxTokens !== undefined && (tokens >= c.maxTokens || tokens + c.estimate > c.maxTokens)) {
      throw new Stop('token-limit')
    }
    attempts++
    tokens += c.tokensPerCall
  }
  for (let round = 1; ; round++) {
    const before = attempts
    let written = false
    let decision: string | undefined
    let refused = 0
    let reason: string | undefined
    try {
      if (round > 1 || !c.given) {
        call()
        drafts++
      }
      written = true
      output = c.given && round === 1 ? 'given' : `draft-${drafts}`
      for (;;) {
        call()
        const reply = c.critic[next++] ?? 'garbage'
        if (reply !== 'garbage') {
          decision = reply
          break
        }
        refused++
        if (refused > c.maxCorrections) throw new Stop('error')
      }
      if (decision === 'accept') reason = 'accepted'
      else if (round >= c.maxRounds) reason = 'round-limit'
    } catch (stop) {
      reason = (stop as Stop).reason
    }
    if (written) rounds.push({ draft: output as string, decision, refused, attempts: attempts - before })
    if (reason !== undefined) return { reason, output, rounds, attempts, tokens }
  }
}

const cases: fc.Arbitrary<Case> = fc.record({
  critic: fc.array(fc.constantFrom<CriticReply>('accept', 'revise', 'revise', 'garbage'), { maxLength: 30 }),
  maxRounds: fc.integer({ min: 1, max: 5 }),
  maxCorrections: fc.integer({ min: 0, max: 2 }),
  attempts: fc.option(fc.integer({ min: 0, max: 14 }), { nil: undefined }),
  maxTokens: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
  tokensPerCall: fc.integer({ min: 0, max: 40 }),
  estimate: fc.integer({ min: 0, max: 30 }),
  given: fc.boolean(),
})

describe('reflection properties', () => {
  it('rounds, verdicts, corrections and budgets follow the reference model', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        let drafts = 0
        const queue = [...c.critic]
        const { target } = scripted(
          {
            writer: [() => withUsage(`draft-${++drafts}`, c.tokensPerCall)],
            critic: [
              () => {
                const reply = queue.shift() ?? 'garbage'
                const text =
                  reply === 'garbage'
                    ? 'I think it is fine.'
                    : verdict(reply, ...(reply === 'revise' ? ['fix it'] : []))
                return withUsage(text, c.tokensPerCall)
              },
            ],
          },
          { repeatLast: true },
        )
        const reflection = defineReflection({
          drafter: target('writer'),
          critic: target('critic'),
          maxRounds: c.maxRounds,
          maxCorrections: c.maxCorrections,
          estimateTokens: () => c.estimate,
        })
        const attemptBudget = c.attempts === undefined ? undefined : new AttemptBudget(c.attempts)
        const result = await reflection.run(
          {
            prompt: 'Task',
            ...(c.given ? { draft: 'given' } : {}),
            ...(c.maxTokens === undefined ? {} : { maxTokens: c.maxTokens }),
          },
          { attemptBudget },
        )
        const expected = reference(c)
        expect(result.reason).toBe(expected.reason)
        expect(result.output).toBe(expected.output)
        expect(
          result.rounds.map((round) => ({
            draft: round.draft,
            decision: round.verdict?.decision,
            refused: round.refused.length,
            attempts: round.attempts,
          })),
        ).toEqual(
          expected.rounds.map((round) => ({
            ...round,
            attempts: attemptBudget === undefined ? 0 : round.attempts,
          })),
        )
        expect(result.usage.totalTokens).toBe(expected.tokens)
        expect(result.attempts).toBe(attemptBudget === undefined ? 0 : expected.attempts)
        // The budgets are never overdrawn.
        if (attemptBudget !== undefined) expect(attemptBudget.used).toBeLessThanOrEqual(attemptBudget.limit)
        if (c.maxTokens !== undefined) {
          // No call starts unless its estimate fits: at most the last reply goes past the estimate.
          expect(result.usage.totalTokens).toBeLessThanOrEqual(
            Math.max(0, c.maxTokens - c.estimate + c.tokensPerCall),
          )
        }
        expect(result.rounds.length).toBeLessThanOrEqual(c.maxRounds)
      }),
      { numRuns: 300 },
    )
  })
})
