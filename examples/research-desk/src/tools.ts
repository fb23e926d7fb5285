/**
 * The desk's two tools: a hybrid search over the corpus' passages, and reading one passage by id. Every
 * execution is reported to `onExecute` with its invocation id (the run keeps a reading log keyed by it),
 * and a read may need a person's approval.
 */
import { UnknownIdError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import type { KnowledgePassage } from '@agent-core/kits/knowledge'
import { type AgentToolEntry, defineAgentTool } from '@agent-core/kits/loop'

export const SEARCH_TOOL = 'search_passages'
export const READ_TOOL = 'read_passage'

/** Where passages come from (the corpus index). */
export interface PassageSource {
  /** The best passages for `query`, best first; only passages of `file` when it is given. */
  search(query: string, limit: number, file?: string): Promise<readonly KnowledgePassage[]>
  passage(id: string): Promise<KnowledgePassage | undefined>
}

/** One tool execution, as the run's reading log records it. */
export interface ToolExecution {
  readonly invocationId: string
  readonly tool: string
  readonly input: string
}

const SNIPPET_CHARS = 320

function headings(passage: KnowledgePassage): string {
  return passage.headingPath.join(' > ')
}

function lines(passage: KnowledgePassage): string {
  return `${passage.startLine}-${passage.endLine}`
}

/** The search tool and the read tool over `source`; reads ask first when `askBeforeReading`. */
export function deskTools(options: {
  source: PassageSource
  askBeforeReading: boolean
  onExecute: (execution: ToolExecution) => void
}): AgentToolEntry[] {
  const { source, onExecute } = options
  const search = defineAgentTool(
    defineModelTool<{ query: string; limit?: number; file?: string }, unknown>({
      id: SEARCH_TOOL,
      description: [
        'Searches the corpus (keywords and meaning) and returns the best passages, best first: id, file,',
        'line range, headings and the start of the text, and `files`: the files those passages come from,',
        'best first, with how many of the hits each holds (a file several hits agree on is likely the one).',
        'Strategy: search with the question first. When no hit clearly answers it, search again with its key',
        'terms only (the names, options and rare words, without "how do I"), then search inside the best file',
        '(`file`) for its other passages. Read a passage with read_passage before citing it, and cite the',
        'best passage of the best file.',
      ].join(' '),
      inputSchema: {
        type: 'object',
        required: ['query'],
        additionalProperties: false,
        properties: {
          query: { type: 'string', minLength: 1, description: 'What to look for, in words' },
          limit: { type: 'integer', minimum: 1, maximum: 10, description: 'How many passages (default 5)' },
          file: {
            type: 'string',
            minLength: 1,
            description: 'Only passages of this file (a `file` of an earlier hit), to read more of it',
          },
        },
      },
      execute: async ({ query, limit, file }, { invocationId }) => {
        onExecute({
          invocationId,
          tool: SEARCH_TOOL,
          input: JSON.stringify(file === undefined ? { query, limit } : { query, limit, file }),
        })
        const passages = await source.search(query, limit ?? 5, file)
        const files = new Map<string, { file: string; hits: number; best: string }>()
        for (const passage of passages) {
          const entry = files.get(passage.documentId)
          if (entry === undefined)
            files.set(passage.documentId, { file: passage.documentId, hits: 1, best: passage.id })
          else entry.hits++
        }
        return {
          query,
          ...(file === undefined ? {} : { file }),
          hits: passages.map((passage) => ({
            id: passage.id,
            file: passage.documentId,
            lines: lines(passage),
            headings: headings(passage),
            snippet:
              passage.text.length > SNIPPET_CHARS ? `${passage.text.slice(0, SNIPPET_CHARS)}…` : passage.text,
          })),
          files: [...files.values()],
        }
      },
    }),
    // A search has no effect: a call cut short by a crash simply runs again.
    { replayPolicy: 'safe' },
  )
  const read = defineAgentTool(
    defineModelTool<{ id: string }, unknown>({
      id: READ_TOOL,
      description:
        'Reads one passage of the corpus by its id (from search_passages): its whole text, file and line range.',
      inputSchema: {
        type: 'object',
        required: ['id'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', minLength: 1, description: 'A passage id, e.g. "guide.md@1#3"' },
        },
      },
      execute: async ({ id }, { invocationId }) => {
        onExecute({ invocationId, tool: READ_TOOL, input: JSON.stringify({ id }) })
        const passage = await source.passage(id)
        if (passage === undefined) {
          throw new UnknownIdError(
            `No passage "${id}" in the corpus (its file may have changed since the search). Search again and read an id it returns.`,
            { details: { id, kind: 'passage' } },
          )
        }
        return {
          id: passage.id,
          file: passage.documentId,
          lines: lines(passage),
          headings: headings(passage),
          text: passage.text,
        }
      },
    }),
    {
      approval: options.askBeforeReading
        ? (call) => ({ type: 'ask', reason: `Read passage ${String(call.input.id)}?` })
        : 'allow',
    },
  )
  return [search, read]
}
