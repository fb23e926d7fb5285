/**
 * What the desk prints: a progress bar while indexing (cli-progress), the answer streamed as it
 * arrives, the tool calls as they happen, then the cited passages. With `--json`, every event is one JSON
 * line on stdout instead, and nothing else is printed there.
 */
import type { KnowledgeProgress } from '@agent-core/kits/knowledge'
import type { AgentEvent, AgentPendingCall } from '@agent-core/kits/loop'
import { SingleBar } from 'cli-progress'
import pc from 'picocolors'
import type { Citation } from './desk-agent.js'
import type { IndexSummary } from './indexing.js'
import { plainText } from './plain-text.js'
import { READ_TOOL, SEARCH_TOOL } from './tools.js'

/** Where the desk's output goes. */
export interface Output {
  info(line: string): void
  indexProgress(progress: KnowledgeProgress): void
  indexed(summary: IndexSummary, ms: number): void
  event(event: AgentEvent): void
  answer(options: { text: string; citations: readonly Citation[]; streamed: boolean; note: string }): void
  pending(calls: readonly AgentPendingCall[], command: string): void
  failure(message: string, code: number): void
  /** Anything else worth a JSON line (`--json` only). */
  record(type: string, data: Record<string, unknown>): void
  close(): void
}

function jsonSafe(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const coded = value as Error & { code?: unknown; details?: unknown }
    return { name: value.name, message: value.message, code: coded.code, details: coded.details }
  }
  return value
}

/** One JSON line per event on stdout. */
export function jsonOutput(write: (text: string) => void = (text) => process.stdout.write(text)): Output {
  const line = (value: Record<string, unknown>) => write(`${JSON.stringify(value, jsonSafe)}\n`)
  let lastProgress = 0
  return {
    info: (message) => line({ type: 'desk-info', message }),
    indexProgress: (progress) => {
      const now = Date.now()
      if (progress.phase !== 'done' && progress.phase !== 'planned' && now - lastProgress < 500) return
      lastProgress = now
      line({ type: 'desk-index-progress', ...progress })
    },
    indexed: (summary, ms) => line({ type: 'desk-indexed', ...summary, ms }),
    event: (event) => line(event as unknown as Record<string, unknown>),
    answer: ({ text, citations, note }) => line({ type: 'desk-answer', text, citations, note }),
    pending: (calls, command) =>
      line({
        type: 'desk-pending',
        command,
        calls: calls.map(({ toolCallId, toolId, input, reason }) => ({ toolCallId, toolId, input, reason })),
      }),
    failure: (message, code) => line({ type: 'desk-error', message, exitCode: code }),
    record: (type, data) => line({ type, ...data }),
    close: () => {},
  }
}

function rate(perSecond: number): string {
  return perSecond >= 10 ? perSecond.toFixed(0) : perSecond.toFixed(1)
}

/**
 * Text for a person: colors and a progress bar on a terminal, plain lines otherwise. Everything that came
 * from a corpus file or a model (answers, passages, file names, tool inputs, error messages) goes through
 * {@link plainText} first, so no escape sequence of theirs reaches the terminal; only the desk's own
 * colors do.
 */
