import {
  AbortedError,
  AttemptBudget,
  InvalidDefinitionError,
  InvalidInputError,
  InvalidOutputError,
  MemoryDiagnosticSink,
  type ModelRequest,
} from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { createScriptedModel, defineAgent, estimateTokens, structuredAnswer } from '@agent-core/kits/loop'
import { StructuredOutputError } from '@agent-core/kits/models'
import { describe, expect, it } from 'vitest'
import {
  CRITIC_SYSTEM,
  defineReflection,
  type ReflectionRound,
  ReflectionStepError,
  reflectionVerdictOutput,
} from './index.js'
import { lastText, scripted, verdict, withUsage } from './testing/fixtures.js'

describe('defineReflection: the cycle', () => {
  it('drafts, revises from the issues and stops when the critic accepts, with every round', async () => {
    const { target, asked } = scripted({
      writer: ['Draft one.', 'Draft two.'],
      critic: [verdict('revise', 'Too vague.', 'Name the year.'), verdict('accept')],
    })
    const reflection = defineReflection({
      drafter: target('writer'),
      critic: target('critic'),
      criteria: 'Be exact.',
    })
    const result = await reflection.run({ prompt: 'When did it happen?' })
    expect(result.reason).toBe('accepted')
    expect(result.output).toBe('Draft two.')
    expect(
      result.rounds.map((round) => [round.round, round.by, round.draft, round.verdict?.decision]),
    ).toEqual([
      [1, 'drafter', 'Draft one.', 'revise'],
      [2, 'reviser', 'Draft two.', 'accept'],
    ])
    expect(result.rounds[0]?.verdict?.issues).toEqual(['Too vague.', 'Name the year.'])
    if (result.reason === 'accepted') expect(result.verdict).toEqual({ decision: 'accept', issues: [] })

    const [draftRequest, reviseRequest] = asked.writer as ModelRequest[]
    expect(draftRequest?.messages).toEqual([{ role: 'user', content: 'When did it happen?' }])
    // The reviser (the drafter by default) reads the task, its draft and the issues.
    expect(reviseRequest?.messages.slice(0, 2)).toEqual([
      { role: 'user', content: 'When did it happen?' },
      { role: 'assistant', content: 'Draft one.' },
    ])
    expect(lastText(reviseRequest)).toContain('- Too vague.\n- Name the year.')
    // The critic reads its role and the verdict instructions, then the task, the criteria and the draft;
    // in round 2 also the issues it raised before.
    const [first, second] = asked.critic as ModelRequest[]
    expect(first?.messages[0]?.role).toBe('system')
    expect(first?.messages[0]?.content).toContain(CRITIC_SYSTEM)
    expect(first?.messages[0]?.content).toContain('"decision"')
    expect(lastText(first)).toMatch(
      /## Task\nWhen did it happen\?\n\n## Criteria\nBe exact\.\n\n## Draft to review \(round 1\)\nDraft one\./,
    )
    expect(lastText(first)).not.toContain('previous draft')
    expect(lastText(second)).toContain(
      '## Issues raised on the previous draft (check that each one is fixed)\n- Too vague.',
    )
    expect(lastText(second)).toContain('Draft two.')
  })

  it('stops at the round cap with the last verdict still asking for changes', async () => {
    const { target } = scripted(
      { writer: ['A', 'B', 'C', 'D'], critic: [verdict('revise', 'Still wrong.')] },
      { repeatLast: true },
    )
    const result = await defineReflection({
      drafter: target('writer'),
      critic: target('critic'),
      maxRounds: 3,
    }).run({
      prompt: 'Task',
    })
    expect(result.reason).toBe('round-limit')
    expect(result.output).toBe('C')
    expect(result.rounds).toHaveLength(3)
    expect(result.rounds.every((round) => round.verdict?.decision === 'revise')).toBe(true)
  })

  it('reviews a given draft first, with a separate reviser, and needs one of drafter or draft', async () => {
    const { target, asked } = scripted({
      fixer: ['Fixed.'],
      critic: [verdict('revise', 'Typo.'), verdict('accept')],
    })
    const reflection = defineReflection({ critic: target('critic'), reviser: target('fixer') })
    const result = await reflection.run({ prompt: 'Write a line.', draft: 'Fxed.' })
    expect(result.rounds.map((round) => round.by)).toEqual(['request', 'reviser'])
    expect(result.output).toBe('Fixed.')
    expect(asked.fixer).toHaveLength(1)
    await expect(reflection.run({ prompt: 'Write a line.' })).rejects.toSatisfy(
      (error) => InvalidInputError.isInstance(error) && error.details.field === 'request.draft',
    )
    expect(() => defineReflection({ critic: target('critic') })).toThrow(InvalidDefinitionError)
  })

  it('corrects a verdict that does not match its schema through the models kit contract', async () => {
    const { target, asked } = scripted({
      writer: ['Draft.'],
      critic: ['Looks fine to me!', verdict('revise'), verdict('accept')],
    })
    const result = await defineReflection({
      drafter: target('writer'),
      critic: target('critic'),
      maxCorrections: 2,
    }).run({ prompt: 'Task' })
    expect(result.reason).toBe('accepted')
    const round = result.rounds[0] as ReflectionRound
    expect(round.refused.map((attempt) => attempt.text)).toEqual(['Looks fine to me!', verdict('revise')])
    // "revise" without issues is refused: a revision needs at least one issue.
    expect(round.refused[1]?.issues).toEqual([
      {
        path: '/issues',
        keyword: 'schema',
        message: 'must list at least one issue when the decision is "revise"',
      },
    ])
    // Each correction carries the refused reply and what was wrong with it.
    const third = asked.critic?.[2] as ModelRequest
    expect(third.messages.at(-2)).toEqual({ role: 'assistant', content: verdict('revise') })
    expect(lastText(third)).toMatch(/\/issues/)
  })

  it('ends with the structured-output error once corrections are used up, keeping the round', async () => {
    const { target } = scripted({ writer: ['Draft.'], critic: ['nope', 'still nope'] })
    const result = await defineReflection({ drafter: target('writer'), critic: target('critic') }).run({
      prompt: 'Task',
    })
    expect(result.reason).toBe('error')
    if (result.reason !== 'error') return
    expect(StructuredOutputError.isInstance(result.error)).toBe(true)
    expect(result.output).toBe('Draft.')
    expect(result.rounds).toHaveLength(1)
    expect(result.rounds[0]?.verdict).toBeUndefined()
    expect(result.rounds[0]?.refused).toHaveLength(2)
  })

  it('asks a binding critic for the provider JSON mode in json-schema mode', async () => {
    const { target, asked } = scripted({ writer: ['Draft.'], critic: [verdict('accept')] })
    await defineReflection({ drafter: target('writer'), critic: target('critic'), mode: 'json-schema' }).run({
      prompt: 'Task',
    })
    expect(asked.critic?.[0]?.responseFormat).toMatchObject({ type: 'json_schema', name: 'Verdict' })
    expect(asked.writer?.[0]?.responseFormat).toBeUndefined()
  })

  it('uses custom prompts, with the verdict instructions added to the critique', async () => {
    const { target, asked } = scripted({
      writer: ['v1', 'v2'],
      critic: [verdict('revise', 'x'), verdict('accept')],
    })
    const prompts = {
      draft: ({ task }: { task: readonly unknown[] }) => [
        { role: 'user' as const, content: `DRAFT ${task.length}` },
      ],
      critique: ({ draft }: { draft: string }) => [{ role: 'user' as const, content: `REVIEW ${draft}` }],
      revise: ({ issues }: { issues: readonly string[] }) => [
        { role: 'user' as const, content: `FIX ${issues.join()}` },
      ],
    }
    await defineReflection({ drafter: target('writer'), critic: target('critic'), prompts }).run({
      prompt: 'Task',
    })
    expect(asked.writer?.map(lastText)).toEqual(['DRAFT 1', 'FIX x'])
    const critique = asked.critic?.[0] as ModelRequest
    expect(critique.messages[0]?.role).toBe('system')
    expect(critique.messages[0]?.content).toContain('"decision"')
    expect(lastText(critique)).toBe('REVIEW v1')

    const broken = defineReflection({
      drafter: target('writer'),
      critic: target('critic'),
      prompts: { critique: () => [] },
    })
    const result = await broken.run({ prompt: 'Task', draft: 'x' })
    expect(result.reason === 'error' && InvalidOutputError.isInstance(result.error)).toBe(true)
    const thenable = defineReflection({
      drafter: target('writer'),
      critic: target('critic'),
      prompts: { critique: (() => Promise.resolve([])) as never },
    })
    const refused = await thenable.run({ prompt: 'Task', draft: 'x' })
    expect(refused.reason).toBe('error')
  })

  it('reports each round as it completes, in order', async () => {
    const { target } = scripted({ writer: ['a', 'b'], critic: [verdict('revise', 'x'), verdict('accept')] })
    const seen: number[] = []
    const result = await defineReflection({ drafter: target('writer'), critic: target('critic') }).run({
      prompt: 'Task',
      onRound: (round) => void seen.push(round.round),
    })
    expect(seen).toEqual([1, 2])
    expect(result.reason).toBe('accepted')
  })
})

