import { describe, expect, it } from 'vitest'
import { REFLECTION_VERDICT_SCHEMA, reflectionVerdictOutput } from './index.js'

describe('the verdict contract', () => {
  const output = reflectionVerdictOutput()

  it.each([
    ['{"decision": "accept", "issues": []}', { decision: 'accept', issues: [] }],
    ['{"decision": "accept"}', { decision: 'accept', issues: [] }],
    [
      '{"decision": "accept", "issues": ["minor: a comma"]}',
      { decision: 'accept', issues: ['minor: a comma'] },
    ],
    [
      '```json\n{"decision": "revise", "issues": ["Cite the source."], "score": 3}\n```',
      { decision: 'revise', issues: ['Cite the source.'] },
    ],
  ])('reads %s', async (text, value) => {
    expect(await output.parse(text)).toEqual({ ok: true, value })
  })

  it.each([
    ['{"decision": "maybe", "issues": []}', ['/decision']],
    ['{"decision": "revise", "issues": []}', ['/issues']],
    ['{"decision": "revise"}', ['/issues']],
    ['{"decision": "revise", "issues": ["ok", "  ", 3]}', ['/issues/1', '/issues/2']],
    ['{"decision": "accept", "issues": "none"}', ['/issues']],
    ['["accept"]', ['/']],
    ['not json at all', ['/']],
  ])('refuses %s at %j', async (text, paths) => {
    const parsed = await output.parse(text)
    expect(parsed.ok).toBe(false)
    if (!parsed.ok) expect(parsed.issues.map((issue) => issue.path)).toEqual(paths)
  })

  it('shows the model a schema strict provider modes accept, and the models kit contract around it', () => {
    expect(output.name).toBe('Verdict')
    expect(output.jsonSchema).toBe(REFLECTION_VERDICT_SCHEMA)
    expect(output.instructions).toContain('"decision"')
    expect(output.responseFormat('json-schema')).toMatchObject({ type: 'json_schema', name: 'Verdict' })
    const shown = REFLECTION_VERDICT_SCHEMA as { readonly properties: Record<string, object> }
    expect(Object.isFrozen(shown.properties.issues)).toBe(true)
    expect(reflectionVerdictOutput({ maxCorrections: 3 }).maxCorrections).toBe(3)
  })
})
