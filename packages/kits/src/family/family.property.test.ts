/** Properties of agent families against simple reference models: budget trees, fan-in order, cancellation. */
import {
  AttemptBudget,
  BudgetExhaustedError,
  MemoryDiagnosticSink,
  type OperationContext,
} from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { defineAgentFamily, type FamilyBranch, type FamilyChildReport, type FamilyResult } from './index.js'
import { echoModel, sleep } from './testing/fixtures.js'

/** A node of a random family tree: its shares, what it spends itself, and its children. */
interface Node {
  readonly attempts: number
  readonly tokens: number
  /** Attempts the node tries to take for itself (it may have fewer left). */
  readonly own: number
  readonly delay: number
  readonly children: readonly Node[]
}

/** Trees up to `depth` levels below the root, up to three children per node. */
function treeOf(depth: number): fc.Arbitrary<Node> {
  return fc.record({
    attempts: fc.integer({ min: 0, max: 8 }),
    tokens: fc.integer({ min: 0, max: 60 }),
    own: fc.integer({ min: 0, max: 4 }),
    delay: fc.integer({ min: 0, max: 2 }),
    children: depth === 0 ? fc.constant([]) : fc.array(treeOf(depth - 1), { maxLength: 3 }),
  })
}

const tree = treeOf(3)

/** What a node's run returns. */
interface Outcome {
  readonly own: number
  readonly refused: boolean
  readonly spawn: FamilyResult | undefined
}

/** The reference model: what a node with this share should take, refuse and hand on. */
interface Expected {
  readonly used: number
  readonly own: number
  readonly refused: boolean
  readonly children: readonly Expected[]
}

function reference(node: Node): Expected {
  const own = Math.min(node.own, node.attempts)
  const remaining = node.attempts - own
  const attempts = node.children.reduce((sum, child) => sum + child.attempts, 0)
  const tokens = node.children.reduce((sum, child) => sum + child.tokens, 0)
  const refused = node.children.length > 0 && (attempts > remaining || tokens > node.tokens)
  const spawned = node.children.length > 0 && !refused
  return {
    own,
    refused,
    used: own + (spawned ? attempts : 0),
    children: spawned ? node.children.map(reference) : [],
  }
}

function childRequests(children: readonly Node[]) {
  return children.map((child, index) => ({
    id: `n${index}`,
    member: 'node',
    input: child,
    attempts: child.attempts,
    tokens: child.tokens,
  }))
}

const nodeMember = {
  id: 'node',
  async run(branch: FamilyBranch, context: OperationContext<unknown>): Promise<Outcome> {
    const node = branch.input as Node
    let own = 0
    while (own < node.own && context.attemptBudget?.tryTake({ signal: context.signal })) own++
    await sleep(node.delay, context.signal)
    if (node.children.length === 0) return { own, refused: false, spawn: undefined }
    try {
      return { own, refused: false, spawn: await branch.spawn({ children: childRequests(node.children) }) }
    } catch (error) {
      if (!BudgetExhaustedError.isInstance(error)) throw error
      return { own, refused: true, spawn: undefined }
    }
  },
}

/** Compares a node's report with the reference, and checks the invariants, all the way down. */
function check(report: FamilyChildReport | undefined, node: Node, expected: Expected, path: string): void {
  expect(report?.status, path).toBe('done')
  if (report?.status !== 'done') return
  const outcome = report.value as Outcome
  // No child overdraws: what it used is within its share, and what it took is what the model says.
  expect(report.grant.attempts, path).toBe(node.attempts)
  expect(report.grant.tokens, path).toBe(node.tokens)
  expect(report.attemptsUsed, path).toBeLessThanOrEqual(node.attempts)
  expect(report.attemptsUsed, path).toBe(expected.used)
  expect(outcome.own, path).toBe(expected.own)
  expect(outcome.refused, path).toBe(expected.refused)
  const spawn = outcome.spawn
  if (expected.refused || node.children.length === 0) {
    expect(spawn, path).toBeUndefined()
    return
  }
  // The totals add up: the shares handed on are the children's grants, within the remainder.
  expect(spawn?.attempts, path).toBe(node.children.reduce((sum, child) => sum + child.attempts, 0))
  expect(spawn?.tokens, path).toBe(node.children.reduce((sum, child) => sum + child.tokens, 0))
  expect((spawn?.attempts ?? 0) + outcome.own, path).toBe(report.attemptsUsed)
  expect(spawn?.tokens ?? 0, path).toBeLessThanOrEqual(node.tokens)
  expect(
    spawn?.children.map((child) => child.id),
    path,
  ).toEqual(node.children.map((_, index) => `n${index}`))
  node.children.forEach((child, index) => {
    check(spawn?.children[index], child, expected.children[index] as Expected, `${path}/n${index}`)
  })
}

