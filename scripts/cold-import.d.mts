/** Types of scripts/cold-import.mjs, for the benchmark that imports it (see the .mjs for what it measures). */
export interface PublicSubpath {
  readonly pkg: string
  readonly packageName: string
  readonly subpath: string
  readonly specifier: string
  readonly entry: string
  readonly declared: readonly string[]
  /** Third-party packages the build compiles into this subpath's dist (`agentCore.bundledIntoDist`). */
  readonly bundled: readonly string[]
}
export interface ColdImportProbe {
  readonly modules: readonly {
    readonly file: string
    readonly kind: 'esm' | 'cjs'
    readonly owner: string | undefined
  }[]
  readonly esm: number
  readonly cjs: number
  readonly thirdPartyModules: number
  readonly thirdParty: readonly string[]
  readonly direct: readonly { readonly from: string; readonly package: string }[]
  readonly entries: readonly string[]
}
export function publicSubpaths(): PublicSubpath[]
export function createConsumer(): { readonly dir: string; dispose(): void }
export function timeColdImport(dir: string, specifier: string): number
/** Wall and CPU (user + system) milliseconds one fresh process spends in `await import(specifier)`. */
export function measureColdImport(dir: string, specifier: string): { ms: number; cpuMs: number }
export function probeColdImport(dir: string, specifier: string): ColdImportProbe
export function ownerOf(file: string): string | undefined
export function median(values: readonly number[]): number
export function readManifest(p: { readonly dir: string }): Record<string, unknown>
export function subpathDependencies(p: { readonly dir: string }): Record<string, string[]>
export function bundledIntoDist(p: { readonly dir: string }): Record<string, string[]>