export function terminalOutput(
  write: { out: (text: string) => void; err: (text: string) => void } = {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  },
): Output {
  const { out, err } = write
  const p = plainText
  const tty = process.stderr.isTTY === true
  let bar: SingleBar | undefined
  let started = 0
  let lastLine = 0
  let atLineStart = true
  const stopBar = () => {
    bar?.stop()
    bar = undefined
  }
  return {
    info: (line) => err(`${pc.dim(p(line))}\n`),
    indexProgress: (progress) => {
      if (progress.action !== 'publish' || progress.toEmbed === 0) return
      if (started === 0) started = Date.now()
      const seconds = Math.max((Date.now() - started) / 1000, 0.001)
      const payload = {
        files: `${progress.documentsDone}/${progress.documents}`,
        rate: rate(progress.embedded / seconds),
      }
      if (tty) {
        if (bar === undefined) {
          bar = new SingleBar({
            format: `indexing ${pc.cyan('{bar}')} {percentage}% | {files} files | {value}/{total} passages embedded | {rate} passages/s | {eta_formatted} left`,
            barCompleteChar: '\u2588',
            barIncompleteChar: '\u2591',
            hideCursor: true,
            clearOnComplete: true,
            etaBuffer: 50,
            stream: process.stderr,
          })
          bar.start(progress.toEmbed, progress.embedded, payload)
        }
        bar.setTotal(Math.max(progress.toEmbed, progress.embedded))
        bar.update(progress.embedded, payload)
        if (progress.phase === 'done') stopBar()
      } else if (progress.phase === 'done' || Date.now() - lastLine >= 5_000) {
        lastLine = Date.now()
        err(
          `indexing: ${payload.files} files, ${progress.embedded}/${progress.toEmbed} passages embedded, ${payload.rate} passages/s\n`,
        )
      }
    },
    indexed: (summary, ms) => {
      stopBar()
      const changes = [
        `${summary.published} new or changed`,
        `${summary.unchanged} unchanged`,
        ...(summary.retracted > 0 ? [`${summary.retracted} removed`] : []),
      ].join(', ')
      err(
        `${pc.green('indexed')} ${summary.files} files (${changes}; ${summary.skippedFiles} other files skipped): ${summary.passages} passages, ${summary.embedded} embedded, in ${(ms / 1000).toFixed(1)} s\n`,
      )
    },
    event: (event) => {
      switch (event.type) {
        case 'text-delta': {
          const text = p(event.text)
          out(text)
          if (text !== '') atLineStart = text.endsWith('\n')
          break
        }
        case 'tool-start': {
          if (!atLineStart) out('\n')
          atLineStart = true
          const input = event.input as { query?: unknown; id?: unknown } | undefined
          const what =
            event.toolId === SEARCH_TOOL
              ? `search "${String(input?.query)}"`
              : event.toolId === READ_TOOL
                ? `read ${String(input?.id)}`
                : event.toolId
          err(pc.dim(`  > ${p(what)}\n`))
          break
        }
        case 'tool-rejected':
          err(
            pc.yellow(
              `  x ${p(event.toolId)} refused${event.instruction ? `: ${p(event.instruction)}` : ''}\n`,
            ),
          )
          break
        case 'tool-failed':
          err(
            pc.yellow(
              `  x ${p(event.toolId)} failed: ${event.error instanceof Error ? p(event.error.message) : ''}\n`,
            ),
          )
          break
        default:
      }
    },
    answer: ({ text, citations, streamed, note }) => {
      if (!streamed) out(p(text))
      out('\n\n')
      if (citations.length === 0) out(`${pc.bold('sources:')} none\n`)
      else {
        out(`${pc.bold('sources:')}\n`)
        for (const citation of citations) {
          const where = p(`${citation.file}:${citation.lines}`)
          const headings = p(citation.headings ?? '')
          out(`  [${p(String(citation.id))}] ${pc.cyan(where)}${headings ? pc.dim(`  ${headings}`) : ''}\n`)
          const excerpt = p(citation.text).replace(/\s+/g, ' ').trim()
          out(pc.dim(`      ${excerpt.length > 200 ? `${excerpt.slice(0, 200)}…` : excerpt}\n`))
        }
      }
      err(pc.dim(`${p(note)}\n`))
    },
    pending: (calls, command) => {
      if (!atLineStart) out('\n')
      out(`${pc.bold('waiting for your decision:')}\n`)
      for (const call of calls)
        out(p(`  ${call.toolCallId}: ${call.toolId} ${JSON.stringify(call.input)} (${call.reason})`) + '\n')
      out(`\nDecide with the same command and --decide, for example:\n  ${p(command)}\n`)
      out(pc.dim('  (y approves, n refuses, any other text refuses with that instruction for the model)\n'))
    },
    failure: (message, code) => {
      stopBar()
      if (!atLineStart) out('\n')
      err(`${pc.red('error:')} ${p(message)} ${pc.dim(`(exit code ${code})`)}\n`)
    },
    record: () => {},
    close: stopBar,
  }
}
