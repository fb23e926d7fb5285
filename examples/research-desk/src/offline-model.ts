/**
 * The offline model: an embedded MockGPT on loopback whose computed reply does what a careful research
 * assistant would, using only what the tools returned. It searches for the question, reads the passages
 * that share enough of the question's terms, and answers with sentences taken from them, each followed by
 * the passage id it came from. When no passage supports an answer it says so and cites nothing. It is
 * extractive (it never writes a sentence of its own about the corpus), deterministic, and reached through
 * the same OpenAI client and loop as any real endpoint.
 */

import { englishAnalyzer } from '@agent-core/kits/search'
import type { MockReply, MockRequestView } from '@agent-core/mock'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import { READ_TOOL, SEARCH_TOOL } from './tools.js'

/** How much of the question a passage must cover to be read, and to be cited. */
const COVERAGE = 0.6
/** The most passages the model reads for one question. */
const MAX_READS = 3
/** The most sentences of the answer. */
const MAX_SENTENCES = 3

/** The answer when nothing in the corpus supports one. */
export const NO_ANSWER = 'I found no passage in the corpus that answers this question, so I cite nothing.'

interface SearchHitView {
  readonly id: string
  readonly headings?: string
  readonly snippet?: string
}

interface PassageView {
  readonly id: string
  readonly headings?: string
  readonly text: string
}

function parse(output: string): unknown {
  try {
    return JSON.parse(output)
  } catch {
    return undefined
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The question's content terms (stemmed, stop words dropped), each once. */
function termsOf(text: string): Set<string> {
  return new Set(englishAnalyzer.analyze(text))
}

/** The share of the question's terms that `text` contains. */
function coverage(question: ReadonlySet<string>, text: string): number {
  if (question.size === 0) return 0
  const terms = termsOf(text)
  let found = 0
  for (const term of question) if (terms.has(term)) found++
  return found / question.size
}

/** Sentences of a Markdown passage, without headings, code fences or list markers. */
function sentencesOf(text: string): string[] {
  const prose = text
    .replace(/```[\s\S]*?(```|$)/g, ' ')
    .split('\n')
    .filter((line) => !/^\s*(#|\||<!--)/.test(line))
    .map((line) => line.replace(/^\s*([-*+]|\d+\.)\s+/, ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
  return prose
    .split(/(?<=[.!?])\s+(?=[A-Z`*_(["'])/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length >= 20 && sentence.length <= 600)
}

/** The question: the first user message (later user messages are the desk's instructions). */
function questionOf(request: MockRequestView): string {
  return request.messages.find((message) => message.role === 'user')?.text ?? request.lastUserMessage
}

/** Composes the answer from the passages read: the best sentences, each cited. */
function compose(question: ReadonlySet<string>, passages: readonly PassageView[]): string {
  const supporting = passages.filter(
    (passage) => coverage(question, `${passage.headings ?? ''} ${passage.text}`) >= COVERAGE,
  )
  if (supporting.length === 0) return NO_ANSWER
  const scored: { sentence: string; id: string; score: number; order: number }[] = []
  supporting.forEach((passage, rank) => {
    sentencesOf(passage.text).forEach((sentence, index) => {
      const score = coverage(question, sentence)
      if (score > 0) scored.push({ sentence, id: passage.id, score, order: rank * 1000 + index })
    })
  })
  if (scored.length === 0) return NO_ANSWER
  const best = Math.max(...scored.map((entry) => entry.score))
  const chosen = scored
    .filter((entry) => entry.score >= Math.max(0.5, best * 0.6))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, MAX_SENTENCES)
    .sort((a, b) => a.order - b.order)
  // One citation after each run of sentences from the same passage.
  return chosen
    .map((entry, i) => (chosen[i + 1]?.id === entry.id ? entry.sentence : `${entry.sentence} [${entry.id}]`))
    .join(' ')
}

/**
 * The offline model's next reply for a conversation: search, read what looks relevant, answer. A read the
 * user refused with an instruction becomes a new search for that instruction.
 */
export function offlineReply(request: MockRequestView): MockReply {
  const questionText = questionOf(request)
  const question = termsOf(questionText)
  const searched = new Set<string>()
  const attempted = new Set<string>()
  const hits: SearchHitView[] = []
  const read: PassageView[] = []
  let redirect: string | undefined
  for (const result of request.toolResults) {
    const output = parse(result.output)
    const input = parse(result.arguments)
    if (result.name === SEARCH_TOOL && isRecord(input) && typeof input.query === 'string') {
      searched.add(input.query)
      if (isRecord(output) && Array.isArray(output.hits)) hits.push(...(output.hits as SearchHitView[]))
    } else if (result.name === READ_TOOL && isRecord(input) && typeof input.id === 'string') {
      attempted.add(input.id)
      if (isRecord(output) && typeof output.text === 'string') read.push(output as unknown as PassageView)
      else if (isRecord(output) && output.refused === true && typeof output.instruction === 'string')
        redirect = output.instruction
    }
  }
  if (searched.size === 0) {
    return {
      type: 'tool-calls',
      calls: [{ name: SEARCH_TOOL, arguments: { query: questionText, limit: 5 } }],
    }
  }
  if (redirect !== undefined && !searched.has(redirect)) {
    return { type: 'tool-calls', calls: [{ name: SEARCH_TOOL, arguments: { query: redirect, limit: 5 } }] }
  }
  // A person's instruction replaces the question's terms: it says what to look for instead.
  const terms = redirect === undefined ? question : termsOf(redirect)
  const fresh = hits
    .filter((hit, index) => hits.findIndex((other) => other.id === hit.id) === index)
    .filter((hit) => !attempted.has(hit.id))
  const covering = (share: number) =>
    fresh.filter((hit) => coverage(terms, `${hit.headings ?? ''} ${hit.snippet ?? ''}`) >= share)
  // The passages that cover most of the question; when none does and nothing was read yet, the best
  // one that covers some of it.
  const strong = covering(COVERAGE)
  const fallback = attempted.size === 0 ? covering(COVERAGE / 2).slice(0, 1) : []
  const worth = (strong.length > 0 ? strong : fallback).slice(0, Math.max(0, MAX_READS - attempted.size))
  if (worth.length > 0 && request.turn < 4) {
    return {
      type: 'tool-calls',
      calls: worth.slice(0, 2).map((hit) => ({ name: READ_TOOL, arguments: { id: hit.id } })),
    }
  }
  return { type: 'text', text: compose(terms, read) }
}

/** The embedded offline model's server. */
export interface OfflineModelServer {
  readonly baseURL: string
  readonly apiKey: string
  readonly model: string
  close(): Promise<void>
}

/**
 * Starts the offline model on loopback (a free port). `streamDelayMs` slows each streamed token down, so
 * the answer arrives the way a real model's does.
 */
export async function startOfflineModel(options: { streamDelayMs: number }): Promise<OfflineModelServer> {
  const apiKey = 'sk-research-desk-offline'
  const server: MockGPTServer = await startMockGPTServer({
    apiKey,
    seed: 1,
    unref: true,
    journal: { maxEntries: 16 },
    script: [
      {
        label: 'research desk (offline model)',
        times: Number.POSITIVE_INFINITY,
        reply: offlineReply,
        ...(options.streamDelayMs > 0
          ? { faults: [{ type: 'slow-chunks', delayMs: options.streamDelayMs }] }
          : {}),
      },
    ],
  })
  return { baseURL: server.baseURL, apiKey, model: 'research-desk-offline', close: () => server.close() }
}
