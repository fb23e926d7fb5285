/**
 * The offline model's search strategy, one reply at a time: a conversation is replayed into the
 * request view MockGPT gives the computed reply, and each reply is checked for what a careful research
 * assistant does next. (desk.test.ts runs the whole desk with it; this pins the steps.)
 */
import type { MockReply, MockRequestView } from '@agent-core/mock'
import { describe, expect, it } from 'vitest'
import { NO_ANSWER, offlineReply } from './src/offline-model.js'
import { READ_TOOL, SEARCH_TOOL } from './src/tools.js'

interface Step {
  readonly name: string
  readonly arguments: Record<string, unknown>
  readonly output: unknown
}

/** The request view after `question` and the tool calls of `steps` (one per assistant turn). */
function view(question: string, steps: readonly Step[]): MockRequestView {
  const toolResults = steps.map((step, i) => ({
    callId: `call-${i}`,
    name: step.name,
    arguments: JSON.stringify(step.arguments),
    output: JSON.stringify(step.output),
  }))
  return {
    endpoint: 'chat.completions',
    model: 'research-desk-offline',
    stream: false,
    messages: [{ role: 'user', text: question }],
    lastUserMessage: question,
    toolNames: [SEARCH_TOOL, READ_TOOL],
    toolCalls: toolResults.map(({ callId, name, arguments: args }) => ({ callId, name, arguments: args })),
    toolResults,
    turn: steps.length,
    body: {},
    index: steps.length,
    testId: undefined,
  } as unknown as MockRequestView
}

function calls(reply: MockReply): { name: string; arguments: Record<string, unknown> }[] {
  expect(reply.type).toBe('tool-calls')
  return (reply as unknown as { calls: { name: string; arguments: Record<string, unknown> }[] }).calls
}

const QUESTION = 'How do I make the browser forget a stored value after some seconds?'
const weakHits = {
  hits: [
    {
      id: 'session.md@1#2',
      file: 'session.md',
      headings: 'Sessions',
      snippet: 'Sessions are kept in memory.',
    },
    {
      id: 'cookie.md@1#4',
      file: 'cookie.md',
      headings: 'cookie > Options',
      snippet: 'Options of serialize.',
    },
  ],
}
const keyTermHits = {
  hits: [
    { id: 'cookie.md@1#5', file: 'cookie.md', headings: 'cookie > maxAge', snippet: 'Specifies the number.' },
    { id: 'other.md@1#1', file: 'other.md', headings: 'Other', snippet: 'Nothing here.' },
  ],
}
const inFile = {
  hits: [
    {
      id: 'cookie.md@1#5',
      file: 'cookie.md',
      headings: 'cookie > maxAge',
      snippet: 'Specifies the number (in seconds) for the Max-Age attribute.',
    },
  ],
}
const passage = {
  id: 'cookie.md@1#5',
  file: 'cookie.md',
  lines: '101-109',
  headings: 'cookie > maxAge',
  text: 'Specifies the number (in seconds) to be the value for the Max-Age attribute. The browser drops the stored cookie after that.',
}

