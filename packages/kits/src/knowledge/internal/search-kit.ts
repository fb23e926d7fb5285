/**
 * The search kit, imported by the first call that needs it instead of with every knowledge subpath:
 * building the publication's HybridSearch (the first search, passage lookup or change after a load, or
 * `load()`), turning a failed embedding call into an EmbeddingError, and the first search of a
 * `PostgresKnowledgeIndex` (`looksExact`, the hits' details, `englishAnalyzer` when the options gave no
 * analyzer). Imported at the top, it cost each cold import of `kits/knowledge` and of the store subpaths
 * that import it (`/sqlite`, `/testing`, `/postgres`) the search kit's compile, minisearch and the stemmer
 * included (docs/design/cold-import.md). A process that lists or publishes unchanged documents never
 * loads it. Every check of a definition or a request still runs where it did (search-settings.ts for the
 * search settings).
 */
import type * as SearchKit from '@agent-core/kits/search'

/** What the knowledge kit uses of `@agent-core/kits/search` at run time. */
export type SearchKitModule = Pick<
  typeof SearchKit,
  'HybridSearch' | 'EmbeddingError' | 'englishAnalyzer' | 'looksExact'
>

let loaded: SearchKitModule | undefined
let loading: Promise<SearchKitModule> | undefined

/** The search kit once an earlier call loaded it, so later calls take it without an `await`. */
export function loadedSearchKit(): SearchKitModule | undefined {
  return loaded
}

/** Imports the search kit once; a failed import is tried again by the next call. */
export function loadSearchKit(): Promise<SearchKitModule> {
  loading ??= import('@agent-core/kits/search').then(
    (kit) => {
      loaded = kit
      return kit
    },
    (error: unknown) => {
      loading = undefined
      throw error
    },
  )
  return loading
}
