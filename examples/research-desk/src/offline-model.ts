/**
 * The offline model: an embedded MockGPT on loopback whose computed reply does what a careful research
 * assistant would, using only what the tools returned. It searches for the question; when no hit covers
 * enough of the question's terms it searches again with the question's key terms only, then looks inside
 * the file the searches agree on for its other passages. It reads the passages that share enough of the
 * question's terms (or, failing that, the two passages of the best file that cover most of it), and
 * answers with sentences taken from them (or, from a passage that is mostly code, its code lines as they
 * are), each followed by the passage id it came from; an answer from a passage that covers only part of
 * the question says that it is the closest passage found. When no passage supports an answer
 * it says so and cites nothing. It is extractive (it never writes a sentence of its own about the
 * corpus), deterministic, and reached through the same OpenAI client and loop as any real endpoint.
 *
 * In a conversation (`--session`), it answers the last question with this turn's tool results only, and
 * reads a follow-up in context: the earlier question's key terms join the search, and the file the earlier
 * answer cited is searched with the follow-up's own words.
 */

import { englishAnalyzer } from '@agent-core/kits/search'
import type { MockReply, MockRequestView } from '@agent-core/mock'
import { type MockGPTServer, startMockGPTServer } from '@agent-core/mock/node'
import { READ_TOOL, SEARCH_TOOL } from './tools.js'

/** How much of the question a passage must cover to be read, and to be cited. */
const COVERAGE = 0.6
/** How much the best passage of the best file must cover to be quoted as the closest passage found. */
const CLOSEST = 0.34
/** How many of the best file's passages are read when no hit covers most of the question. */
const CLOSEST_READS = 2
/** The most passages the model reads for one question. */
const MAX_READS = 3
/** The most sentences of the answer. */
const MAX_SENTENCES = 3

/** The answer when nothing in the corpus supports one. */
export const NO_ANSWER = 'I found no passage in the corpus that answers this question, so I cite nothing.'

interface SearchHitView {
  readonly id: string
  readonly file?: string
  readonly headings?: string
  readonly snippet?: string
  /** The query terms the whole passage matched (the search tool says so when its index does). */
  readonly matched?: readonly string[]
}

interface FileView {
  readonly file: string
  /** How much of the query's rare vocabulary the file's hits hold together (0 to 1). */
  readonly covers?: number
}

/** A question's terms, each with its weight (how rare it is in the corpus; 1 each when unknown). */
type Terms = ReadonlyMap<string, number>

interface PassageView {
  readonly id: string
  readonly file?: string
  readonly headings?: string
  readonly text: string
}

/** What a passage or hit is about, for coverage: its headings and its text. */
function aboutOf(item: { headings?: string }, text: string | undefined): string {
  return `${item.headings ?? ''} ${text ?? ''}`
}

/**
 * The question's key terms as a query: its words that carry content (not stop words, not the question's
 * frame), in their order, each once. "How do I make the browser forget a cookie?" becomes "make browser
 * forget cookie": a few bare keywords, which the index ranks text-first.
 */
function keyTermsOf(text: string): string {
  const seen = new Set<string>()
  const words: string[] = []
  for (const token of englishAnalyzer.tokenize(text)) {
    const terms = englishAnalyzer.terms(token)
    if (terms.length === 0 || FRAME.has(token.toLowerCase())) continue
    const key = terms.join(' ')
    if (seen.has(key)) continue
    seen.add(key)
    words.push(token)
  }
  return words.join(' ')
}

/** Words that frame a question rather than say what it is about. */
const FRAME = new Set([
  'use',
  'using',
  'way',
  'get',
  'make',
  'work',
  'works',
  'need',
  'want',
  'tell',
  'happens',
])

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

/**
 * The question's terms, weighted from what the search tool reported about them (the `terms` of its
 * results: how many of the corpus' files hold each). `presence`: 1 for a term some file holds, 0 for
 * one none does (no passage can match it, so it should not count against every passage); `rarity`:
 * `log(1 + files / filesHoldingIt)`, so a rare term weighs more than a common one. A term no search
 * reported weighs 1 either way.
 */
function weighted(text: string, searches: readonly Search[], mode: 'presence' | 'rarity'): Terms {
  const rarity = new Map<string, number>()
  for (const search of searches) for (const [term, weight] of search.rarity) rarity.set(term, weight)
  return new Map(
    [...termsOf(text)].map((term) => {
      const weight = rarity.get(term)
      if (weight === undefined) return [term, 1]
      return [term, mode === 'rarity' || weight === 0 ? weight : 1]
    }),
  )
}