describe('the offline model', () => {
  it('searches for the question first', () => {
    expect(calls(offlineReply(view(QUESTION, [])))).toEqual([
      { name: SEARCH_TOOL, arguments: { query: QUESTION, limit: 5 } },
    ])
  })

  it('when the first hits are weak: the key terms, then the best file, then its best passage', () => {
    const first: Step = { name: SEARCH_TOOL, arguments: { query: QUESTION, limit: 5 }, output: weakHits }
    const [again] = calls(offlineReply(view(QUESTION, [first])))
    expect(again).toEqual({
      name: SEARCH_TOOL,
      arguments: { query: 'browser forget stored value seconds', limit: 5 },
    })
    const second: Step = { name: SEARCH_TOOL, arguments: again!.arguments, output: keyTermHits }
    // cookie.md is found by both searches: it is the best file, and the model looks inside it.
    const [inside] = calls(offlineReply(view(QUESTION, [first, second])))
    expect(inside).toEqual({ name: SEARCH_TOOL, arguments: { query: QUESTION, limit: 5, file: 'cookie.md' } })
    const third: Step = { name: SEARCH_TOOL, arguments: inside!.arguments, output: inFile }
    const [read] = calls(offlineReply(view(QUESTION, [first, second, third])))
    expect(read).toEqual({ name: READ_TOOL, arguments: { id: 'cookie.md@1#5' } })
    const reading: Step = { name: READ_TOOL, arguments: read!.arguments, output: passage }
    const answer = offlineReply(view(QUESTION, [first, second, third, reading]))
    expect(answer).toEqual({
      type: 'text',
      // No sentence of it covers half of the question: it is quoted as the closest passage found.
      text: 'No passage answers all of the question; the closest I found, in cookie.md, says: Specifies the number (in seconds) to be the value for the Max-Age attribute. The browser drops the stored cookie after that. [cookie.md@1#5]',
    })
  })

  it('reads the best file’s passages that cover most of the question, wherever they were found', () => {
    const lowInFile = {
      hits: [
        {
          id: 'cookie.md@1#9',
          file: 'cookie.md',
          headings: 'cookie > Options',
          snippet: 'Options of parse.',
        },
        ...inFile.hits,
      ],
    }
    const steps: Step[] = [
      { name: SEARCH_TOOL, arguments: { query: QUESTION, limit: 5 }, output: weakHits },
      {
        name: SEARCH_TOOL,
        arguments: { query: 'browser forget stored value seconds', limit: 5 },
        output: keyTermHits,
      },
      { name: SEARCH_TOOL, arguments: { query: QUESTION, limit: 5, file: 'cookie.md' }, output: lowInFile },
    ]
    // The search inside cookie.md puts #9 first, but #5 (found by the key terms too) covers more.
    expect(calls(offlineReply(view(QUESTION, steps)))).toEqual([
      { name: READ_TOOL, arguments: { id: 'cookie.md@1#5' } },
      { name: READ_TOOL, arguments: { id: 'cookie.md@1#9' } },
    ])
  })

  it('quotes the code lines of a passage that is mostly code, as they are', () => {
    const question = 'How do I run a property with fc.assert and fc.property?'
    const code = {
      id: 'fast-check.md@1#5',
      file: 'fast-check.md',
      lines: '40-52',
      headings: 'Getting started',
      text: "```js\nimport fc from 'fast-check';\n\nfc.assert(\n  fc.property(fc.string(), (text) => contains(text, text)),\n);\n```",
    }
    const steps: Step[] = [
      {
        name: SEARCH_TOOL,
        arguments: { query: question, limit: 5 },
        output: { hits: [{ ...code, snippet: code.text }] },
      },
      { name: READ_TOOL, arguments: { id: code.id }, output: code },
    ]
    const answer = offlineReply(view(question, steps)) as { type: string; text: string }
    expect(answer.type).toBe('text')
    expect(answer.text).toContain('`fc.assert(`')
    expect(answer.text).toContain('`fc.property(fc.string(), (text) => contains(text, text)),`')
    expect(answer.text).toContain('[fast-check.md@1#5]')
    // Only lines of the passage: every quoted piece is in its text.
    for (const piece of answer.text.match(/`[^`]+`/g) ?? []) expect(code.text).toContain(piece.slice(1, -1))
  })

  it('quotes the best file’s passage sharing a fifth of a paraphrase’s terms as the closest, but not one term alone', () => {
    // Ten content terms; the passage holds two of them (copi, permiss): a fifth.
    const question =
      'How do I copy a folder to another place while keeping its permissions and the modification times of old files?'
    const copy = {
      id: 'tar-fs.md@1#7',
      file: 'tar-fs.md',
      lines: '40-48',
      headings: 'tar-fs > Usage',
      text: 'To copy a directory with its permissions, pack it and extract the stream in one go.',
    }
    const hit = { id: copy.id, file: copy.file, headings: copy.headings, snippet: copy.text }
    const steps = (text: string): Step[] => [
      { name: SEARCH_TOOL, arguments: { query: question, limit: 5 }, output: { hits: [hit] } },
      { name: SEARCH_TOOL, arguments: { query: 'copy folder', limit: 5 }, output: { hits: [hit] } },
      {
        name: SEARCH_TOOL,
        arguments: { query: question, limit: 5, file: 'tar-fs.md' },
        output: { hits: [hit] },
      },
      { name: READ_TOOL, arguments: { id: copy.id }, output: { ...copy, text } },
    ]
    expect(offlineReply(view(question, steps(copy.text)))).toEqual({
      type: 'text',
      text: `No passage answers all of the question; the closest I found, in tar-fs.md, says: ${copy.text} [tar-fs.md@1#7]`,
    })
    const once = 'Pack a directory with its permissions and extract the stream in one go.'
    expect(offlineReply(view(question, steps(once)))).toEqual({ type: 'text', text: NO_ANSWER })
  })

  it('cites nothing when even the best passage of the best file shares too little with the question', () => {
    const question = 'What is the capital of France?'
    const steps: Step[] = [
      { name: SEARCH_TOOL, arguments: { query: question, limit: 5 }, output: weakHits },
      { name: SEARCH_TOOL, arguments: { query: 'capital France', limit: 5 }, output: keyTermHits },
      { name: SEARCH_TOOL, arguments: { query: question, limit: 5, file: 'cookie.md' }, output: inFile },
      { name: READ_TOOL, arguments: { id: 'cookie.md@1#5' }, output: passage },
    ]
    expect(offlineReply(view(question, steps))).toEqual({ type: 'text', text: NO_ANSWER })
  })
})

