/**
 * The research desk end to end on a corpus nobody tuned it for: the share of questions whose answer cites
 * the file that holds the answer, for paraphrased questions and for lookups.
 *
 * Method (fixed before any tuning, like bench/retrieval's):
 * - Corpus: the READMEs of 55 npm packages this repository installs (corpus.ts), written into a folder
 *   under node_modules/.cache; neither the desk nor the search kit was tuned on it.
 * - Questions: 24 (12 paraphrases in a user's own words, 12 lookups with the README's words), each with the
 *   one file that answers it and an anchor checked to be in that file (questions.ts), committed before
 *   the desk's retrieval or agent was changed for this benchmark.
 * - Each question runs the desk's own command (`examples/research-desk/src/main.ts --json`) in a child
 *   process, as a user would, with the offline model; the saved runs are removed first, so every answer
 *   is computed by the code under test (the index is kept: its vectors do not depend on the desk's code
 *   unless what is embedded changes, and then the desk re-embeds by itself).
 * - Scored from the `desk-answer` event: `first` = the answer's first citation is a passage of the right
 *   file (what a reader opens first); `any` = some citation is; `none` = the answer cites nothing.
 *
 * - A second held-out set (held-out.ts: 24 other READMEs, 16 questions), written and committed for issue
 *   30 before the desk was run on it: `DESK_BENCH_SET=held-out pnpm bench desk`.
 * - A third (held-out-3.ts: 24 more READMEs, scoped packages among them, 24 questions), written and
 *   committed the same way before the desk was run on it or changed again: `DESK_BENCH_SET=held-out-3`.
 *
 * Run with `pnpm bench desk` (`DESK_BENCH_CACHE=folder` to keep the corpus and index elsewhere). The first run indexes the corpus (about 1,100 passages; minutes on two busy
 * cores); later runs answer only.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { writeCorpus } from './corpus.js'
import { HELD_OUT_PACKAGES, HELD_OUT_QUESTIONS } from './held-out.js'
import { HELD_OUT_3_PACKAGES, HELD_OUT_3_QUESTIONS } from './held-out-3.js'
import { type DeskQuestion, QUESTIONS as FIRST_QUESTIONS } from './questions.js'

const root = process.cwd()
// Where the corpus folder and the desk's data go; DESK_BENCH_CACHE lets a checkout of other code (the
// "before" of a change) answer from the same corpus folder and index.
const cache = process.env.DESK_BENCH_CACHE ?? join(root, 'node_modules', '.cache', 'agent-core-desk')
const SETS = {
  first: { questions: FIRST_QUESTIONS, packages: undefined, corpus: 'npm-readmes', data: 'data' },
  'held-out': {
    questions: HELD_OUT_QUESTIONS,
    packages: HELD_OUT_PACKAGES,
    corpus: 'npm-readmes-held-out',
    data: 'data-held-out',
  },
  'held-out-3': {
    questions: HELD_OUT_3_QUESTIONS,
    packages: HELD_OUT_3_PACKAGES,
    corpus: 'npm-readmes-held-out-3',
    data: 'data-held-out-3',
  },
} as const
const set = process.env.DESK_BENCH_SET ?? 'first'
if (!Object.hasOwn(SETS, set))
  throw new Error(`bench/desk: DESK_BENCH_SET is "${set}"; use "first" (default), "held-out" or "held-out-3"`)
const chosen = SETS[set as keyof typeof SETS]
const QUESTIONS = chosen.questions
const { folder, files } =
  chosen.packages === undefined
    ? writeCorpus(root, cache)
    : writeCorpus(root, cache, chosen.packages, chosen.corpus)
for (const question of QUESTIONS) {
  if (!files.get(question.file)?.includes(question.anchor))
    throw new Error(`bench/desk: the anchor of "${question.question}" is not in ${question.file}`)
}
const data = join(cache, chosen.data)
mkdirSync(data, { recursive: true })
for (const suffix of ['', '-wal', '-shm']) rmSync(join(data, `runs.db${suffix}`), { force: true })

interface Outcome {
  readonly question: DeskQuestion
  readonly cited: readonly string[]
  readonly ms: number
  readonly failed?: boolean
}

/** The offline model: no OPENAI_* from the machine, no streaming delay. */
const offlineEnv: NodeJS.ProcessEnv = { ...process.env, RESEARCH_DESK_STREAM_DELAY_MS: '0' }
for (const key of Object.keys(offlineEnv)) if (key.startsWith('OPENAI_')) delete offlineEnv[key]

