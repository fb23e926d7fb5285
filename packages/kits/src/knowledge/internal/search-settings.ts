/**
 * A publication's search settings, checked when it is defined, and the options of its HybridSearch.
 *
 * The index is built on the first load that needs it, when `@agent-core/kits/search` is loaded (see
 * search-kit.ts), but a bad `search` setting is still refused by `defineKnowledgePublication`, with the
 * error that `new HybridSearch` throws for it (the caller rewrites it with `asDefinitionError`, as
 * before). {@link checkSearchSettings} makes the checks that constructor makes of the settings a
 * publication passes it (boost, fusion, then the analyzer, in its order and words);
 * search-settings.test.ts compares the two on generated settings. The index's constructor still runs
 * every check when it is built, so a setting this file lets through is refused there.
 */
import { assertSafeInteger, describeValue, refuseField } from '@agent-core/core'
import type { HybridSearchOptions } from '@agent-core/kits/search'
import type { KnowledgeSearchOptions } from '../knowledge-definition.js'
import type { KnowledgePassage } from '../knowledge-types.js'
import type { StagedEmbedder } from './index-embedder.js'
import { embedTextOf } from './passages.js'

const FIELDS = ['title', 'headingPath', 'text'] as const
const DEFAULT_BOOST = { title: 3, headingPath: 2 }

/** The options of a publication's HybridSearch: its settings over the fixed passage fields. */
export function hybridOptions(
  id: string,
  search: KnowledgeSearchOptions,
  staged: StagedEmbedder | undefined,
): HybridSearchOptions<KnowledgePassage> {
  return {
    indexRevision: `agent-core/knowledge:${id}`,
    fields: [...FIELDS],
    boost: search.boost ?? DEFAULT_BOOST,
    ...(search.analyzer !== undefined ? { analyzer: search.analyzer } : {}),
    ...(search.fusion !== undefined ? { fusion: search.fusion } : {}),
    ...(staged !== undefined ? { embedder: staged } : {}),
    embedText: embedTextOf,
    snippetField: 'text',
    // Passages know their document: with fusion.documentSupport set, they support each other.
    documentOf: (passage) => passage.documentId,
  }
}

/**
 * Throws what `new HybridSearch(hybridOptions(...))` throws for these settings (an InvalidInputError
 * naming `options.boost.title`, `options.fusion.k`, `options.analyzer`, ...), or returns.
 */
export function checkSearchSettings(search: KnowledgeSearchOptions): void {
  const boost: unknown = search.boost ?? DEFAULT_BOOST
  isRecord(boost, 'new HybridSearch', '{ title: 3 }', 'options.boost')
  for (const [field, factor] of Object.entries(boost)) {
    if (!(FIELDS as readonly string[]).includes(field)) {
      refuseField(
        'input',
        `options.boost.${field}`,
        `names "${field}", which is not one of the fields (${FIELDS.join(', ')})`,
        field,
        { prefix: 'HybridSearch ' },
      )
    }
    finite(factor, `options.boost.${field}`, 0, true)
  }
  checkFusion(search.fusion)
  checkAnalyzer(search.analyzer)
}

/** HybridSearch's `readFusion`: each option of `fusion`, with its default. */
function checkFusion(value: unknown): void {
  if (value !== undefined) isRecord(value, 'new HybridSearch', '{ k: 60, textWeight: 1 }', 'options.fusion')
  const options = (value ?? {}) as Record<string, unknown>
  finite(options.k ?? 60, 'options.fusion.k', 0, false)
  finite(options.textWeight ?? 1, 'options.fusion.textWeight', 0, true)
  finite(options.vectorWeight ?? 1, 'options.fusion.vectorWeight', 0, true)
  choice(options.lookups, 'lookups', ['text-first', 'fuse'])
  choice(options.lookupRanking, 'lookupRanking', ['flat', 'boosted'])
  assertSafeInteger(options.candidates ?? 50, 'options.fusion.candidates', { min: 1 })
  finite(options.documentSupport ?? 0, 'options.fusion.documentSupport', 0, false)
  finite(options.verbatim ?? 0.5, 'options.fusion.verbatim', 0, false)
}

/** TextSearch's analyzer check (HybridSearch hands it `analyzer ?? englishAnalyzer`). */
function checkAnalyzer(value: unknown): void {
  if (value === undefined || value === null) return
  const analyzer = value as Record<string, unknown>
  if (
    typeof value !== 'object' ||
    typeof analyzer.name !== 'string' ||
    typeof analyzer.version !== 'number' ||
    typeof analyzer.tokenize !== 'function' ||
    typeof analyzer.terms !== 'function'
  ) {
    refuseField(
      'input',
      'options.analyzer',
      `must be a TextAnalyzer (englishAnalyzer, standardAnalyzer or one from defineTextAnalyzer), but got ${describeValue(value)}`,
      value,
      { prefix: 'TextSearch ' },
    )
  }
}

function isRecord(
  value: unknown,
  where: string,
  shape: string,
  field: string,
): asserts value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    refuseField('input', field, `must be an object like ${shape}, but got ${describeValue(value)}`, value, {
      prefix: `${where}: `,
    })
  }
}

function finite(value: unknown, field: string, min: number, exclusiveMin: boolean): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || (exclusiveMin ? value <= min : value < min)) {
    const range = exclusiveMin ? ` greater than ${min}` : ` of at least ${min}`
    refuseField('input', field, `must be a finite number${range}, but got ${describeValue(value)}`, value, {
      details: { min },
    })
  }
}

function choice(value: unknown, field: string, allowed: readonly string[]): void {
  if (value === undefined || (typeof value === 'string' && allowed.includes(value))) return
  refuseField(
    'input',
    `options.fusion.${field}`,
    `must be ${allowed.map((one) => `"${one}"`).join(' or ')}, but got ${describeValue(value)}`,
    value,
    { prefix: 'HybridSearch ' },
  )
}
