/**
 * The conformance tests every suspension ledger (the loop kit's `SuspensionLedger`) passes: the memory one,
 * SQLite and PostgreSQL run the same suite. Private to the repository's tests.
 */
import { AgentCoreError, InvalidInputError } from '@agent-core/core'
import type { SuspensionClaim, SuspensionLedger } from '@agent-core/kits/loop'
import fc from 'fast-check'
import { expect } from 'vitest'
import { AppError, garbage } from './garbage.js'

/** An opened ledger under test; `other` is a second handle on the same storage when there is one. */
export interface OpenedLedger {
  readonly ledger: SuspensionLedger
  readonly other?: SuspensionLedger | undefined
  close(): Promise<void> | void
}

export interface LedgerConformanceOptions {
  readonly describe: (name: string, body: () => void) => void
  readonly it: (name: string, body: () => Promise<void>, timeout?: number) => void
  readonly name: string
  /** Fresh, empty storage for each test. */
  readonly open: () => Promise<OpenedLedger>
}

let sequence = 0
function claimOf(key: string, overrides: Partial<SuspensionClaim> = {}): SuspensionClaim {
  sequence += 1
  return {
    key,
    runId: key.split('/')[0] ?? 'run_x',
    claimId: `claim_${sequence}`,
    outcomes: { call_1: { type: 'approve', toolCallId: 'call_1', by: 'person' } },
    claimedAtMs: 1_700_000_000_000 + sequence,
    ...overrides,
  }
}

async function withLedger(open: () => Promise<OpenedLedger>, body: (opened: OpenedLedger) => Promise<void>) {
  const opened = await open()
  try {
    await body(opened)
  } finally {
    await opened.close()
  }
}

/** Registers the suite. */
export function describeSuspensionLedgerConformance(options: LedgerConformanceOptions): void {
  const { describe, it, open } = options
  describe(`${options.name}: suspension ledger conformance`, () => {
    it('an unknown key has no claim', () =>
      withLedger(open, async ({ ledger }) => {
        expect(await ledger.get('run_1/suspension_1')).toBeUndefined()
      }))

    it('the first claim of a key holds; a later one gets it back unchanged and is not stored', () =>
      withLedger(open, async ({ ledger, other }) => {
        const first = claimOf('run_1/suspension_1', {
          taskId: 'ticket-7/resume-1',
          outcomes: {
            call_1: {
              type: 'reject',
              toolCallId: 'call_1',
              by: 'person',
              reason: 'no',
              instruction: 'ask first',
            },
            call_2: {
              type: 'result',
              toolCallId: 'call_2',
              output: { rows: [1, 'two', null, { deep: true }] },
            },
            call_3: { type: 'answer', toolCallId: 'call_3', value: 'savings' },
          },
        })
        expect(await ledger.claim(first)).toEqual(first)
        const second = claimOf('run_1/suspension_1')
        expect(await ledger.claim(second)).toEqual(first)
        expect(await (other ?? ledger).claim(claimOf('run_1/suspension_1'))).toEqual(first)
        expect(await ledger.get('run_1/suspension_1')).toEqual(first)
        expect(await (other ?? ledger).get('run_1/suspension_1')).toEqual(first)
      }))

    it('keys are independent, and a claim without a task id reads back without one', () =>
      withLedger(open, async ({ ledger }) => {
        const a = claimOf('run_1/suspension_1')
        const b = claimOf('run_1/suspension_2', { outcomes: {} })
        expect(await ledger.claim(a)).toEqual(a)
        expect(await ledger.claim(b)).toEqual(b)
        const read = await ledger.get(b.key)
        expect(read).toEqual(b)
        expect(read).not.toHaveProperty('taskId')
      }))

    it('claims made at once (through every handle) have exactly one winner, and all see it', () =>
      withLedger(open, async ({ ledger, other }) => {
        const claims = Array.from({ length: 12 }, () => claimOf('run_9/suspension_9'))
        const results = await Promise.all(
          claims.map((claim, index) => (index % 2 === 1 && other ? other : ledger).claim(claim)),
        )
        const winners = new Set(results.map((result) => result.claimId))
        expect(winners.size).toBe(1)
        expect(claims.map((claim) => claim.claimId)).toContain([...winners][0])
        expect((await ledger.get('run_9/suspension_9'))?.claimId).toBe([...winners][0])
      }))

    it('property: any sequence of claims and reads matches a map that keeps the first claim per key', () =>
      withLedger(open, async ({ ledger, other }) => {
        let round = 0
        await fc.assert(
          fc.asyncProperty(
            fc.array(
              fc.record({
                op: fc.constantFrom('claim', 'get'),
                key: fc.integer({ min: 0, max: 3 }),
                handle: fc.boolean(),
              }),
              { minLength: 1, maxLength: 12 },
            ),
            async (ops) => {
              round += 1
              const model = new Map<string, SuspensionClaim>()
              for (const { op, key, handle } of ops) {
                const name = `run_p${round}/suspension_${key}`
                const target = handle && other ? other : ledger
                if (op === 'claim') {
                  const claim = claimOf(name)
                  if (!model.has(name)) model.set(name, claim)
                  expect(await target.claim(claim)).toEqual(model.get(name))
                } else {
                  expect(await target.get(name)).toEqual(model.get(name))
                }
              }
            },
          ),
          { numRuns: 25 },
        )
      }))

    it('bad input: a malformed claim or key is refused with a typed error and stores nothing', () =>
      withLedger(open, async ({ ledger }) => {
        const good = claimOf('run_b/suspension_1')
        const bad: unknown[] = [
          undefined,
          null,
          'run_b/suspension_1',
          { ...good, key: '' },
          { ...good, key: 'x'.repeat(1025) },
          { ...good, runId: 7 },
          { ...good, claimId: '' },
          { ...good, claimedAtMs: Number.NaN },
          { ...good, claimedAtMs: -1 },
          { ...good, claimedAtMs: 2 ** 53 },
          { ...good, taskId: '' },
          { ...good, outcomes: [] },
          { ...good, outcomes: { call_1: { type: 'approve', toolCallId: 'call_2', by: 'person' } } },
          { ...good, outcomes: { call_1: { type: 'launch', toolCallId: 'call_1' } } },
          { ...good, extra: true },
        ]
        for (const value of bad) {
          await expect(ledger.claim(value as SuspensionClaim)).rejects.toSatisfy((error: unknown) =>
            InvalidInputError.isInstance(error),
          )
        }
        expect(await ledger.get(good.key)).toBeUndefined()
        for (const key of ['', 5, null, undefined, {}, 'k'.repeat(1025)]) {
          await expect(ledger.get(key as string)).rejects.toSatisfy((error: unknown) =>
            InvalidInputError.isInstance(error),
          )
        }
        await fc.assert(
          fc.asyncProperty(garbage, async (value) => {
            const outcome = await ledger.claim(value as SuspensionClaim).then(
              () => 'stored',
              (error: unknown) =>
                AgentCoreError.isInstance(error) || error instanceof AppError
                  ? 'refused'
                  : `untyped: ${String(error)}`,
            )
            expect(outcome).toBe('refused')
          }),
          { numRuns: 40 },
        )
      }))
  })
}
