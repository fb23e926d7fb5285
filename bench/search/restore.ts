/**
 * Restore speed, validation included, against the raw engines in the same run:
 * - TextSearch.restore (checksum + full structural validation + minisearch loadJS) against raw
 *   `MiniSearch.loadJSON` of the same serialized index;
 * - VectorSearch.restoreFrom (binary stream from a file: checksum, header, documents, vector checks)
 *   and VectorSearch.restore (JSON form) against a raw read of the same vectors from a file into a
 *   Float32Array plus `JSON.parse` of the same documents.
 * `RESTORE_ONLY=text` or `RESTORE_ONLY=vector` runs one section. The corpus is the State of the Union passages, tiled with numbered copies up to `TEXT_PASSAGES`; the
 * vectors are the Fiori embeddings (384 dimensions) tiled with noise up to `VECTORS`. The defaults fit
 * the 4 GB default heap; the 200,000 passages need a larger one:
 *
 *   RESTORE_TEXT_PASSAGES=200000 node --max-old-space-size=16000 --conditions=@agent-core/source \
 *     --import tsx --expose-gc bench/search/main.ts restore
 */
import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { TextSearch, VectorSearch } from '@agent-core/kits/search'
import MiniSearch from 'minisearch'
import { FIORI_DIMENSIONS, loadFiori, loadSotu, type Passage, random } from './corpus.js'
import { fastest, ms, ratio, row } from './measure.js'

const TEXT_PASSAGES = Number(process.env.RESTORE_TEXT_PASSAGES ?? 50_000)
const VECTORS = Number(process.env.RESTORE_VECTORS ?? 200_000)
/** `RESTORE_ONLY=text` or `vector` runs one of the two sections. */
const ONLY = process.env.RESTORE_ONLY

