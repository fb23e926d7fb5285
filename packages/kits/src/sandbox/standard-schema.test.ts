import { defineModelTool } from '@agent-core/core/tools'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { describeTools } from './index.js'

describe('describeTools with Standard Schema tools', () => {
  it("declares each tool from its library's JSON Schema", () => {
    const text = describeTools([
      defineModelTool({
        id: 'weather',
        description: 'Weather in a city',
        inputSchema: z.object({ city: z.string(), days: z.number().int().optional() }),
        outputSchema: z.object({ celsius: z.number() }),
        execute: () => ({ celsius: 19 }),
      }),
      defineModelTool({
        id: 'shout',
        description: 'Shouts a word',
        inputSchema: toStandardJsonSchema(v.object({ word: v.string() })),
        execute: ({ word }) => word.toUpperCase(),
      }),
      defineModelTool({
        id: 'add',
        description: 'Adds',
        inputSchema: type({ a: 'number', b: 'number' }),
        execute: ({ a, b }) => a + b,
      }),
    ])
    expect(text).toMatch(
      /declare function weather\(input: \{[^}]*city: string;[^}]*days\?: number;[^}]*\}\): Promise<\{[^}]*celsius: number;[^}]*\}>/s,
    )
    expect(text).toMatch(/declare function shout\(input: \{[^}]*word: string;[^}]*\}\): Promise<unknown>/s)
    expect(text).toMatch(/declare function add\(input: \{[^}]*a: number;[^}]*b: number;[^}]*\}\)/s)
  })
})
