import { InvalidInputError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import { describe, expect, it } from 'vitest'
import {
  type AgentEvent,
  createScriptedModel,
  defineAgent,
  defineAgentTool,
  describeRun,
  narrate,
  narrationOf,
} from './index.js'

const search = defineModelTool<{ to: string }, string>({
  id: 'search_flights',
  description: 'Finds flights',
  inputSchema: { type: 'object', required: ['to'], properties: { to: { type: 'string' } } },
  execute: ({ to }, context) => {
    context.progress(narrate({ phase: 'Searching flights', goal: `a trip to ${to}` }))
    return `3 flights to ${to}`
  },
})

describe('narration', () => {
  it('travels in tool-progress events, is never read by the model, and describes the run', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'search_flights', input: { to: 'Lyon' } }] },
      { text: 'Found 3.' },
    ])
    const events: AgentEvent[] = []
    const agent = defineAgent({ model, tools: [search] })
    const result = await agent.run({ prompt: 'Fly me', onEvent: (event) => void events.push(event) })
    const narrations = events.map(narrationOf).filter((n) => n !== undefined)
    expect(narrations).toEqual([{ phase: 'Searching flights', goal: 'a trip to Lyon' }])
    expect(JSON.stringify(result.messages)).not.toContain('Searching flights')
    expect(JSON.stringify(model.calls)).not.toContain('Searching flights')
    expect(describeRun(events)).toBe('Searching flights (a trip to Lyon) · done')
    const upToTool = events.slice(0, events.findIndex((e) => e.type === 'tool-progress') + 1)
    expect(describeRun(upToTool)).toBe('Searching flights (a trip to Lyon) · running: search_flights')
    expect(describeRun(result)).toBe('done')
    expect(describeRun(result.state, { narration: { phase: 'Booking' } })).toBe('Booking · done')
    expect(describeRun([])).toBe('starting')
  })

  it('says what a suspended run waits for, from its result, its state as JSON and its events', async () => {
    const refund = defineAgentTool(
      defineModelTool<{ amount: number }, string>({
        id: 'refund',
        description: 'Refunds',
        inputSchema: { type: 'object', properties: { amount: { type: 'number' } } },
        execute: () => 'ok',
      }),
      { approval: 'ask' },
    )
    const model = createScriptedModel([
      { toolCalls: [{ name: 'refund', input: { amount: 5 } }] },
      { text: 'x' },
    ])
    const events: AgentEvent[] = []
    const result = await defineAgent({ model, tools: [refund] }).run({
      prompt: 'Refund',
      defer: true,
      onEvent: (event) => void events.push(event),
    })
    expect(result.reason).toBe('suspended')
    expect(describeRun(result)).toBe('waiting: refund (approval)')
    expect(describeRun(JSON.parse(JSON.stringify(result.state)))).toBe('waiting: refund (approval)')
    expect(describeRun(events)).toBe('waiting: refund (approval)')
  })

  it('describes failures and limits', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'search_flights', input: { to: 'A' } }] },
      { toolCalls: [{ name: 'search_flights', input: { to: 'B' } }] },
    ])
    const result = await defineAgent({ model, tools: [search], maxTurns: 1 }).run({ prompt: 'go' })
    expect(describeRun(result)).toBe('stopped: turn limit reached')
  })

  it('refuses malformed narration and sources with typed errors', () => {
    expect(() => narrate({ phase: '' })).toThrow(InvalidInputError)
    expect(() => narrate({ phase: 'x', goal: 3 } as never)).toThrow(/goal must be a non-empty string/)
    expect(() => narrate({ phase: 'x', steer: 'y' } as never)).toThrow(/steer is not a field/)
    expect(() => narrate({ phase: 'x'.repeat(201) })).toThrow(InvalidInputError)
    expect(() => narrate(null as never)).toThrow(InvalidInputError)
    expect(() => describeRun(42 as never)).toThrow(InvalidInputError)
    expect(() => describeRun({} as never)).toThrow(/result, its saved state or its events/)
    expect(() => describeRun([], { narration: { phase: 1 } } as never)).toThrow(InvalidInputError)
    expect(() => describeRun([], null as never)).toThrow(InvalidInputError)
  })

  it('ignores progress data that is not a narration', () => {
    const event: AgentEvent = {
      type: 'tool-progress',
      toolCallId: 'c',
      toolId: 't',
      sequence: 1,
      data: { narration: { phase: 7 } },
    }
    expect(narrationOf(event)).toBeUndefined()
    expect(narrationOf({ type: 'turn-start', turn: 1 })).toBeUndefined()
  })
})