describe('a follow-up in a session', () => {
  const earlier = [
    { role: 'system', text: 'You answer questions.' },
    { role: 'user', text: 'How long does bread bake?' },
    {
      role: 'assistant',
      text: 'Bake the loaf at 230 degrees Celsius for thirty minutes. [guides/baking.md@1#4]',
    },
  ]
  function followUp(question: string, steps: readonly Step[]): MockRequestView {
    const base = view(question, steps)
    return {
      ...base,
      messages: [...earlier, { role: 'user', text: question }],
      turn: steps.length + 1,
    } as unknown as MockRequestView
  }
  const oven = {
    id: 'guides/baking.md@1#4',
    file: 'guides/baking.md',
    headings: 'Baking bread > Oven',
    snippet: 'Bake the loaf at 230 degrees Celsius for thirty minutes.',
  }
  const ovenText = {
    ...oven,
    text: 'Bake the loaf at 230 degrees Celsius for thirty minutes. The crust is done when the loaf sounds hollow when tapped.',
  }

  it('searches with the earlier question’s key terms when the follow-up carries too little of its own', () => {
    const [search] = calls(offlineReply(followUp('At what temperature?', [])))
    expect(search).toMatchObject({ name: SEARCH_TOOL })
    expect(String(search!.arguments.query)).toMatch(/bread bake At what temperature\?/)
  })

  it('keeps a question that stands on its own as it is', () => {
    const [search] = calls(offlineReply(followUp('Why do sea otters hold hands?', [])))
    expect(search!.arguments.query).toBe('Why do sea otters hold hands?')
  })

  it('answers from what this turn read, citing it (a search that always finds the oven passage)', () => {
    const steps: Step[] = []
    let reply = offlineReply(followUp('At what temperature?', steps))
    while (reply.type === 'tool-calls' && steps.length < 8) {
      for (const call of calls(reply))
        steps.push({
          ...call,
          output: call.name === SEARCH_TOOL ? { hits: [oven] } : ovenText,
        })
      reply = offlineReply(followUp('At what temperature?', steps))
    }
    expect(reply.type).toBe('text')
    const text = (reply as { text: string }).text
    expect(text).toContain('230 degrees Celsius')
    expect(text).toContain(`[${oven.id}]`)
    expect(steps.some((step) => step.name === READ_TOOL)).toBe(true)
  })

  it('does not reuse the tool results of an earlier turn', () => {
    const base = followUp('At what temperature?', [])
    const withOldCall = {
      ...base,
      messages: [
        earlier[0],
        earlier[1],
        { role: 'assistant', text: '', toolCalls: [{ id: 'old-1', name: SEARCH_TOOL, arguments: '{}' }] },
        { role: 'tool', text: '{}', toolCallId: 'old-1' },
        earlier[2],
        { role: 'user', text: 'At what temperature?' },
      ],
      toolResults: [
        {
          callId: 'old-1',
          name: SEARCH_TOOL,
          arguments: '{"query":"bread"}',
          output: JSON.stringify({ hits: [oven] }),
        },
      ],
      turn: 2,
    } as unknown as MockRequestView
    // The old search does not count: this turn starts with its own search.
    const [search] = calls(offlineReply(withOldCall))
    expect(search!.name).toBe(SEARCH_TOOL)
    expect(String(search!.arguments.query)).toContain('At what temperature?')
  })
})
