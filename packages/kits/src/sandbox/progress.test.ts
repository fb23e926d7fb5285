/** Progress from a script's host calls reaches the code call's own progress events. */
import { defineModelTool } from '@agent-core/core/tools'
import { type AgentEvent, createScriptedModel, defineAgent } from '@agent-core/kits/loop'
import { describe, expect, it } from 'vitest'
import { defineCodeTool } from './index.js'

describe('sandbox host calls report progress', () => {
  it("passes each host tool's reports to the code call, tagged with the host call, in order", async () => {
    const fetchPage = defineModelTool<{ url: string }, string>({
      id: 'fetch_page',
      description: 'Fetches a page',
      inputSchema: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } },
      execute: ({ url }, context) => {
        context.progress({ message: `connecting to ${url}`, ratio: 0.5 })
        context.progress({ message: `read ${url}`, ratio: 1, data: { bytes: url.length } })
        return `<html>${url}</html>`
      },
    })
    const runCode = defineCodeTool({ tools: [fetchPage] })
    const code = `const a = await fetch_page({ url: 'a.test' })
const b = await fetch_page({ url: 'b.test' })
return [a.length, b.length]`
    const events: AgentEvent[] = []
    const result = await defineAgent({
      model: createScriptedModel([
        { toolCalls: [{ id: 'code_1', name: 'run_code', input: { code } }] },
        { text: 'Fetched both.' },
      ]),
      tools: [runCode],
    }).run({ prompt: 'Fetch a and b', onEvent: (e) => void events.push(e) })
    expect(result.reason).toBe('final')
    const progress = events.filter((e) => e.type === 'tool-progress')
    expect(progress).toEqual([
      {
        type: 'tool-progress',
        toolCallId: 'code_1',
        toolId: 'run_code',
        sequence: 1,
        message: 'connecting to a.test',
        ratio: 0.5,
        data: { hostCall: 1, toolId: 'fetch_page' },
      },
      {
        type: 'tool-progress',
        toolCallId: 'code_1',
        toolId: 'run_code',
        sequence: 2,
        message: 'read a.test',
        ratio: 1,
        data: { hostCall: 1, toolId: 'fetch_page', data: { bytes: 6 } },
      },
      {
        type: 'tool-progress',
        toolCallId: 'code_1',
        toolId: 'run_code',
        sequence: 3,
        message: 'connecting to b.test',
        ratio: 0.5,
        data: { hostCall: 2, toolId: 'fetch_page' },
      },
      {
        type: 'tool-progress',
        toolCallId: 'code_1',
        toolId: 'run_code',
        sequence: 4,
        message: 'read b.test',
        ratio: 1,
        data: { hostCall: 2, toolId: 'fetch_page', data: { bytes: 6 } },
      },
    ])
    const resolved = events.findIndex((e) => e.type === 'tool-resolved')
    expect(events.findLastIndex((e) => e.type === 'tool-progress')).toBeLessThan(resolved)
  })
})