/** The share of the question's terms (by weight) that `text` (or the terms `matched`) contains. */
function coverage(question: Terms, text: string, matched: readonly string[] = []): number {
  let total = 0
  for (const weight of question.values()) total += weight
  if (total === 0) return 0
  const terms = termsOf(text)
  for (const term of matched) terms.add(term)
  let found = 0
  for (const [term, weight] of question) if (terms.has(term)) found += weight
  return found / total
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

/** The non-empty lines inside the code fences of a Markdown passage, trimmed (at most 200 characters). */
function codeLinesOf(text: string): string[] {
  const lines: string[] = []
  for (const block of text.match(/```[^\n]*\n[\s\S]*?(```|$)/g) ?? []) {
    for (const line of block.split('\n').slice(1)) {
      const trimmed = line.trim()
      if (trimmed === '' || trimmed.startsWith('```') || trimmed.length > 200) continue
      lines.push(`\`${trimmed}\``)
    }
  }
  return lines
}

/** Words that point back at an earlier question ("does it", "what about them"). */
const BACK_REFERENCES = new Set([
  'it',
  'its',
  'they',
  'them',
  'their',
  'this',
  'that',
  'these',
  'those',
  'there',
])

/**
 * The question of this turn and where the turn starts. A conversation kept in a session (`--session`)
 * holds earlier turns: each is a user question and the desk's answer (an assistant message without tool
 * calls). The turn's question is the user message after the last answer; the earlier one is the question
 * before it. Later user messages inside a turn are instructions, not questions.
 */
