/**
 * Agents whose tools and question tools take zod, valibot or arktype schemas: the model is sent each
 * library's JSON Schema, calls and answers are validated by the library itself.
 */
import { defineModelTool } from '@agent-core/core/tools'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createScriptedModel, defineAgent, defineQuestionTool } from './index.js'
import { EventLog } from './internal/testing/fixtures.js'

const weatherInputs = {
  zod: z.object({ city: z.string().min(1) }),
  valibot: toStandardJsonSchema(v.object({ city: v.pipe(v.string(), v.minLength(1)) })),
  arktype: type({ city: 'string > 0' }),
}

describe.each(Object.entries(weatherInputs))('an agent with a %s tool', (_vendor, inputSchema) => {
  const seen: string[] = []
  const weather = defineModelTool({
    id: 'get_weather',
    description: 'Current weather in a city',
    inputSchema: inputSchema as typeof weatherInputs.zod,
    execute: ({ city }) => {
      seen.push(city)
      return `19 °C in ${city}`
    },
  })

  it('sends the JSON Schema as the parameters, runs the tool with the validated input', async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'get_weather', input: { city: 'Lisbon' } }] },
      { text: 'Sunny.' },
    ])
    const result = await defineAgent({ model, tools: [weather] }).run({ prompt: 'Weather in Lisbon?' })
    expect(result.reason).toBe('final')
    expect(seen.at(-1)).toBe('Lisbon')
    const parameters = model.calls[0]?.tools?.[0]?.parameters as Record<string, unknown>
    expect(parameters).toMatchObject({ type: 'object', properties: { city: { type: 'string' } } })
    expect(parameters).not.toHaveProperty('$schema')
  })

  it("a refused call is a failure the model reads, with the library's issue", async () => {
    const model = createScriptedModel([
      { toolCalls: [{ name: 'get_weather', input: { city: 42 } }] },
      { text: 'Sorry.' },
    ])
    const log = new EventLog()
    await defineAgent({ model, tools: [weather] }).run({ prompt: 'x', onEvent: log.onEvent })
    const failed = log.of('tool-failed')[0]
    expect(failed?.error).toMatchObject({ code: 'invalid-input' })
    expect(JSON.stringify(model.calls[1]?.messages)).toContain('/city')
  })
})

describe('question tools with a Standard Schema answer', () => {
  const choose = defineQuestionTool({
    id: 'choose_account',
    description: 'Asks which account to use',
    inputSchema: z.object({ options: z.array(z.string()) }),
    answerSchema: z.object({ account: z.enum(['checking', 'savings']) }),
    question: ({ options }) => `Which account: ${options.join(' or ')}?`,
  })

  it('shows the JSON Schema of the answer and checks answers with zod', async () => {
    expect(choose.answerSchema).toMatchObject({
      type: 'object',
      required: ['account'],
      properties: { account: { enum: ['checking', 'savings'] } },
    })
    const model = createScriptedModel([
      { toolCalls: [{ name: 'choose_account', input: { options: ['checking', 'savings'] } }] },
      { text: 'Using savings.' },
    ])
    const result = await defineAgent({ model, tools: [choose] }).run({
      prompt: 'pay',
      answerQuestion: (call) => {
        expect(call.answerSchema).toEqual(choose.answerSchema)
        return { type: 'answer', value: { account: 'savings' } }
      },
    })
    expect(result.reason).toBe('final')
    const refused = await defineAgent({
      model: createScriptedModel([
        { toolCalls: [{ name: 'choose_account', input: { options: ['checking'] } }] },
        { text: 'ok' },
      ]),
      tools: [choose],
    }).run({
      prompt: 'pay',
      answerQuestion: () => ({ type: 'answer', value: { account: 'gold' } }),
    })
    expect(refused.reason).toBe('error')
    expect(refused.reason === 'error' && refused.error).toMatchObject({ code: 'invalid-output' })
    expect(String(refused.reason === 'error' && (refused.error as Error).message)).toContain('/account')
  })

  it('a valibot answer schema without a converter is a definition error naming what to pass', () => {
    expect(() =>
      defineQuestionTool({
        id: 'confirm',
        description: 'Asks to confirm',
        inputSchema: {},
        answerSchema: v.boolean(),
        question: () => 'Sure?',
      }),
    ).toThrow(/toStandardJsonSchema/)
  })
})
