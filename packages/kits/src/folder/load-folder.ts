import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises'
import { join, relative, resolve, sep } from 'node:path'
import {
  assertNotThenable,
  assertSafeInteger,
  createOperationContext,
  describeValue,
  FieldReader,
  type OperationContext,
  type OperationContextInit,
  refuseField,
  throwIfAborted,
} from '@agent-core/core'

/**
 * A file or folder as the `filter` sees it, before anything is read.
 * @example
 * ```ts
 * import type { FolderEntry } from '@agent-core/kits/folder'
 * const onlyMarkdown = (entry: FolderEntry) => entry.kind === 'directory' || entry.extension === '.md'
 * ```
 */
export interface FolderEntry {
  /** The path relative to the root, with `/` separators: `guides/setup.md`. */
  readonly path: string
  /** The last part of the path: `setup.md`. */
  readonly name: string
  /** The extension, lower case, with its dot (`.md`); `''` when there is none. */
  readonly extension: string
  /** `directory` entries are asked too (with `recursive`): answer false to leave a whole folder out. */
  readonly kind: 'file' | 'directory'
}

/**
 * Options of {@link loadFolder}.
 * @example
 * ```ts
 * import type { LoadFolderOptions } from '@agent-core/kits/folder'
 * const options: LoadFolderOptions = { root: './docs', extensions: ['.md', '.txt'], maxBytes: 1_000_000 }
 * ```
 */
export interface LoadFolderOptions {
  /** The folder to load. */
  readonly root: string
  /** Load the folders inside it too. Default true. */
  readonly recursive?: boolean | undefined
  /** Only files with one of these extensions (case aside, with their dot: `.md`). Default: every file. */
  readonly extensions?: readonly string[] | undefined
  /** Synchronous: true to take the entry. Files and (when recursive) folders are asked. Default: all. */
  readonly filter?: ((entry: FolderEntry) => boolean) | undefined
  /** Files larger than this are reported (`too-large`), not read. A safe integer from 1. Default 10 MiB. */
  readonly maxBytes?: number | undefined
}

/**
 * A text file that was read: its path (relative, `/` separators), its decoded UTF-8 text (a byte order
 * mark removed) and its size in bytes.
 * @example
 * ```ts
 * import type { LoadedFile } from '@agent-core/kits/folder'
 * const file: LoadedFile = { path: 'guides/setup.md', text: '# Setup\n', bytes: 8 }
 * ```
 */
export interface LoadedFile {
  readonly path: string
  readonly text: string
  readonly bytes: number
}

/**
 * Why an entry could not be loaded:
 * - `unreadable`: the file system refused it (`code` says how: `EACCES`, `ENOENT` for a broken link, ...);
 * - `not-text`: its bytes are not UTF-8 text (invalid UTF-8, or a NUL byte: a binary file);
 * - `too-large`: larger than `maxBytes`;
 * - `not-a-file`: neither a file nor a folder (a socket, a FIFO, a device): never opened;
 * - `cycle`: a link back to a folder being loaded;
 * - `unlisted`: a folder whose entries could not be listed.
 * @example
 * ```ts
 * import type { FolderFailureReason } from '@agent-core/kits/folder'
 * const reason: FolderFailureReason = 'not-text'
 * ```
 */
export type FolderFailureReason =
  | 'unreadable'
  | 'not-text'
  | 'too-large'
  | 'not-a-file'
  | 'cycle'
  | 'unlisted'

/**
 * An entry that was taken (by the filter and extensions) but could not be loaded, and why.
 * @example
 * ```ts
 * import type { FolderFailure } from '@agent-core/kits/folder'
 * const failure: FolderFailure = { path: 'logo.png', reason: 'not-text', message: 'logo.png is not UTF-8 text (byte 0 is 0x89).' }
 * ```
 */
export interface FolderFailure {
  readonly path: string
  readonly reason: FolderFailureReason
  /** The file system's error code, for `unreadable` and `unlisted`. */
  readonly code?: string | undefined
  readonly message: string
}

