/**
 * The example's agent: a model on MockGPT (any OpenAI-compatible URL works the same), a tool that
 * reports its progress while it runs (`survey`) and one that needs a person's approval (`publish`).
 */
import { defineModelTool } from '@agent-core/core/tools'
import { type Agent, defineAgent, defineAgentTool } from '@agent-core/kits/loop'
import { createOpenAIChatModel } from '@agent-core/kits/openai'
import type { MockScriptEntry } from '@agent-core/mock'

const SOURCES = ['tide tables', 'harbour notices', 'weather buoys']

/** Reads three sources, one after the other, and says how far along it is after each. */
export const survey = defineModelTool<{ topic: string }, { topic: string; sources: string[] }>({
  id: 'survey',
  description: 'Surveys the sources about a topic',
  inputSchema: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } },
  execute: async ({ topic }, context) => {
    const read: string[] = []
    for (const source of SOURCES) {
      await new Promise((resolve) => setTimeout(resolve, 150))
      read.push(source)
      context.progress({
        message: `Read ${source} (${read.length}/${SOURCES.length})`,
        ratio: read.length / SOURCES.length,
      })
    }
    return { topic, sources: read }
  },
})

/** Publishes a report: every call waits for a person's approval. */
export const publish = defineAgentTool(
  defineModelTool<{ title: string }, string>({
    id: 'publish',
    description: 'Publishes the report on the harbour board',
    inputSchema: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } },
    execute: ({ title }) => `"${title}" is on the harbour board.`,
  }),
  { approval: { type: 'ask', reason: 'Publishing is public: a person approves it.' } },
)

/** What MockGPT answers, by where the conversation is: survey, then publish, then the summary. */
export const SCRIPT: readonly MockScriptEntry[] = [
  {
    label: 'survey',
    times: Number.POSITIVE_INFINITY,
    match: (request) => request.messages.at(-1)?.role === 'user',
    reply: {
      type: 'tool-calls',
      text: 'Let me survey the sources first.',
      calls: [{ name: 'survey', arguments: { topic: 'the spring tides' } }],
    },
  },
  {
    label: 'publish',
    times: Number.POSITIVE_INFINITY,
    match: (request) => request.toolResults.at(-1)?.name === 'survey',
    reply: { type: 'tool-calls', calls: [{ name: 'publish', arguments: { title: 'Spring tides report' } }] },
  },
  {
    label: 'summary',
    times: Number.POSITIVE_INFINITY,
    match: (request) => request.toolResults.at(-1)?.name === 'publish',
    reply: (request) => ({
      type: 'text',
      text: request.toolResults.at(-1)?.output.includes('harbour board')
        ? 'The spring tides report is published on the harbour board.'
        : 'The report was not published: you refused it.',
    }),
  },
]

export function createChatAgent(baseURL: string): Agent {
  return defineAgent({
    model: createOpenAIChatModel({ model: 'gpt-4o-mini', apiKey: 'sk-example', baseURL }),
    tools: [survey, publish],
    system: 'You prepare and publish harbour reports.',
  })
}
