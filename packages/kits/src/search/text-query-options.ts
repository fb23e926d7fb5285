/**
 * The minisearch query options that {@link TextSearch} exposes, per request or as defaults
 * (`searchOptions`). Unset options fall back to the defaults, then to minisearch's own.
 *
 * @example
 * ```ts
 * import type { TextQueryOptions } from '@agent-core/kits/search'
 * const typoTolerant: TextQueryOptions<'title' | 'body'> = { prefix: true, fuzzy: 0.2, boost: { title: 2 }, combineWith: 'AND' }
 * ```
 */
export interface TextQueryOptions<Field extends string = string> {
  /** Also match indexed terms that start with a query term (weighted by `weights.prefix`). */
  readonly prefix?: boolean
  /**
   * Also match terms within an edit distance: a number below 1 is a fraction of the term length, 1 or
   * more is the distance itself (at most 32), `true` means 0.2. Weighted by `weights.fuzzy`.
   */
  readonly fuzzy?: boolean | number
  /** The largest edit distance a fractional `fuzzy` may reach (minisearch's default: 6; at most 32). */
  readonly maxFuzzy?: number
  /** Multiplies the score of matches in a field, e.g. `{ title: 2 }`. Positive finite numbers. */
  readonly boost?: Readonly<Partial<Record<Field, number>>>
  /** How the terms of a query combine: `"OR"` (the default), `"AND"` or `"AND_NOT"`. */
  readonly combineWith?: 'OR' | 'AND' | 'AND_NOT' | 'or' | 'and' | 'and_not'
  /** Search only these indexed fields. */
  readonly fields?: readonly Field[]
  /** Relative weights of prefix and fuzzy matches against exact ones (defaults 0.375 and 0.45). */
  readonly weights?: { readonly fuzzy?: number; readonly prefix?: number }
  /** BM25 parameters (defaults `k` 1.2, `b` 0.7, `d` 0.5). */
  readonly bm25?: { readonly k?: number; readonly b?: number; readonly d?: number }
  /**
   * Multiplies the score a query term contributes, keyed by the term as the analyzer makes it (after
   * lower-casing and stemming): `{ field: 0.3 }` lets the part `field` of `UI.FieldGroup` count less than
   * the whole identifier. Positive finite numbers; a term not named counts 1.
   */
  readonly termBoost?: Readonly<Record<string, number>>
}