describe('defineReflection: budgets and cancellation', () => {
  it('stops on the attempt budget before a call it has no room for, counting attempts per round', async () => {
    const { target, asked } = scripted(
      { writer: ['a', 'b', 'c'], critic: [verdict('revise', 'again')] },
      { repeatLast: true },
    )
    const attemptBudget = new AttemptBudget(3)
    const result = await defineReflection({
      drafter: target('writer'),
      critic: target('critic'),
      maxRounds: 5,
    }).run({ prompt: 'Task' }, { attemptBudget })
    expect(result.reason).toBe('attempt-limit')
    expect(result.attempts).toBe(3)
    expect(attemptBudget.used).toBe(3)
    // Round 2 wrote its revision but had no attempt left for the verdict.
    expect(result.rounds.map((round) => [round.attempts, round.verdict?.decision])).toEqual([
      [2, 'revise'],
      [1, undefined],
    ])
    expect(result.output).toBe('b')
    expect(asked.critic).toHaveLength(1)
  })

  it('stops on the token budget: spent, or the next call estimated not to fit', async () => {
    const { target } = scripted(
      { writer: [withUsage('draft', 40)], critic: [withUsage(verdict('revise', 'more'), 40)] },
      { repeatLast: true },
    )
    const reflection = defineReflection({
      drafter: target('writer'),
      critic: target('critic'),
      maxRounds: 10,
      maxTokens: 1_000,
      estimateTokens: () => 5,
    })
    const result = await reflection.run({ prompt: 'Task', maxTokens: 100 })
    // 40 + 40 + 40 = 120 > 100 would not fit: after the revision (80 + 5 <= 100) the critic's 120 + 5 does not.
    expect(result.reason).toBe('token-limit')
    expect(result.usage.totalTokens).toBe(120)
    expect(result.rounds.map((round) => round.usage.totalTokens)).toEqual([80, 40])
    expect(reflection.maxTokens).toBe(1_000)

    const estimated = await defineReflection({
      drafter: target('writer'),
      critic: target('critic'),
      maxTokens: 50,
      estimateTokens: () => 60,
    }).run({ prompt: 'Task' })
    expect(estimated.reason).toBe('token-limit')
    expect(estimated.rounds).toEqual([])
    expect(estimated.output).toBeUndefined()

    const bad = await defineReflection({
      drafter: target('writer'),
      critic: target('critic'),
      maxTokens: 50,
      estimateTokens: () => Number.NaN,
    }).run({ prompt: 'Task' })
    expect(bad.reason === 'error' && InvalidOutputError.isInstance(bad.error)).toBe(true)
  })

  it("estimates with the loop kit's estimateTokens by default (imported by the first run with a token budget)", async () => {
    const { target } = scripted(
      { writer: [withUsage('draft', 40)], critic: [withUsage(verdict('revise', 'more'), 40)] },
      { repeatLast: true },
    )
    const steps = { drafter: target('writer'), critic: target('critic'), maxRounds: 10 }
    const summary = (result: Awaited<ReturnType<ReturnType<typeof defineReflection>['run']>>) => ({
      reason: result.reason,
      usage: result.usage,
      rounds: result.rounds.map((round) => round.usage.totalTokens),
    })
    // the estimate decides where each run stops: before the draft, before the first verdict, in round 2, 3, 4
    const seen = new Set<string>()
    for (const maxTokens of [1, 20, 300, 400, 500]) {
      const [byDefault, explicit] = await Promise.all([
        defineReflection({ ...steps, maxTokens }).run({ prompt: 'Task' }),
        defineReflection({ ...steps, maxTokens, estimateTokens }).run({ prompt: 'Task' }),
      ])
      expect(summary(byDefault)).toEqual(summary(explicit))
      expect(byDefault.reason).toBe('token-limit')
      seen.add(JSON.stringify(summary(byDefault).rounds))
    }
    expect(seen.size).toBe(5)
  })

  it('stops on the signal: before any call when already cancelled, or during a step', async () => {
    const controller = new AbortController()
    const { target, asked } = scripted({
      writer: ['draft'],
      critic: [
        (_request, context) =>
          new Promise<string>((_resolve, reject) => {
            context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true })
            controller.abort(new Error('user left'))
          }),
      ],
    })
    const reflection = defineReflection({ drafter: target('writer'), critic: target('critic') })
    const result = await reflection.run({ prompt: 'Task' }, { signal: controller.signal })
    expect(result.reason).toBe('stopped')
    expect(result.output).toBe('draft')
    expect(result.rounds[0]?.verdict).toBeUndefined()

    const before = await reflection.run({ prompt: 'Task' }, { signal: AbortSignal.abort() })
    expect(before.reason).toBe('stopped')
    expect(asked.writer).toHaveLength(1)
  })
})