describe('agent family properties', () => {
  it('for any tree of budget shares no child overdraws and the totals add up', async () => {
    const family = defineAgentFamily({ members: [nodeMember], concurrency: 2 })
    await fc.assert(
      fc.asyncProperty(
        tree,
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 0, max: 80 }),
        async (root, limit, maxTokens) => {
          const attemptBudget = new AttemptBudget(limit)
          const request = { maxTokens, children: childRequests([root]) }
          if (root.attempts > limit || root.tokens > maxTokens) {
            await expect(family.run(request, { attemptBudget })).rejects.toSatisfy((error) =>
              BudgetExhaustedError.isInstance(error),
            )
            expect(attemptBudget.used).toBe(0)
            return
          }
          const result = await family.run(request, { attemptBudget })
          expect(result.attempts).toBe(root.attempts)
          expect(result.tokens).toBe(root.tokens)
          expect(attemptBudget.used).toBe(root.attempts)
          check(result.children[0], root, reference(root), 'n0')
        },
      ),
      { numRuns: 150 },
    )
  })

  it('fan-in follows declaration order under random completion delays, failures in place', async () => {
    const family = defineAgentFamily({
      members: [
        {
          id: 'work',
          run: async (branch: FamilyBranch, context: OperationContext<unknown>) => {
            const { delay, fail } = branch.input as { delay: number; fail: boolean }
            await sleep(delay, context.signal)
            if (fail) throw new Error(`failed after ${delay}`)
            return delay
          },
        },
        {
          id: 'agent',
          agent: { model: echoModel({ delayMs: (request) => Number(request.messages.at(-1)?.content) }) },
        },
      ],
    })
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ delay: fc.integer({ min: 0, max: 6 }), fail: fc.boolean(), agent: fc.boolean() }),
          {
            maxLength: 12,
          },
        ),
        fc.integer({ min: 1, max: 6 }),
        async (children, concurrency) => {
          const result = await family.run({
            concurrency,
            children: children.map((child, index) =>
              child.agent
                ? { id: `c${index}`, member: 'agent', prompt: String(child.delay) }
                : { id: `c${index}`, member: 'work', input: child },
            ),
          })
          expect(result.children.map((child) => child.id)).toEqual(children.map((_, index) => `c${index}`))
          expect(result.children.map((child) => child.index)).toEqual(children.map((_, index) => index))
          result.children.forEach((report, index) => {
            const child = children[index] as (typeof children)[number]
            if (child.agent) expect(report.status === 'done' && report.value).toBe(String(child.delay))
            else if (child.fail)
              expect(report.status === 'failed' && (report.error as Error).message).toBe(
                `failed after ${child.delay}`,
              )
            else expect(report.status === 'done' && report.value).toBe(child.delay)
          })
          expect(result.failed).toBe(children.filter((child) => !child.agent && child.fail).length)
        },
      ),
      { numRuns: 60 },
    )
  })

  it('cancelling the parent stops every child of the tree and reports it', async () => {
    const finishedAfterAbort: string[] = []
    let aborted = false
    const sleeper = {
      id: 'node',
      async run(branch: FamilyBranch, context: OperationContext<unknown>) {
        const node = branch.input as Node
        await sleep(node.delay * 3, context.signal)
        const spawn =
          node.children.length > 0
            ? await branch.spawn({
                children: node.children.map((child, index) => ({
                  id: `n${index}`,
                  member: 'node',
                  input: child,
                })),
              })
            : undefined
        if (aborted && !context.signal.aborted) finishedAfterAbort.push(branch.grant.path.join('/'))
        return spawn
      },
    }
    const family = defineAgentFamily({ members: [sleeper], concurrency: 2 })

    /** Counts the reports of the tree; none may have failed (a cancellation is not a failure). */
    function walk(result: FamilyResult | undefined, counts: { done: number; stopped: number }): void {
      for (const child of result?.children ?? []) {
        expect(child.status).not.toBe('failed')
        if (child.status === 'done') {
          counts.done++
          walk(child.value as FamilyResult | undefined, counts)
        } else counts.stopped++
      }
    }

    await fc.assert(
      fc.asyncProperty(
        fc.array(tree, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 8 }),
        async (roots, abortAfter) => {
          aborted = false
          finishedAfterAbort.length = 0
          const controller = new AbortController()
          const memory = new MemoryDiagnosticSink()
          const pending = family.run(
            { children: roots.map((root, index) => ({ id: `n${index}`, member: 'node', input: root })) },
            { signal: controller.signal, diagnostics: memory.sink },
          )
          let settled = false
          void pending.then(() => {
            settled = true
          })
          await new Promise((resolve) => setTimeout(resolve, abortAfter))
          const settledBefore = settled
          aborted = true
          controller.abort(new Error('parent cancelled'))
          const result = await pending
          // Reported: unless the whole tree had finished before the abort, the result says it was stopped;
          // either way nothing is left running, and nothing finished after the abort as if uncancelled.
          expect(result.stopped).toBe(!settledBefore)
          expect(finishedAfterAbort).toEqual([])
          // Every child that started has ended (its span is closed), aborted unless it finished first.
          const ends = new Map(
            memory.ofKind('family-child-end').map((event) => [event.spanId, event.data.outcome]),
          )
          for (const start of memory.ofKind('family-child-start')) {
            expect(ends.has(start.spanId)).toBe(true)
            expect(['ok', 'aborted']).toContain(ends.get(start.spanId))
          }
          const counts = { done: 0, stopped: 0 }
          walk(result, counts)
          expect(counts.done + counts.stopped).toBeGreaterThan(0)
        },
      ),
      { numRuns: 60 },
    )
  })
})
