/**
 * The research desk: answers a question about a folder of documents with cited passages.
 *
 *   pnpm start                                   # the repository's docs/, a built-in question
 *   pnpm start -- "question" --corpus PATH       # any folder of .md/.txt files
 *   pnpm start -- --help
 *
 * 1. Indexing: the folder is published into a knowledge publication (hybrid index, offline embeddings,
 *    SQLite under .agent-core/); unchanged files cost nothing.
 * 2. The question runs as a durable agent run (SQLite): stop it or kill it, and the same command continues.
 * 3. The answer streams in, then the cited passages with file and line range.
 */
import { appendFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface, type Interface } from 'node:readline/promises'
import { AgentCoreError } from '@agent-core/core'
import type { AgentPendingCall, ApprovalResolution } from '@agent-core/kits/loop'
import { CommanderError } from 'commander'
import { readCorpus } from './corpus.js'
import { citationsOf, deskAgent } from './desk-agent.js'
import { DeskError, EXIT_CODES } from './desk-error.js'
import { type DeskModel, explainModelFailure, openDeskModel } from './desk-model.js'
import { openRunStore, questionId, type RunStore, runQuestion } from './desk-run.js'
import { type DeskSession, openDeskSession } from './desk-session.js'
import { type CorpusIndex, openCorpusIndex } from './indexing.js'
import { createOfflineEmbedder } from './offline-embedder.js'
import { type DeskOptions, parseOptions } from './options.js'
import { plainText } from './plain-text.js'
import { jsonOutput, type Output, terminalOutput } from './terminal.js'
import { deskTools, type ToolExecution } from './tools.js'
import { startWebView, type WebView } from './web-view.js'

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`
}

/** The command that decides a pending call, as the user would type it. */
function decideCommand(options: DeskOptions, call: AgentPendingCall): string {
  return `npx -y pnpm@9 start -- ${shellQuote(options.question)} --corpus ${shellQuote(options.corpus)}${options.session === undefined ? '' : ` --session ${shellQuote(options.session)}`} --decide ${call.toolCallId}=y`
}

/**
 * Asks in the terminal before a read: y approves, n refuses, anything else refuses with an instruction.
 * Reads of one step are asked one after the other; lines typed (or piped) ahead are kept for the next
 * question.
 */
function terminalApprover(): { ask: (call: AgentPendingCall) => Promise<ApprovalResolution>; close(): void } {
  let lines: AsyncIterator<string> | undefined
  let readline: Interface | undefined
  let queue: Promise<unknown> = Promise.resolve()
  const ask = async (call: AgentPendingCall): Promise<ApprovalResolution> => {
    if (readline === undefined) {
      readline = createInterface({ input: process.stdin, terminal: false })
      lines = readline[Symbol.asyncIterator]()
    }
    process.stderr.write(`${plainText(call.reason)} [y]es / [n]o / or type an instruction: `)
    const next = await lines!.next()
    if (next.done) {
      process.stderr.write('\n')
      return { type: 'reject', reason: 'Nobody answered (the input ended).' }
    }
    if (!process.stdin.isTTY) process.stderr.write(`${next.value}\n`)
    const answer = next.value.trim()
    const lower = answer.toLowerCase()
    if (lower === 'y' || lower === 'yes' || lower === '') return { type: 'approve' }
    if (lower === 'n' || lower === 'no') return { type: 'reject', reason: 'The person refused this read.' }
    return { type: 'reject', reason: 'The person gave an instruction instead.', instruction: answer }
  }
  return {
    ask(call) {
      const answer = queue.then(() => ask(call))
      queue = answer.catch(() => undefined)
      return answer
    },
    close: () => readline?.close(),
  }
}

/** Runs the desk once; resolves with the exit code. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let options: DeskOptions
  try {
    options = parseOptions(argv, env.INIT_CWD ?? process.cwd())
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode
    const failure = error instanceof DeskError ? error : undefined
    process.stderr.write(`error: ${plainText(failure?.message ?? String(error))}\n`)
    return failure?.exitCode ?? 1
  }
  const output: Output = options.json ? jsonOutput() : terminalOutput()
  const controller = new AbortController()
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(EXIT_CODES.stopped)
    controller.abort(new DeskError('model', 'Stopped by Ctrl-C.'))
  }
  process.on('SIGINT', onSigint)
  process.on('SIGTERM', onSigint)
  const trace = env.RESEARCH_DESK_TRACE
  let model: DeskModel | undefined
  let index: CorpusIndex | undefined
  let store: RunStore | undefined
  let web: WebView | undefined
  let session: DeskSession | undefined
  const approver = terminalApprover()
  try {
    const corpus = readCorpus(options.corpus)
    mkdirSync(options.data, { recursive: true })
    model = await openDeskModel(env, { streamDelayMs: Number(env.RESEARCH_DESK_STREAM_DELAY_MS ?? 8) })
    output.info(model.description)
    output.info(`corpus: ${corpus.root}`)
    const embedder = createOfflineEmbedder()
    index = await openCorpusIndex({
      file: join(options.data, 'knowledge.db'),
      database: options.database,
      corpusRoot: corpus.root,
      embedder,
    })
    const started = performance.now()
    const summary = await index.update(
      corpus,
      (progress) => output.indexProgress(progress),
      controller.signal,
    )
    output.indexed(summary, performance.now() - started)

    store = openRunStore(join(options.data, 'runs.db'))
    if (options.session !== undefined) {
      session = await openDeskSession(join(options.data, 'sessions.db'), options.session, options.question)
      output.info(`session: ${session.name} (${session.turns} earlier question(s))`)
    }
    const id = questionId({
      ...(session ? { session: { name: session.name, revision: session.revision } } : {}),
      question: options.question,
      corpusRoot: corpus.root,
      corpusFingerprint: summary.fingerprint,
      model: model.identity,
      asksBeforeReading: options.approve || options.defer || options.decisions.size > 0,
    })
    let taskId = id
    const runStore = store
    const onExecute = (execution: ToolExecution) => {
      runStore.logExecution(taskId, execution)
      if (trace) appendFileSync(trace, `${JSON.stringify({ ...execution, taskId, pid: process.pid })}\n`)
    }
    const agent = deskAgent({
      model: model.model,
      suspensionLedger: runStore.ledger,
      tools: deskTools({
        source: index,
        askBeforeReading: options.approve || options.defer || options.decisions.size > 0,
        onExecute,
      }),
    })
    if (options.web) {
      web = await startWebView({ port: options.port, question: options.question, host: options.webHost })
      output.info(`web: ${web.url}`)
      output.record('desk-web', { url: web.url })
    }
    const view = web
    let streamed = false
    output.info(`question: ${options.question}`)
    const outcome = await runQuestion({
      store,
      questionId: id,
      question: options.question,
      agent,
      decisions: options.decisions,
      signal: controller.signal,
      history: session?.history,
      onTask: (current) => {
        taskId = current
        output.record('desk-task', { taskId: current })
      },
      request: {
        onEvent: (event) => {
          if (event.type === 'text-delta') streamed = true
          output.event(event)
          view?.event(event)
        },
        ...(options.approve ? { resolveApproval: approver.ask } : {}),
        ...(options.defer || (options.decisions.size > 0 && !options.approve) ? { defer: true } : {}),
      },
    })
    const { state } = outcome
    if (state.status === 'suspended') {
      output.pending(state.pending, decideCommand(options, state.pending[0]!))
      view?.pending(state.pending)
      return EXIT_CODES.waiting
    }
    const text = state.text ?? ''
    const citations = state.reason === 'final' ? citationsOf(text, state.messages) : []
    const how = outcome.finishedEarlier
      ? 'answered by an earlier run (saved); nothing ran now'
      : outcome.resumed
        ? 'continued from the saved progress of an earlier run'
        : 'a new run'
    output.answer({
      text,
      citations,
      streamed: streamed && !outcome.finishedEarlier,
      note: `run ${outcome.taskId}: ${how}; ${state.turns} model calls; ${model.kind === 'offline' ? 'offline model' : 'OpenAI-compatible endpoint'}`,
    })
    view?.answer(text, citations)
    if (state.reason === 'final' && session) {
      const recorded = await session.record(state)
      output.record('desk-session', { session: session.name, revision: recorded.revision })
    }
    if (state.reason !== 'final') {
      throw new DeskError(
        'model',
        `The run ended without an answer (${state.reason}). Ask a narrower question, or run the same command to see the saved result.`,
      )
    }
    if (web) {
      output.info('The page stays up until you press Ctrl-C.')
      await new Promise<void>((resolve) =>
        controller.signal.addEventListener('abort', () => resolve(), { once: true }),
      )
    }
    return 0
  } catch (error) {
    const failure =
      error instanceof DeskError ? error : model !== undefined ? explainModelFailure(error, model) : undefined
    if (controller.signal.aborted && !web) {
      output.failure(
        'Stopped. What was indexed and what the run did so far are saved: run the same command again to continue where it stopped.',
        EXIT_CODES.stopped,
      )
      return EXIT_CODES.stopped
    }
    if (controller.signal.aborted) return 0
    if (failure !== undefined) {
      output.failure(failure.message, failure.exitCode)
      return failure.exitCode
    }
    const message = AgentCoreError.isInstance(error)
      ? error.message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error)
    output.failure(`unexpected failure: ${message}`, 1)
    return 1
  } finally {
    process.off('SIGINT', onSigint)
    process.off('SIGTERM', onSigint)
    approver.close()
    output.close()
    await web?.close()
    store?.close()
    session?.close()
    await index?.close()
    await model?.close()
  }
}

process.exitCode = await main(process.argv.slice(2), process.env)