/**
 * What {@link loadFolder} found: every file it read and every entry it could not, each sorted by path.
 * @example
 * ```ts
 * import { loadFolder, type FolderLoad } from '@agent-core/kits/folder'
 * const load: FolderLoad = await loadFolder({ root: './docs' })
 * if (load.failures.length > 0) console.warn(load.failures.map((f) => `${f.path}: ${f.message}`).join('\n'))
 * ```
 */
export interface FolderLoad {
  readonly files: readonly LoadedFile[]
  readonly failures: readonly FolderFailure[]
}

const DEFAULT_MAX_BYTES = 10 * 1024 * 1024

interface Options {
  readonly root: string
  readonly recursive: boolean
  readonly extensions: ReadonlySet<string> | undefined
  readonly filter: ((entry: FolderEntry) => boolean) | undefined
  readonly maxBytes: number
}

function readOptions(value: unknown): Options {
  const fields: FieldReader = new FieldReader(
    value,
    'options',
    'folder options { root, recursive?, extensions?, filter?, maxBytes? }',
    'input',
  )
  const root = fields.string('root')
  if (root === undefined) fields.fail('root', 'must be the path of the folder to load', root)
  const recursive = fields.boolean('recursive') ?? true
  const given = fields.get('extensions')
  let extensions: Set<string> | undefined
  if (given !== undefined) {
    if (!Array.isArray(given) || given.length === 0)
      fields.fail('extensions', 'must be a non-empty array of extensions such as [".md", ".txt"]', given)
    extensions = new Set(
      (given as unknown[]).map((ext: unknown, index: number) => {
        if (typeof ext !== 'string' || !/^\.[^./\\]+$/.test(ext))
          fields.fail(`extensions[${index}]`, 'must be an extension with its dot, such as ".md"', ext)
        return ext.toLowerCase()
      }),
    )
  }
  const filter = fields.func<(entry: FolderEntry) => boolean>('filter')
  const maxBytes = fields.get('maxBytes') ?? DEFAULT_MAX_BYTES
  assertSafeInteger(maxBytes, 'options.maxBytes', { min: 1 })
  fields.done()
  return { root, recursive, extensions, filter, maxBytes: maxBytes as number }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.')
  return dot <= 0 ? '' : name.slice(dot).toLowerCase()
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/**
 * Loads the text files of a folder (and, by default, the folders inside it), in path order. Files left out
 * by `extensions` or `filter` are not read; every file taken that could not be loaded is reported in
 * `failures` with why (unreadable, not UTF-8 text, too large, not a regular file, a link cycle, a folder
 * that could not be listed) instead of being skipped silently. Links are followed, each folder once.
 * @throws `InvalidInputError` for bad options, or a root that is not a folder (with the file system's reason)
 * @throws `RejectedThenableError` when `filter` returns a promise
 * @throws `AbortedError` when `context.signal` aborts (checked before each entry)
 * @example
 * ```ts
 * import { loadFolder } from '@agent-core/kits/folder'
 * const { files, failures } = await loadFolder({ root: './docs', extensions: ['.md'] })
 * for (const failure of failures) console.warn(`${failure.path}: ${failure.reason}`)
 * ```
 */
export async function loadFolder(
  options: LoadFolderOptions,
  context?: OperationContext | OperationContextInit,
): Promise<FolderLoad> {
  const parsed = readOptions(options)
  const ctx = createOperationContext(context as OperationContextInit<undefined>)
  throwIfAborted(ctx.signal, 'before loading a folder')
  const root = resolve(parsed.root)
  let rootStat: Awaited<ReturnType<typeof stat>>
  try {
    rootStat = await stat(root)
  } catch (error) {
    refuseField(
      'input',
      'options.root',
      `must be a folder that can be read, but ${errorMessage(error)}`,
      parsed.root,
    )
  }
  if (!rootStat.isDirectory()) {
    refuseField(
      'input',
      'options.root',
      'must be a folder, but it is a file; read a single file with readFile',
      parsed.root,
    )
  }
  const span = ctx.diagnostics.span('folder-load', { root: parsed.root })
  const files: LoadedFile[] = []
  const failures: FolderFailure[] = []
  const visiting = new Set<string>()
  const fail = (path: string, reason: FolderFailureReason, message: string, code?: string) =>
    failures.push(Object.freeze({ path, reason, ...(code === undefined ? {} : { code }), message }))

  const take = (entry: FolderEntry): boolean => {
    if (entry.kind === 'file' && parsed.extensions && !parsed.extensions.has(entry.extension)) return false
    if (!parsed.filter) return true
    const answer = assertNotThenable(parsed.filter(Object.freeze(entry)), 'options.filter')
    if (typeof answer !== 'boolean') {
      refuseField(
        'input',
        'options.filter',
        `must return true or false, but returned ${describeValue(answer)} for "${entry.path}"`,
        answer,
      )
    }
    return answer
  }

  const readText = async (absolute: string, path: string, size: number) => {
    if (size > parsed.maxBytes) {
      fail(path, 'too-large', `${path} has ${size} bytes, more than maxBytes (${parsed.maxBytes}).`)
      return
    }
    let bytes: Uint8Array
    try {
      bytes = await readFile(absolute)
    } catch (error) {
      fail(path, 'unreadable', `${path} could not be read: ${errorMessage(error)}`, errorCode(error))
      return
    }
    const nul = bytes.indexOf(0)
    if (nul !== -1) {
      fail(path, 'not-text', `${path} is not text: it holds a NUL byte at offset ${nul} (a binary file).`)
      return
    }
    try {
      files.push(Object.freeze({ path, text: decoder.decode(bytes), bytes: bytes.byteLength }))
    } catch {
      fail(path, 'not-text', `${path} is not UTF-8 text; decode it yourself if it has another encoding.`)
    }
  }

  const walk = async (absolute: string, real: string): Promise<void> => {
    visiting.add(real)
    let names: string[]
    try {
      names = (await readdir(absolute)).sort()
    } catch (error) {
      const path = relative(root, absolute).split(sep).join('/') || '.'
      fail(path, 'unlisted', `${path} could not be listed: ${errorMessage(error)}`, errorCode(error))
      visiting.delete(real)
      return
    }
    for (const name of names) {
      throwIfAborted(ctx.signal, 'while loading a folder')
      const entryPath = join(absolute, name)
      const path = relative(root, entryPath).split(sep).join('/')
      let info: Awaited<ReturnType<typeof stat>>
      try {
        info = await stat(entryPath)
      } catch (error) {
        // A broken link, or an entry removed meanwhile: taken or not by the file rules.
        const link = await lstat(entryPath).then(
          (s) => s.isSymbolicLink(),
          () => false,
        )
        if (take({ path, name, extension: extensionOf(name), kind: 'file' })) {
          fail(
            path,
            'unreadable',
            `${path} could not be read: ${link ? 'it is a link to nothing that exists' : errorMessage(error)}`,
            errorCode(error),
          )
        }
        continue
      }
      if (info.isDirectory()) {
        if (!parsed.recursive) continue
        if (!take({ path, name, extension: extensionOf(name), kind: 'directory' })) continue
        let realDir: string
        try {
          realDir = await realpath(entryPath)
        } catch (error) {
          fail(path, 'unlisted', `${path} could not be listed: ${errorMessage(error)}`, errorCode(error))
          continue
        }
        if (visiting.has(realDir)) {
          fail(path, 'cycle', `${path} links back to a folder being loaded; it was not loaded twice.`)
          continue
        }
        await walk(entryPath, realDir)
        continue
      }
      if (!take({ path, name, extension: extensionOf(name), kind: 'file' })) continue
      if (!info.isFile()) {
        fail(
          path,
          'not-a-file',
          `${path} is not a regular file (a socket, FIFO or device); it was not opened.`,
        )
        continue
      }
      await readText(entryPath, path, info.size)
    }
    visiting.delete(real)
  }

  try {
    await walk(root, await realpath(root))
  } catch (error) {
    span.fail(error)
    throw error
  }
  const byPath = (a: { path: string }, b: { path: string }) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0
  files.sort(byPath)
  failures.sort(byPath)
  span.end('ok', { files: files.length, failures: failures.length })
  return Object.freeze({ files: Object.freeze(files), failures: Object.freeze(failures) })
}