describe('defineReflection: loop agents as steps', () => {
  it('runs an agent drafter and an agent critic that uses a tool; corrections re-run the critic', async () => {
    const checks: string[] = []
    const wordCount = defineModelTool<{ text: string }, number>({
      id: 'word_count',
      description: 'Counts words',
      inputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
      execute: ({ text }) => {
        checks.push(text)
        return text.split(/\s+/).length
      },
    })
    const drafter = defineAgent({
      model: createScriptedModel([{ text: 'one two three four five' }, { text: 'one two three' }]),
    })
    const critic = defineAgent({
      model: createScriptedModel([
        (request) => ({ toolCalls: [{ name: 'word_count', input: { text: draftOf(request) } }] }),
        { text: 'not json' },
        { text: verdict('revise', 'At most three words.') },
        (request) => ({ toolCalls: [{ name: 'word_count', input: { text: draftOf(request) } }] }),
        { text: verdict('accept') },
      ]),
      tools: [wordCount],
    })
    const attemptBudget = new AttemptBudget(20)
    const result = await defineReflection({ drafter, critic }).run(
      { prompt: 'Three words, please.' },
      { attemptBudget },
    )
    expect(result.reason).toBe('accepted')
    expect(result.output).toBe('one two three')
    expect(checks).toEqual(['one two three four five', 'one two three'])
    expect(result.rounds[0]?.refused.map((attempt) => attempt.text)).toEqual(['not json'])
    // Every model call of every agent run was metered by the one budget.
    expect(attemptBudget.used).toBe(7)
    expect(result.attempts).toBe(7)
    expect(result.usage.totalTokens).toBeGreaterThan(0)
  })

  it('a critic agent whose answer flow is the verdict schema', async () => {
    const { target } = scripted({ writer: ['Draft.'] })
    const critic = defineAgent({
      model: createScriptedModel([
        { text: '{"decision": "revise", "issues": []}' },
        { text: '```json\n{"decision": "accept", "issues": []}\n```' },
      ]),
      answer: structuredAnswer({ output: reflectionVerdictOutput() }),
    })
    const reflection = defineReflection({ drafter: target('writer'), critic })
    const result = await reflection.run({ prompt: 'Task' })
    expect(result.reason).toBe('accepted')
    // The agent corrected itself inside its run; the reflection saw one verdict.
    expect(result.rounds[0]?.refused).toEqual([])
    expect(reflection.verdict.name).toBe('Verdict')
  })

  it('an agent step that ends without an answer fails the reflection with a typed error and its usage', async () => {
    const { target } = scripted({ writer: ['Draft.'] })
    const looping = defineAgent({
      model: createScriptedModel([{ toolCalls: [{ name: 'word_count', input: {} }] }]),
      tools: [defineModelTool({ id: 'word_count', description: 'x', inputSchema: {}, execute: () => 1 })],
      maxTurns: 1,
    })
    const result = await defineReflection({ drafter: target('writer'), critic: looping }).run({
      prompt: 'Task',
    })
    expect(result.reason).toBe('error')
    if (result.reason !== 'error') return
    expect(ReflectionStepError.isInstance(result.error)).toBe(true)
    expect((result.error as ReflectionStepError).details).toEqual({
      step: 'critic',
      round: 1,
      reason: 'turn-limit',
    })
    expect(result.usage.totalTokens).toBeGreaterThan(0)
  })

  it('a cancelled agent step ends the reflection as stopped', async () => {
    const controller = new AbortController()
    const drafter = defineAgent({
      model: createScriptedModel([
        () => {
          controller.abort(new Error('bye'))
          return { text: 'late' }
        },
      ]),
    })
    const { target } = scripted({ critic: [verdict('accept')] })
    const result = await defineReflection({ drafter, critic: target('critic') }).run(
      { prompt: 'Task' },
      { signal: controller.signal },
    )
    expect(result.reason).toBe('stopped')
    expect(result.rounds).toEqual([])
  })
})

