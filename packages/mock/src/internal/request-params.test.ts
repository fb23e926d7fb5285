import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CHAT_PARAMS, type ParamRule, RESPONSES_PARAMS } from './request-params.js'

const require = createRequire(import.meta.url)
/** The installed openai package's folder (its exports map hides package.json; index.js sits at the root). */
const openaiRoot = dirname(require.resolve('openai'))

/** The doc comment and declared type of each top-level field of `interface name` in a .d.ts file. */
function fieldsOf(file: string, name: string): Map<string, { doc: string; type: string }> {
  const text = readFileSync(join(openaiRoot, file), 'utf8')
  const start = text.indexOf(`export interface ${name} {`)
  expect(start, `${name} in ${file}`).toBeGreaterThanOrEqual(0)
  const end = text.indexOf('\n}\n', start)
  const body = text.slice(start, end)
  const out = new Map<string, { doc: string; type: string }>()
  const field = /\/\*\*([\s\S]*?)\*\/\s*\n {4}([a-z_]+)\??: /g
  for (let m = field.exec(body); m; m = field.exec(body)) {
    // The type runs to the first \`;\` outside braces, brackets, parentheses and angle brackets.
    const from = m.index + m[0].length
    let depth = 0
    let i = from
    for (; i < body.length; i++) {
      const c = body[i]
      if (c === '{' || c === '[' || c === '(' || c === '<') depth++
      else if (c === '}' || c === ']' || c === ')' || c === '>') depth--
      else if (c === ';' && depth === 0) break
    }
    out.set(m[2] as string, { doc: m[1] as string, type: body.slice(from, i) })
  }
  return out
}

/** Every "between A and B" range the SDK documents for a field. */
function documentedRange(doc: string): [number, number] | undefined {
  const m = /between (-?\d+(?:\.\d+)?) and (-?\d+(?:\.\d+)?)/.exec(doc.replace(/\s*\*\s*/g, ' '))
  return m ? [Number(m[1]), Number(m[2])] : undefined
}

function check(
  table: Readonly<Record<string, ParamRule>>,
  fields: Map<string, { doc: string; type: string }>,
) {
  let ranged = 0
  for (const [key, { doc, type }] of fields) {
    const rule = table[key]
    expect(rule, key).toBeDefined()
    if (!rule || rule.type === 'any') continue
    // Nullable exactly where the SDK type admits null.
    if ('nullable' in rule || type.includes('| null'))
      expect(Boolean((rule as { nullable?: boolean }).nullable), key).toBe(type.includes('| null'))
    const range = documentedRange(doc)
    if (range && (rule.type === 'number' || rule.type === 'integer')) {
      expect([rule.min, rule.max], key).toEqual(range)
      ranged++
    }
    if (rule.type === 'enum') {
      for (const value of rule.values)
        expect(
          type.includes(`'${value}'`) || type.includes('Shared.') || type.includes('ServiceTier'),
          `${key} ${value}`,
        ).toBe(true)
    }
  }
  return ranged
}

describe('request parameter rules agree with the installed openai SDK', () => {
  it('chat completions: types, nullability and documented ranges', () => {
    const ranged = check(
      CHAT_PARAMS,
      fieldsOf('resources/chat/completions/completions.d.ts', 'ChatCompletionCreateParamsBase'),
    )
    expect(ranged).toBeGreaterThanOrEqual(4) // temperature, frequency/presence penalty, top_logprobs
  })

  it('responses: types, nullability and documented ranges', () => {
    const ranged = check(
      RESPONSES_PARAMS,
      fieldsOf('resources/responses/responses.d.ts', 'ResponseCreateParamsBase'),
    )
    expect(ranged).toBeGreaterThanOrEqual(2)
  })
})
