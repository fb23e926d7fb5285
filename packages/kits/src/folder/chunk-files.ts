import { describeValue, refuseField } from '@agent-core/core'
import { TextBlocks, type TextPassageOptions } from '@agent-core/kits/text-blocks'

/**
 * One chunk of a loaded file: a text-blocks passage with the file's path, and `forced` when its end falls
 * inside a word (a line longer than `targetChars` with no space to cut at), so an App can show or
 * re-join such chunks rather than cite half a word.
 * @example
 * ```ts
 * import type { FileChunk } from '@agent-core/kits/folder'
 * const chunk: FileChunk = { path: 'a.md', number: 1, text: 'Hello', start: 0, end: 5, headingPath: [], forced: false }
 * ```
 */
export interface FileChunk {
  /** The file's path, as `loadFolder` gave it. */
  readonly path: string
  /** Position of the chunk in its file, from 1. */
  readonly number: number
  /** `file.text.slice(start, end)`. */
  readonly text: string
  readonly start: number
  readonly end: number
  /** The headings the chunk sits under, outermost first. */
  readonly headingPath: readonly string[]
  /** True when the chunk ends between two non-space characters: the boundary was forced inside a word. */
  readonly forced: boolean
}

function isSpace(char: string | undefined): boolean {
  return char === undefined || /\s/u.test(char)
}

/**
 * Cuts loaded files into chunks: each file's `TextBlocks.passages` (structure first, long lines at a
 * sentence end or a space), with its path, and `forced` marking a chunk that ends inside a word.
 * @param files - files as `loadFolder` returns them (any `{ path, text }` objects)
 * @throws `InvalidInputError` for files that are not `{ path, text }`, or bad passage options
 * @example
 * ```ts
 * import { chunkFiles } from '@agent-core/kits/folder'
 * const chunks = chunkFiles([{ path: 'a.txt', text: 'x'.repeat(25) }], { targetChars: 10 })
 * chunks.map((c) => c.forced) // [true, true, false]
 * ```
 */
export function chunkFiles(
  files: readonly { readonly path: string; readonly text: string }[],
  options: TextPassageOptions,
): readonly FileChunk[] {
  if (!Array.isArray(files)) {
    refuseField(
      'input',
      'files',
      `must be an array of { path, text } (loadFolder's files), but got ${describeValue(files)}`,
      files,
      { prefix: 'chunkFiles ' },
    )
  }
  const chunks: FileChunk[] = []
  files.forEach((file: unknown, index) => {
    const { path, text } = (typeof file === 'object' && file !== null ? file : {}) as Record<string, unknown>
    if (typeof path !== 'string' || typeof text !== 'string') {
      refuseField(
        'input',
        `files[${index}]`,
        `must be { path, text } with two strings, but got ${describeValue(file)}`,
        file,
        { prefix: 'chunkFiles ', details: { index } },
      )
    }
    for (const passage of TextBlocks.passages(text, options)) {
      chunks.push(
        Object.freeze({
          path,
          number: passage.number,
          text: passage.text,
          start: passage.start,
          end: passage.end,
          headingPath: passage.headingPath,
          forced: passage.end < text.length && !isSpace(text[passage.end - 1]) && !isSpace(text[passage.end]),
        }),
      )
    }
  })
  return Object.freeze(chunks)
}