describe('defineReflection: diagnostics', () => {
  it('a reflection span holds a span per round, the structured-output span and the model calls', async () => {
    const memory = new MemoryDiagnosticSink()
    const { target } = scripted({ writer: ['a', 'b'], critic: [verdict('revise', 'x'), verdict('accept')] })
    await defineReflection({ drafter: target('writer'), critic: target('critic') }).run(
      { prompt: 'Task' },
      { diagnostics: memory.sink },
    )
    const [run] = memory.ofKind('reflection-start')
    const rounds = memory.ofKind('reflection-round-start')
    expect(rounds.map((event) => [event.data.round, event.parentSpanId === run?.spanId])).toEqual([
      [1, true],
      [2, true],
    ])
    const critiques = memory.ofKind('structured-output-start')
    expect(critiques.map((event) => rounds.some((round) => round.spanId === event.parentSpanId))).toEqual([
      true,
      true,
    ])
    const calls = memory.ofKind('model-call-start')
    expect(calls).toHaveLength(4)
    const end = memory.ofKind('reflection-end')[0]
    expect(end?.data).toMatchObject({ outcome: 'ok', reason: 'accepted', rounds: 2 })
    expect(end?.scope).toEqual(['reflection'])
    const starts = memory.events.filter((event) => event.kind.endsWith('-start')).length
    expect(memory.events.filter((event) => event.kind.endsWith('-end'))).toHaveLength(starts)
  })

  it('a stopped run ends its spans as aborted', async () => {
    const memory = new MemoryDiagnosticSink()
    const { target } = scripted({ writer: ['a'], critic: [verdict('accept')] })
    const result = await defineReflection({ drafter: target('writer'), critic: target('critic') }).run(
      { prompt: 'Task' },
      { diagnostics: memory.sink, signal: AbortSignal.abort(new AbortedError('gone')) },
    )
    expect(result.reason).toBe('stopped')
    expect(memory.ofKind('reflection-end')[0]?.data.outcome).toBe('aborted')
    expect(memory.ofKind('reflection-round-end')[0]?.data.outcome).toBe('aborted')
  })
})

/** The draft in a default critique request. */
function draftOf(request: ModelRequest): string {
  const text = [...request.messages].reverse().find((message) => message.role === 'user')?.content
  const match = typeof text === 'string' ? /## Draft to review \(round \d+\)\n([\s\S]*)$/.exec(text) : null
  return match?.[1] ?? ''
}
