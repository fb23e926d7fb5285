/**
 * The command line (commander): a question, the corpus, where the desk keeps its data, and how reads are
 * approved.
 */
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Command, CommanderError, Option } from 'commander'
import { DeskError } from './desk-error.js'
import type { Decision } from './desk-run.js'
import { checkSessionName } from './desk-session.js'

/** The question `start` answers when it is given none. */
export const BUILT_IN_QUESTION = 'How does a durable agent run resume after a crash?'

/** The repository's own docs: the corpus when none is given. */
export const REPOSITORY_DOCS = fileURLToPath(new URL('../../../docs', import.meta.url))

export interface DeskOptions {
  readonly question: string
  readonly corpus: string
  readonly data: string
  /** A PostgreSQL URL for the knowledge base, shared with other desks (instead of `<data>/knowledge.db`). */
  readonly database?: string | undefined
  readonly approve: boolean
  readonly defer: boolean
  readonly decisions: ReadonlyMap<string, Decision>
  readonly json: boolean
  readonly web: boolean
  readonly port: number
  /** A host name (or `name:port`) the `--web` page also answers to, besides the loopback names. */
  readonly webHost?: string | undefined
  /** `--session NAME`: the conversation the question continues. */
  readonly session: string | undefined
}

function parseDecision(text: string, previous: Map<string, Decision>): Map<string, Decision> {
  const at = text.indexOf('=')
  const callId = at === -1 ? '' : text.slice(0, at).trim()
  const value = at === -1 ? '' : text.slice(at + 1).trim()
  if (callId === '' || value === '') {
    throw new DeskError(
      'usage',
      `--decide takes <call-id>=y, <call-id>=n or <call-id>="an instruction", but got ${JSON.stringify(text)}. The call ids are printed by --defer.`,
      { field: '--decide', received: JSON.stringify(text) },
    )
  }
  const lower = value.toLowerCase()
  const decision: Decision =
    lower === 'y' || lower === 'yes'
      ? { type: 'approve' }
      : lower === 'n' || lower === 'no'
        ? { type: 'reject' }
        : { type: 'reject', instruction: value }
  return new Map(previous).set(callId, decision)
}

/** The commander program; `parse` turns argv into options (relative paths against `cwd`). */
export function parseOptions(argv: readonly string[], cwd: string): DeskOptions {
  // `pnpm start -- "question" --corpus PATH` may hand the `--` over: it is not the end of the options here.
  const args = argv[0] === '--' ? argv.slice(1) : [...argv]
  const program = new Command()
    .name('research-desk')
    .description(
      'Answers a question about a folder of .md/.txt files with cited passages: indexes the folder (hybrid search, offline embeddings, SQLite), then runs a durable agent that searches and reads passages.',
    )
    .argument('[question]', 'the question', BUILT_IN_QUESTION)
    .option('--corpus <path>', 'the folder of .md/.txt files (searched recursively)', REPOSITORY_DOCS)
    .option('--data <path>', 'where the desk keeps its SQLite files', '.agent-core')
    .option(
      '--database <url>',
      'keep the knowledge base in PostgreSQL (postgres://...) instead of <data>/knowledge.db; desks on other machines share it',
    )
    .option('--approve', 'ask in the terminal before each read: y, n, or an instruction for the model')
    .option(
      '--defer',
      'stop at the first read that needs approval, print it, and exit (decide later with --decide)',
    )
    .option(
      '--decide <call-id=decision>',
      'decide a deferred read in a new process: y, n or "an instruction" (repeatable)',
      parseDecision,
      new Map<string, Decision>(),
    )
    .option('--json', "print the run's events as JSON lines")
    .option('--web', 'serve a page on loopback that streams the answer and shows the cited passages')
    .addOption(new Option('--port <port>', 'the port of --web (0 picks a free one)').default('0'))
    .option(
      '--web-host <name>',
      'a host name the --web page also answers to (default: only 127.0.0.1, localhost and [::1])',
    )
    .option(
      '--session <name>',
      'keep a conversation: the question reads the earlier questions and answers of this session, and is added to it',
    )
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) })
    .showHelpAfterError(false)
  try {
    program.parse(args, { from: 'user' })
  } catch (error) {
    if (error instanceof DeskError) throw error
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) throw error
      throw new DeskError(
        'usage',
        `${error.message.replace(/^error: /, '')}. Run with --help to see the options.`,
        {
          cause: error,
        },
      )
    }
    throw error
  }
  const options = program.opts<{
    corpus: string
    data: string
    database?: string
    approve?: boolean
    defer?: boolean
    decide: Map<string, Decision>
    json?: boolean
    web?: boolean
    port: string
    webHost?: string
    session?: string
  }>()
  const question = String(program.processedArgs[0] ?? BUILT_IN_QUESTION).trim()
  if (question === '') {
    throw new DeskError('usage', 'The question is empty. Ask something, e.g. "How do I resume a run?".', {
      field: 'question',
    })
  }
  if (options.approve && options.defer) {
    throw new DeskError(
      'usage',
      '--approve (ask now) and --defer (decide later) exclude each other. Pick one.',
      { field: '--defer' },
    )
  }
  const port = Number(options.port)
  if (!Number.isSafeInteger(port) || port < 0 || port > 65535) {
    throw new DeskError('usage', `--port must be a port number from 0 to 65535, but got ${options.port}.`, {
      field: '--port',
      received: options.port,
    })
  }
  const webHost = options.webHost?.trim()
  if (
    webHost !== undefined &&
    !/^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i.test(webHost)
  ) {
    throw new DeskError(
      'usage',
      `--web-host must be a host name such as desk.internal (optionally with :port), but got ${JSON.stringify(options.webHost)}.`,
      { field: '--web-host', received: options.webHost },
    )
  }
  if (options.database !== undefined && !/^postgres(?:ql)?:\/\/\S+$/.test(options.database)) {
    throw new DeskError(
      'usage',
      `--database takes a PostgreSQL URL such as postgres://user:password@host:5432/desk, but got ${JSON.stringify(options.database)}.`,
      { field: '--database', received: JSON.stringify(options.database) },
    )
  }
  const absolute = (path: string) => (isAbsolute(path) ? path : resolve(cwd, path))
  return {
    question,
    corpus: absolute(options.corpus),
    data: absolute(options.data),
    ...(options.database !== undefined ? { database: options.database } : {}),
    approve: options.approve === true,
    defer: options.defer === true,
    decisions: options.decide,
    json: options.json === true,
    web: options.web === true,
    port,
    ...(webHost === undefined ? {} : { webHost }),
    session: options.session === undefined ? undefined : checkSessionName(options.session),
  }
}