function ask(question: DeskQuestion, retry = true): Outcome {
  const started = performance.now()
  const run = spawnSync(
    process.execPath,
    [
      '--conditions=@agent-core/source',
      '--import',
      'tsx',
      join(root, 'examples', 'research-desk', 'src', 'main.ts'),
      '--json',
      '--corpus',
      folder,
      '--data',
      data,
      question.question,
    ],
    {
      cwd: root,
      encoding: 'utf8',
      env: offlineEnv,
      maxBuffer: 64 * 1024 * 1024,
    },
  )
  const events = run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map(
      (line) =>
        JSON.parse(line) as {
          type: string
          citations?: { file: string }[]
          embedded?: number
          message?: string
        },
    )
  if (run.status !== 0) {
    const problem = events.find((event) => event.type === 'desk-error')?.message ?? run.stderr.slice(-2000)
    // A busy machine can time a model call out: such a question is asked once more, then counted as failed.
    if (retry) return ask(question, false)
    console.log(`  the desk exited ${run.status}: ${problem}`)
    return { question, cited: [], ms: performance.now() - started, failed: true }
  }
  const indexed = events.find((event) => event.type === 'desk-indexed')
  if (indexed?.embedded) console.log(`  (indexed the corpus: ${indexed.embedded} passages embedded)`)
  const answer = events.find((event) => event.type === 'desk-answer')
  if (answer === undefined) throw new Error(`bench/desk: no answer to "${question.question}"`)
  return {
    question,
    cited: (answer.citations ?? []).map((citation) => citation.file),
    ms: performance.now() - started,
  }
}

console.log(`corpus: ${files.size} files in ${folder}; ${QUESTIONS.length} questions`)
const outcomes: Outcome[] = []
for (const question of QUESTIONS) {
  const outcome = ask(question)
  outcomes.push(outcome)
  const mark =
    outcome.cited[0] === question.file
      ? 'first'
      : outcome.cited.includes(question.file)
        ? 'any'
        : outcome.cited.length === 0
          ? 'none'
          : 'wrong'
  console.log(
    `${mark.padEnd(5)} ${question.kind.padEnd(10)} ${question.file.padEnd(22)} cited [${outcome.cited.join(', ')}]  ${(outcome.ms / 1000).toFixed(1)} s  ${question.question}`,
  )
}

console.log('\nkind        questions  first cited right  any cited right  cites nothing')
for (const kind of ['paraphrase', 'lookup', 'all'] as const) {
  const group = outcomes.filter((outcome) => kind === 'all' || outcome.question.kind === kind)
  const share = (test: (outcome: Outcome) => boolean) =>
    `${((100 * group.filter(test).length) / group.length).toFixed(0)}%`.padStart(4)
  console.log(
    `${kind.padEnd(10)}  ${String(group.length).padStart(9)}  ${share((o) => o.cited[0] === o.question.file).padStart(17)}  ${share((o) => o.cited.includes(o.question.file)).padStart(15)}  ${share((o) => o.cited.length === 0).padStart(13)}`,
  )
}
const first =
  outcomes.filter((outcome) => outcome.cited[0] === outcome.question.file).length / outcomes.length
console.log(
  `\ntarget: the desk cites the right file first for at least 75% of the questions: ${(100 * first).toFixed(0)}%  ${first >= 0.75 ? 'met' : 'NOT met'}`,
)
