/**
 * Loading a folder of text files for an App to index, search or ground prompts on: `loadFolder` reads the
 * text files (filtered by extension or a predicate, recursively by default) and reports every file it
 * took but could not load (unreadable, not UTF-8 text, too large, not a regular file, a link cycle)
 * instead of skipping it silently; `chunkFiles` cuts them into text-blocks passages with their path and a
 * `forced` flag on a chunk whose end falls inside a word. Node only (it reads the file system).
 *
 * @example
 * ```ts
 * import { chunkFiles, loadFolder } from '@agent-core/kits/folder'
 *
 * const { files, failures } = await loadFolder({ root: './docs', extensions: ['.md'] })
 * for (const failure of failures) console.warn(`${failure.path}: ${failure.message}`)
 * const chunks = chunkFiles(files, { targetChars: 1200, overlapChars: 120 })
 * ```
 *
 * @module
 */
export { chunkFiles, type FileChunk } from './chunk-files.js'
export {
  type FolderEntry,
  type FolderFailure,
  type FolderFailureReason,
  type FolderLoad,
  type LoadedFile,
  type LoadFolderOptions,
  loadFolder,
} from './load-folder.js'
