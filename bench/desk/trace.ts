/**
 * The desk's offline model answering a benchmark set in-process, with every step printed: each search
 * (its query, file and hits), each read, the answer and the files it cites. For error analysis of
 * `pnpm bench desk`: the same tools over the same index (the bench's cache, indexed by a first run of
 * the bench), the offline model's replies computed the way MockGPT computes them, without a child process
 * per question or the durable run store. The figure that counts is the bench's; this shows why.
 *
 * `DESK_BENCH_SET=held-out node --conditions=@agent-core/source --import tsx bench/desk/trace.ts [n ...]`
 * (question numbers from 1 to answer only those; `DESK_TRACE_QUIET=1` prints one line per question).
 */
import { join } from 'node:path'
import type { AgentTool } from '@agent-core/kits/loop'
import type { MockReply, MockRequestView } from '@agent-core/mock'
import { readCorpus } from '../../examples/research-desk/src/corpus.js'
import { citedIds } from '../../examples/research-desk/src/desk-agent.js'
import { openCorpusIndex } from '../../examples/research-desk/src/indexing.js'
import { createOfflineEmbedder } from '../../examples/research-desk/src/offline-embedder.js'
import { offlineReply } from '../../examples/research-desk/src/offline-model.js'
import { deskTools } from '../../examples/research-desk/src/tools.js'
import { HELD_OUT_QUESTIONS } from './held-out.js'
import { HELD_OUT_3_QUESTIONS } from './held-out-3.js'
import { type DeskQuestion, QUESTIONS } from './questions.js'

const root = process.cwd()
const cache = process.env.DESK_BENCH_CACHE ?? join(root, 'node_modules', '.cache', 'agent-core-desk')
const set = process.env.DESK_BENCH_SET ?? 'first'
const SETS: Record<string, { questions: readonly DeskQuestion[]; corpus: string; data: string }> = {
  first: { questions: QUESTIONS, corpus: 'npm-readmes', data: 'data' },
  'held-out': { questions: HELD_OUT_QUESTIONS, corpus: 'npm-readmes-held-out', data: 'data-held-out' },
  'held-out-3': {
    questions: HELD_OUT_3_QUESTIONS,
    corpus: 'npm-readmes-held-out-3',
    data: 'data-held-out-3',
  },
}
const chosen = SETS[set]
if (chosen === undefined) throw new Error(`bench/desk/trace: unknown DESK_BENCH_SET "${set}"`)
const quiet = process.env.DESK_TRACE_QUIET === '1'
const wanted = process.argv.slice(2).map(Number)

const index = await openCorpusIndex({
  file: join(cache, chosen.data, 'knowledge.db'),
  corpusRoot: join(cache, chosen.corpus),
  embedder: createOfflineEmbedder(),
})
await index.update(readCorpus(join(cache, chosen.corpus)), () => {}, new AbortController().signal)
const tools = deskTools({ source: index, askBeforeReading: false, onExecute: () => {} }) as AgentTool[]
const byName = new Map(tools.map((tool) => [tool.id, tool]))

interface Result {
  callId: string
  name: string
  arguments: string
  output: string
}

async function answer(question: string): Promise<{ text: string; log: string[]; read: Map<string, string> }> {
  const results: Result[] = []
  const log: string[] = []
  const read = new Map<string, string>()
  for (let turn = 0; turn < 8; turn++) {
    const view = {
      endpoint: 'chat.completions',
      model: 'research-desk-offline',
      stream: false,
      messages: [{ role: 'user', text: question }],
      lastUserMessage: question,
      toolNames: [...byName.keys()],
      toolCalls: results.map(({ callId, name, arguments: args }) => ({ callId, name, arguments: args })),
      toolResults: results,
      turn,
      body: {},
      index: turn,
      testId: undefined,
    } as unknown as MockRequestView
    const reply: MockReply = offlineReply(view)
    if (reply.type === 'text') return { text: String(reply.text), log, read }
    const calls = (reply as unknown as { calls: { name: string; arguments: Record<string, unknown> }[] })
      .calls
    for (const call of calls) {
      const tool = byName.get(call.name)!
      const callId = `call-${results.length}`
      const output = await tool.tool.execute(
        call.arguments as never,
        {
          invocationId: callId,
        } as never,
      )
      results.push({
        callId,
        name: call.name,
        arguments: JSON.stringify(call.arguments),
        output: JSON.stringify(output),
      })
      const out = output as {
        hits?: { id: string; headings: string; matched?: string[] }[]
        files?: { file: string; covers: number; hits: number }[]
        terms?: { term: string; files: number }[]
        id?: string
        file?: string
      }
      if (out.hits) {
        log.push(`  search ${JSON.stringify(call.arguments)}`)
        if (out.terms) log.push(`    terms ${out.terms.map((t) => `${t.term}:${t.files}`).join(' ')}`)
        for (const hit of out.hits)
          log.push(
            `    ${hit.id.padEnd(34)} ${hit.headings.slice(0, 60).padEnd(60)} [${(hit.matched ?? []).join(' ')}]`,
          )
        if (out.files)
          log.push(`    files ${out.files.map((f) => `${f.file}:${f.covers}/${f.hits}`).join(' ')}`)
      } else {
        log.push(`  read ${out.id}`)
        if (out.id && out.file) read.set(out.id, out.file)
      }
    }
  }
  return { text: '(no answer in 8 turns)', log, read }
}

let first = 0
for (const [i, question] of chosen.questions.entries()) {
  if (wanted.length > 0 && !wanted.includes(i + 1)) continue
  const { text, log, read } = await answer(question.question)
  const cited = citedIds(text).flatMap((id) => (read.has(id) ? [read.get(id)!] : []))
  const mark =
    cited[0] === question.file
      ? 'first'
      : cited.includes(question.file)
        ? 'any'
        : cited.length === 0
          ? 'none'
          : 'wrong'
  if (mark === 'first') first++
  console.log(
    `${String(i + 1).padStart(2)} ${mark.padEnd(5)} ${question.kind.padEnd(10)} ${question.file.padEnd(26)} cited [${cited.join(', ')}]  ${question.question}`,
  )
  if (!quiet) {
    for (const line of log) console.log(line)
    console.log(`  answer: ${text.slice(0, 400)}\n`)
  }
}
console.log(`first cited right: ${first}`)
await index.close()
