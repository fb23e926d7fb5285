/**
 * The desk's agent: the loop kit's agent with the two tools, a system prompt that asks for cited
 * answers, and refusals the model can read as JSON (with the person's instruction, when they gave one).
 */
import type { ChatMessage, ChatModel } from '@agent-core/core'
import { type Agent, type AgentToolEntry, defineAgent, type SuspensionLedger } from '@agent-core/kits/loop'
import { READ_TOOL } from './tools.js'

const SYSTEM = [
  'You answer questions about a folder of documents, using only its passages.',
  'First call search_passages with the question. When no hit clearly answers it, search again with its key',
  'terms only (names, options, rare words), then search inside the file the hits agree on (the `file`',
  'argument) for its other passages; then read_passage for the passages that look relevant.',
  'Cite the best passage of the best file first.',
  'Answer in a few sentences taken from the passages you read, and put the id of the passage each',
  'sentence comes from right after it in square brackets, for example [guide.md@1#3].',
  'If no passage you read answers the question, say that the documents do not answer it and cite nothing.',
  'A refused read comes back as JSON with "refused": true; follow its "instruction" when it has one.',
].join(' ')

/** The agent of one desk run. */
export function deskAgent(options: {
  model: ChatModel
  tools: AgentToolEntry[]
  suspensionLedger: SuspensionLedger
}): Agent<string> {
  return defineAgent({
    model: options.model,
    tools: options.tools,
    suspensionLedger: options.suspensionLedger,
    system: SYSTEM,
    maxTurns: 8,
    toolTimeoutMs: 60_000,
    refusal: ({ reason, by, instruction }) =>
      JSON.stringify({ refused: true, by, reason, ...(instruction ? { instruction } : {}) }),
  })
}

/** A passage an answer cites, with where it is. */
export interface Citation {
  readonly id: string
  readonly file: string
  readonly lines: string
  readonly headings: string
  readonly text: string
}

const CITATION = /\[([^[\]\s]+@\d+#\d+)\]/g

/** The passage ids an answer cites, in order of first mention. */
export function citedIds(answer: string): string[] {
  return [...new Set([...answer.matchAll(CITATION)].map((match) => match[1]!))]
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The passages an answer cites, as the run read them (from its history). An id the run never read is
 * not a citation: a model that makes one up is not believed.
 */
export function citationsOf(answer: string, messages: readonly ChatMessage[]): Citation[] {
  const reads = new Set<string>()
  for (const message of messages) {
    if (message.role !== 'assistant') continue
    for (const call of message.toolCalls ?? []) if (call.name === READ_TOOL) reads.add(call.id)
  }
  const read = new Map<string, Citation>()
  for (const message of messages) {
    if (message.role !== 'tool' || !reads.has(message.toolCallId)) continue
    let output: unknown
    try {
      output = JSON.parse(message.content)
    } catch {
      continue
    }
    if (
      isRecord(output) &&
      typeof output.id === 'string' &&
      typeof output.file === 'string' &&
      typeof output.text === 'string'
    ) {
      read.set(output.id, {
        id: output.id,
        file: output.file,
        lines: String(output.lines ?? ''),
        headings: String(output.headings ?? ''),
        text: output.text,
      })
    }
  }
  return citedIds(answer).flatMap((id) => {
    const citation = read.get(id)
    return citation === undefined ? [] : [citation]
  })
}