export async function restoreBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-core-restore-'))
  try {
    if (ONLY !== 'vector') await textRestore()
    if (ONLY !== 'text') await vectorRestore(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function textRestore(): Promise<void> {
  const base = loadSotu().passages
  const passages: Passage[] = []
  for (let copy = 0; passages.length < TEXT_PASSAGES; copy++)
    for (const p of base) {
      if (passages.length === TEXT_PASSAGES) break
      passages.push({
        ...p,
        id: `${p.id}~${copy}`,
        content: copy === 0 ? p.content : `${p.content} copy${copy}`,
      })
    }
  const options = {
    indexRevision: 'bench',
    fields: ['title', 'content'] as ('title' | 'content')[],
    storedFields: ['title', 'source'] as ('title' | 'source')[],
  }
  const index = new TextSearch<Passage>(options)
  index.addAll(passages)
  const snapshot = JSON.parse(JSON.stringify(index.snapshot()))
  console.log(
    `\n## Restore: TextSearch of ${passages.length.toLocaleString('en')} passages (serialized index ${(snapshot.serializedIndex.length / 1e6).toFixed(0)} MB)`,
  )
  const target = new TextSearch<Passage>(options)
  const times = await fastest(
    [
      {
        name: 'minisearch loadJSON',
        run: () =>
          MiniSearch.loadJSON(snapshot.serializedIndex, {
            fields: ['title', 'content'],
            storeFields: ['title', 'source'],
          }),
      },
      { name: 'TextSearch.restore', run: () => target.restore(snapshot) },
    ],
    3,
  )
  const raw = times.get('minisearch loadJSON')!
  const kit = times.get('TextSearch.restore')!
  console.log(row(['minisearch loadJSON (no checks)', `${ms(raw)} ms`], [44, 12]))
  console.log(
    row(
      [
        'TextSearch.restore (checksum + validation)',
        `${ms(kit)} ms`,
        `${ratio(kit / raw)}  (target <= 1.50x: ${kit / raw <= 1.5 ? 'met' : 'NOT met'})`,
      ],
      [44, 12, 40],
    ),
  )
}

async function vectorRestore(dir: string): Promise<void> {
  const { corpus, embeddings } = loadFiori()
  const dims = FIORI_DIMENSIONS
  const next = random(11)
  const vectors = new VectorSearch<{ id: string; source: string }>({ identity: 'bench', dimensions: dims })
  const batch = 10_000
  for (let from = 0; from < VECTORS; from += batch) {
    const entries = []
    for (let i = from; i < Math.min(VECTORS, from + batch); i++) {
      const row = i % corpus.passages.length
      const vector = new Float32Array(dims)
      for (let d = 0; d < dims; d++) vector[d] = embeddings[row * dims + d]! + (next() - 0.5) * 0.02
      entries.push({ document: { id: `v${i}`, source: corpus.passages[row]!.source }, vector })
    }
    vectors.upsertAll(entries)
  }
  const streamFile = join(dir, 'vectors.snapshot')
  await pipeline(Readable.from(vectors.snapshotChunks()), createWriteStream(streamFile))
  const json = vectors.snapshot()
  const jsonText = JSON.stringify(json)
  const jsonFile = join(dir, 'vectors.json')
  writeFileSync(jsonFile, jsonText)
  // The raw baseline: the same float32 bytes and the same documents, read with no checks at all.
  const rawVectors = join(dir, 'vectors.f32')
  const rawDocuments = join(dir, 'documents.json')
  writeFileSync(rawVectors, Buffer.from(json.vectors, 'base64'))
  writeFileSync(rawDocuments, JSON.stringify(json.documents))
  console.log(
    `\n## Restore: VectorSearch of ${VECTORS.toLocaleString('en')} vectors of ${dims} dimensions (${((VECTORS * dims * 4) / 1e6).toFixed(0)} MB of float32)`,
  )
  const target = new VectorSearch<{ id: string; source: string }>({ identity: 'bench', dimensions: dims })
  const times = await fastest(
    [
      {
        name: 'raw file',
        run: () => {
          const bytes = readFileSync(rawVectors)
          const out = new Float32Array(VECTORS * dims)
          new Uint8Array(out.buffer).set(bytes)
          return JSON.parse(readFileSync(rawDocuments, 'utf8'))
        },
      },
      { name: 'restoreFrom file', run: () => target.restoreFrom([readFileSync(streamFile)]) },
      {
        name: 'raw',
        run: async () => {
          const out = new Float32Array(VECTORS * dims)
          let at = 0
          for await (const chunk of createReadStream(rawVectors, { highWaterMark: 4 << 20 })) {
            const bytes = chunk as Buffer
            new Uint8Array(out.buffer, at, bytes.length).set(bytes)
            at += bytes.length
          }
          return JSON.parse(readFileSync(rawDocuments, 'utf8'))
        },
      },
      {
        name: 'raw JSON',
        run: () => {
          const parsed = JSON.parse(readFileSync(jsonFile, 'utf8')) as { vectors: string }
          const bytes = Buffer.from(parsed.vectors, 'base64')
          return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4).slice()
        },
      },
      {
        name: 'restoreFrom',
        run: () => target.restoreFrom(createReadStream(streamFile, { highWaterMark: 4 << 20 })),
      },
      { name: 'restore (JSON)', run: () => target.restore(JSON.parse(readFileSync(jsonFile, 'utf8'))) },
    ],
    3,
  )
  const rawFile = times.get('raw file')!
  console.log(
    row(['raw: readFileSync into a Float32Array + JSON.parse documents', `${ms(rawFile)} ms`], [60, 12]),
  )
  const file = times.get('restoreFrom file')!
  console.log(
    row(
      [
        'VectorSearch.restoreFrom([readFileSync(file)])',
        `${ms(file)} ms`,
        `${ratio(file / rawFile)}  (target <= 1.50x: ${file / rawFile <= 1.5 ? 'met' : 'NOT met'})`,
      ],
      [60, 12, 40],
    ),
  )
  const raw = times.get('raw')!
  const rawJson = times.get('raw JSON')!
  console.log(row(['raw: file read stream into a Float32Array + JSON.parse', `${ms(raw)} ms`], [60, 12]))
  const stream = times.get('restoreFrom')!
  console.log(
    row(
      [
        'VectorSearch.restoreFrom(createReadStream(file))',
        `${ms(stream)} ms`,
        `${ratio(stream / raw)}  (target <= 1.50x: ${stream / raw <= 1.5 ? 'met' : 'NOT met'})`,
      ],
      [60, 12, 40],
    ),
  )
  console.log(row(['raw: JSON.parse + base64 decode of the JSON form', `${ms(rawJson)} ms`], [60, 12]))
  const jsonTime = times.get('restore (JSON)')!
  console.log(
    row(
      [
        'VectorSearch.restore (JSON form, every vector checked)',
        `${ms(jsonTime)} ms`,
        `${ratio(jsonTime / rawJson)}  (target <= 1.50x: ${jsonTime / rawJson <= 1.5 ? 'met' : 'NOT met'})`,
      ],
      [60, 12, 40],
    ),
  )
}