function turnOf(request: MockRequestView): {
  question: string
  earlier: string | undefined
  start: number
  /** The file the earlier answer cited first, when it cited one. */
  earlierFile: string | undefined
} {
  const messages = request.messages
  const starts: number[] = []
  messages.forEach((message, index) => {
    if (message.role !== 'user') return
    let before = index - 1
    while (before >= 0 && (messages[before]!.role === 'system' || messages[before]!.role === 'developer'))
      before--
    const answered =
      before >= 0 &&
      messages[before]!.role === 'assistant' &&
      (messages[before]!.toolCalls?.length ?? 0) === 0
    if (starts.length === 0 || answered) starts.push(index)
  })
  if (starts.length === 0)
    return { question: request.lastUserMessage, earlier: undefined, start: 0, earlierFile: undefined }
  const start = starts.at(-1)!
  const earlier = starts.length > 1 ? messages[starts.at(-2)!]!.text : undefined
  const answer =
    start > 0 ? messages.slice(0, start).findLast((message) => message.role === 'assistant') : undefined
  const cited = answer?.text.match(/\[([^[\]\s]+)@\d+#\d+\]/)?.[1]
  return { question: messages[start]!.text, earlier, start, earlierFile: cited }
}

/**
 * A follow-up ("At what temperature?", "Where do they live?") is read with the earlier question's key
 * terms: it has a word that points back, or fewer than two content terms of its own.
 */
function inContext(question: string, earlier: string | undefined): string {
  if (earlier === undefined) return question
  const words = englishAnalyzer.tokenize(question).map((token) => token.toLowerCase())
  const pointsBack = words.some((word) => BACK_REFERENCES.has(word)) || words[0] === 'and'
  if (!pointsBack && termsOf(question).size >= 2) return question
  const context = keyTermsOf(earlier)
  return context === '' ? question : `${context} ${question}`
}

/**
 * Composes the answer from the passages read: the best sentences, each cited. Passages that cover most of
 * the question answer it; when none does, the best passage of the best file (`closest`) is quoted as the
 * closest passage found, if it covers a third of the question.
 */
function compose(question: Terms, passages: readonly PassageView[], bestFile: string | undefined): string {
  const supporting = passages.filter(
    (passage) => coverage(question, aboutOf(passage, passage.text)) >= COVERAGE,
  )
  if (supporting.length > 0) return quote(question, supporting, false) ?? NO_ANSWER
  // The closest passage: of the passages read from the best file that cover a third of the question,
  // the one covering most of it (the first read on a tie) that has a sentence on the question.
  const closest = passages
    .filter((passage) => passage.file === bestFile)
    .map((passage) => ({ passage, share: coverage(question, aboutOf(passage, passage.text)) }))
    .filter((entry) => entry.share >= CLOSEST)
    .sort((a, b) => b.share - a.share)
  for (const { passage } of closest) {
    const text = quote(question, [passage], true)
    if (text !== undefined) return text
  }
  return NO_ANSWER
}

/** The best sentences of `supporting` on the question, each cited; `undefined` when none has a term. */
function quote(question: Terms, supporting: readonly PassageView[], closest: boolean): string | undefined {
  let framed = closest
  const scored: { sentence: string; id: string; score: number; order: number }[] = []
  supporting.forEach((passage, rank) => {
    sentencesOf(passage.text).forEach((sentence, index) => {
      const score = coverage(question, sentence)
      if (score > 0) scored.push({ sentence, id: passage.id, score, order: rank * 1000 + index })
    })
  })
  // A passage that is mostly code: its code lines that hold a term of the question, quoted as they are.
  if (scored.length === 0) {
    supporting.forEach((passage, rank) => {
      codeLinesOf(passage.text).forEach((line, index) => {
        const score = coverage(question, line)
        if (score > 0) scored.push({ sentence: line, id: passage.id, score, order: rank * 1000 + index })
      })
    })
  }
  if (scored.length === 0) return undefined
  const best = Math.max(...scored.map((entry) => entry.score))
  // No sentence covering half of the question: the passage as a whole does, or is the closest found.
  if (best < 0.5) framed = true
  const chosen = scored
    .filter((entry) => entry.score >= (framed ? best * 0.6 : Math.max(0.5, best * 0.6)))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, MAX_SENTENCES)
    .sort((a, b) => a.order - b.order)
  // One citation after each run of sentences from the same passage.
  const text = chosen
    .map((entry, i) => (chosen[i + 1]?.id === entry.id ? entry.sentence : `${entry.sentence} [${entry.id}]`))
    .join(' ')
  const file = supporting[0]!.file
  return framed
    ? `No passage answers all of the question; the closest I found${file ? `, in ${file},` : ''} says: ${text}`
    : text
}

interface Search {
  readonly query: string
  readonly file: string | undefined
  readonly hits: readonly SearchHitView[]
  /** The files of the hits as the tool ranked them (with `covers` when it could weigh them). */
  readonly files: readonly FileView[]
  /** Each query term's weight, from the tool's counts of the files that hold it (empty without them). */
  readonly rarity: ReadonlyMap<string, number>
}

/** A term's weight from the counts a search reported: `log(1 + corpusFiles / files)`, 0 when no file holds it. */
function rarityOf(output: unknown): Map<string, number> {
  const rarity = new Map<string, number>()
  if (!isRecord(output) || typeof output.corpusFiles !== 'number' || !Array.isArray(output.terms))
    return rarity
  for (const entry of output.terms as unknown[]) {
    if (isRecord(entry) && typeof entry.term === 'string' && typeof entry.files === 'number')
      rarity.set(entry.term, entry.files === 0 ? 0 : Math.log(1 + output.corpusFiles / entry.files))
  }
  return rarity
}

/** How much the searches' agreement (each hit adds 1/rank to its file) counts beside rare-term coverage. */
const AGREEMENT = 0.1

/**
 * The file the searches point to: the one whose hits hold most of the question's rare vocabulary (the
 * `covers` the search tool reports, the best over the searches), plus a little for agreement (each hit
 * adds 1/rank to its file: a file found by several searches, or several times by one, adds up), ties
 * broken by the first search's order. Without the tool's `covers`, agreement alone decides.
 */
function bestFileOf(searches: readonly Search[]): string | undefined {
  const scores = new Map<string, number>()
  const covers = new Map<string, number>()
  for (const search of searches) {
    if (search.file !== undefined) continue
    search.hits.forEach((hit, rank) => {
      if (hit.file !== undefined) scores.set(hit.file, (scores.get(hit.file) ?? 0) + 1 / (rank + 1))
    })
    for (const entry of search.files)
      if (typeof entry.covers === 'number')
        covers.set(entry.file, Math.max(covers.get(entry.file) ?? 0, entry.covers))
  }
  const score = (file: string) => (covers.get(file) ?? 0) + AGREEMENT * scores.get(file)!
  let best: string | undefined
  for (const file of scores.keys()) if (best === undefined || score(file) > score(best)) best = file
  return best
}

/**
 * The offline model's next reply for a conversation: search, search again when the first results are
 * weak, read what looks relevant, answer. A read the user refused with an instruction becomes a new
 * search for that instruction.
 */
export function offlineReply(request: MockRequestView): MockReply {
  const turn = turnOf(request)
  const questionText = inContext(turn.question, turn.earlier)
  // Only this turn's tool results: the calls of earlier turns were answered already.
  const before = request.messages.slice(0, turn.start)
  const earlierCalls = new Set(
    before.flatMap((message) => (message.toolCalls ?? []).map((call) => call.id ?? '')),
  )
  const turns = request.turn - before.filter((message) => message.role === 'assistant').length
  const searches: Search[] = []
  const attempted = new Set<string>()
  const read: PassageView[] = []
  let redirect: string | undefined
  for (const result of request.toolResults) {
    if (earlierCalls.has(result.callId)) continue
    const output = parse(result.output)
    const input = parse(result.arguments)
    if (result.name === SEARCH_TOOL && isRecord(input) && typeof input.query === 'string') {
      searches.push({
        query: input.query,
        file: typeof input.file === 'string' ? input.file : undefined,
        hits: isRecord(output) && Array.isArray(output.hits) ? (output.hits as SearchHitView[]) : [],
        files: isRecord(output) && Array.isArray(output.files) ? (output.files as FileView[]) : [],
        rarity: rarityOf(output),
      })
    } else if (result.name === READ_TOOL && isRecord(input) && typeof input.id === 'string') {
      attempted.add(input.id)
      if (isRecord(output) && typeof output.text === 'string') read.push(output as unknown as PassageView)
      else if (isRecord(output) && output.refused === true && typeof output.instruction === 'string')
        redirect = output.instruction
    }
  }
  const searched = (query: string, file?: string) =>
    searches.some((search) => search.query === query && search.file === file)
  const searchFor = (query: string, file?: string): MockReply => ({
    type: 'tool-calls',
    calls: [{ name: SEARCH_TOOL, arguments: { query, limit: 5, ...(file === undefined ? {} : { file }) } }],
  })
  if (searches.length === 0) return searchFor(questionText)
  // A follow-up builds on the earlier answer: its own words, inside the file that answer cited.
  if (
    questionText !== turn.question &&
    turn.earlierFile !== undefined &&
    attempted.size === 0 &&
    !searched(turn.question, turn.earlierFile)
  )
    return searchFor(turn.question, turn.earlierFile)
  if (redirect !== undefined && !searched(redirect)) return searchFor(redirect)
  // A person's instruction replaces the question: it says what to look for instead.
  const subject = redirect ?? questionText
  const terms = weighted(subject, searches, 'presence')
  const rare = weighted(subject, searches, 'rarity')
  const hits = searches.flatMap((search) => search.hits)
  const fresh = hits
    .filter((hit, index) => hits.findIndex((other) => other.id === hit.id) === index)
    .filter((hit) => !attempted.has(hit.id))
  const covering = (share: number) =>
    fresh.filter((hit) => coverage(terms, aboutOf(hit, hit.snippet), hit.matched) >= share)
  const strong = covering(COVERAGE)
  // Weak results and nothing read yet: the key terms alone, then the best file's other passages.
  if (strong.length === 0 && attempted.size === 0 && turns < 4) {
    const keyTerms = keyTermsOf(subject)
    if (keyTerms !== '' && keyTerms !== subject && !searched(keyTerms)) return searchFor(keyTerms)
    const file = bestFileOf(searches)
    if (file !== undefined && !searched(subject, file)) return searchFor(subject, file)
  }
  const bestFile = bestFileOf(searches)
  // The best file's passages among all hits, those covering more of the question's rare terms (in any
  // of the hits that show them) first; on a tie, in the order of the search inside that file, then of the others.
  const insideBest = searches.find((search) => search.file !== undefined && search.file === bestFile)
  const inBestFile = fresh
    .filter((hit) => hit.file === bestFile)
    .map((hit, order) => {
      const inside = insideBest?.hits.findIndex((other) => other.id === hit.id) ?? -1
      const share = Math.max(
        ...hits
          .filter((other) => other.id === hit.id)
          .map((other) => coverage(rare, aboutOf(other, other.snippet), other.matched)),
      )
      return { hit, share, order: inside >= 0 ? inside : hits.length + order }
    })
    .sort((a, b) => b.share - a.share || a.order - b.order)
    .map((entry) => entry.hit)
  // The passages that cover most of the question; when none does and nothing was read yet, the two
  // best passages of the best file (the answer quotes the one that covers more of the question).
  const fallback = attempted.size === 0 ? inBestFile.slice(0, CLOSEST_READS) : []
  const worth = (strong.length > 0 ? strong : fallback).slice(0, Math.max(0, MAX_READS - attempted.size))
  if (worth.length > 0 && turns < 6) {
    return {
      type: 'tool-calls',
      calls: worth.slice(0, 2).map((hit) => ({ name: READ_TOOL, arguments: { id: hit.id } })),
    }
  }
  return { type: 'text', text: compose(terms, read, bestFile) }
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
