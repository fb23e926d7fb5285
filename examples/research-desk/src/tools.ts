/**
 * The desk's two tools: a hybrid search over the corpus' passages, and reading one passage by id. Every
 * execution is reported to `onExecute` with its invocation id (the run keeps a reading log keyed by it),
 * and a read may need a person's approval.
 */
import { UnknownIdError } from '@agent-core/core'
import { defineModelTool } from '@agent-core/core/tools'
import type { KnowledgePassage } from '@agent-core/kits/knowledge'
import { type AgentToolEntry, defineAgentTool } from '@agent-core/kits/loop'
import { englishAnalyzer } from '@agent-core/kits/search'

export const SEARCH_TOOL = 'search_passages'
export const READ_TOOL = 'read_passage'

/** Where passages come from (the corpus index). */
export interface PassageSource {
  /**
   * The best passages for `query`, best first; only passages of `file` when it is given. A passage may
   * say which of the query's (analyzed) terms it matched (`matched`).
   */
  search(
    query: string,
    limit: number,
    file?: string,
  ): Promise<readonly (KnowledgePassage & { readonly matched?: readonly string[] })[]>
  passage(id: string): Promise<KnowledgePassage | undefined>
  /** How many of the corpus' files hold each of `terms`, when the source knows (see `rarity`). */
  termFiles?(terms: readonly string[]): { readonly corpusFiles: number; readonly files: readonly number[] }
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

/**
 * How much a term says about where the answer is: `log(1 + files / filesHoldingIt)`, 0 for a term no
 * file holds (no passage can match it). A word most files hold weighs little, a rare one much more.
 */
export function rarity(files: number, corpusFiles: number): number {
  return files === 0 ? 0 : Math.log(1 + corpusFiles / files)
}

interface FileEntry {
  file: string
  hits: number
  best: string
  covers: number
  first: number
}

/**
 * The files of `hits`, best first: by how much of the query's rare vocabulary their hits match together
 * (`covers`: the weight of the query terms some hit of the file matched, over the weight of all the
 * query's terms that the corpus holds), then by their best hit's rank. Passages of one file support
 * each other, and a file that matches only common words does not win over one that matches rare ones.
 */
function rankFiles(
  hits: readonly (KnowledgePassage & { readonly matched?: readonly string[] })[],
  weights: ReadonlyMap<string, number>,
): FileEntry[] {
  const total = [...weights.values()].reduce((sum, weight) => sum + weight, 0)
  const files = new Map<string, FileEntry & { terms: Set<string> }>()
  hits.forEach((passage, rank) => {
    let entry = files.get(passage.documentId)
    if (entry === undefined) {
      entry = {
        file: passage.documentId,
        hits: 0,
        best: passage.id,
        covers: 0,
        first: rank,
        terms: new Set(),
      }
      files.set(passage.documentId, entry)
    }
    entry.hits++
    for (const term of passage.matched ?? []) entry.terms.add(term)
  })
  const ranked = [...files.values()].map(({ terms, ...entry }) => {
    let found = 0
    for (const term of terms) found += weights.get(term) ?? 0
    return { ...entry, covers: total > 0 ? Math.round((100 * found) / total) / 100 : 0 }
  })
  return ranked.sort((a, b) => b.covers - a.covers || a.first - b.first)
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
        'line range, headings, the start of the text and `matched` (the query words it holds); `terms`: each',
        "query word with how many of the corpus' `corpusFiles` files hold it (0: no file has that word, so",
        'say it otherwise; in many files: a common word that tells little); and `files`: the files of those',
        "passages, best first by `covers` (how much of the query's rare words their hits hold together).",
        'Strategy: search with the question first. When no hit clearly answers it, search again with its key',
        'terms only (the names, options and rare words, without "how do I"), then search inside the best file',
        '(`file`) for its other passages. Prefer the file that covers the rare words over one that matches',
        'many common ones. Read a passage with read_passage before citing it, and cite the best passage of',
        'the best file.',
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
        const terms = [...new Set(englishAnalyzer.analyze(query))]
        const counts = source.termFiles?.(terms)
        const weights = new Map(
          terms.map((term, i) => [term, counts ? rarity(counts.files[i]!, counts.corpusFiles) : 1]),
        )
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
            ...(passage.matched === undefined ? {} : { matched: passage.matched }),
          })),
          ...(counts === undefined
            ? {}
            : {
                corpusFiles: counts.corpusFiles,
                terms: terms.map((term, i) => ({ term, files: counts.files[i]! })),
              }),
          files: rankFiles(passages, weights).map(({ first: _first, ...entry }) => entry),
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
