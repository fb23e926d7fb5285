/**
 * The two real corpora of the retrieval benchmark, cut into passages with `TextBlocks.passages`:
 * - `fiori`: the 778 SAP Fiori documentation chunks of `@sap-ux/fiori-docs-embeddings` (Markdown);
 * - `agent-core-docs`: this repository's guides and design notes, frozen in `corpora/agent-core-docs/`
 *   (copied from `docs/` at commit a6a0fa2) so that the queries keep pointing at the same text.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { TextBlocks } from '@agent-core/kits/text-blocks'
import { getEmbeddingsPath } from '@sap-ux/fiori-docs-embeddings'

/** The passage size of the benchmark: about what the embedding model reads (128 tokens) and a bit more. */
export const TARGET_CHARS = 900

export interface Passage {
  /** `<document>#<number>` */
  readonly id: string
  readonly document: string
  readonly title: string
  readonly headings: string[]
  readonly text: string
  readonly start: number
  readonly end: number
}

export interface Corpus {
  readonly name: string
  /** The source text of each document. */
  readonly documents: ReadonlyMap<string, string>
  readonly passages: readonly Passage[]
}

function cut(name: string, documents: Map<string, { title: string; text: string }>): Corpus {
  const passages: Passage[] = []
  const texts = new Map<string, string>()
  for (const [document, { title, text }] of documents) {
    texts.set(document, text)
    for (const p of TextBlocks.passages(text, { targetChars: TARGET_CHARS })) {
      if (p.text.trim() === '') continue
      passages.push({
        id: `${document}#${p.number}`,
        document,
        title,
        headings: [...p.headingPath],
        text: p.text,
        start: p.start,
        end: p.end,
      })
    }
  }
  return { name, documents: texts, passages }
}

export function loadFiori(): Corpus {
  const records = readFileSync(join(getEmbeddingsPath(), 'records.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { id: string; title: string; content: string })
  return cut('fiori', new Map(records.map((r) => [r.id, { title: r.title, text: r.content }])))
}

export function loadAgentCoreDocs(): Corpus {
  const dir = join(import.meta.dirname, 'corpora', 'agent-core-docs')
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.md'))
    .sort()
  return cut(
    'agent-core-docs',
    new Map(
      files.map((file) => {
        const text = readFileSync(join(dir, file), 'utf8')
        const title = /^#\s+(.+)$/m.exec(text)?.[1]?.trim() ?? file
        return [file, { title, text }]
      }),
    ),
  )
}
