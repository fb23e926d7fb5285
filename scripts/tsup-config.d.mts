/** Types of scripts/tsup-config.mjs, for the test of the packages it bundles (see the .mjs). */
import type { Plugin } from 'esbuild'

/** The third-party packages one package compiles into its dist (`agentCore.bundledIntoDist`, all subpaths). */
export function bundledPackageNames(packageDir: string): string[]
/** The esbuild plugin the build uses for the files of the bundled packages (ESM form, ASCII-only, license comment). */
export function bundledPackages(packageDir: string, names: readonly string[]): Plugin
/** The folder (real path) of a package installed for `packageDir`. */
export function installedPackageRoot(packageDir: string, name: string): string
/** The license file of an installed package (`LICENSE`, `LICENSE.md`, `LICENSE.txt`, ...). */
export function licenseFile(packageRoot: string): string
/** A bundled file's text with every non-ASCII character as a `\uXXXX` escape (throws where that would change the code). */
export function asciiOnly(source: string, path: string): string
export function packageBuildConfig(pkg: 'core' | 'kits' | 'mock', platform: 'node' | 'neutral'): object
