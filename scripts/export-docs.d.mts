/** Types of scripts/export-docs.mjs, for its test (see the .mjs for the rule it checks). */
export interface DeclarationExports {
  /** Exported name -> the TSDoc comments of its declarations, joined ('' when it has none). */
  readonly own: ReadonlyMap<string, string>
  /** Exported name -> the module and name it is re-exported from. */
  readonly reexported: ReadonlyMap<string, { readonly from: string; readonly name: string }>
  /** Modules re-exported whole (`export * from 'x'`). */
  readonly stars: readonly string[]
  readonly problems: readonly string[]
}
export function readExports(text: string, file?: string): DeclarationExports
export function docProblem(doc: string, specifier: string): string | undefined
export function createExportDocsChecker(
  read: (specifier: string) => string | undefined,
): (specifier: string) => string[]
