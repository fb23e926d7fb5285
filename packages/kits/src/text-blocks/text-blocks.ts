import { passages, type TextPassage, type TextPassageOptions } from './passages.js'
import { split, type TextBlock, type TextBlockSplitOptions } from './split.js'

/**
 * Structure-aware splitting of decoded plain text into numbered blocks (`split`) and retrieval passages
 * (`passages`), with exact UTF-16 offsets. The kit reads no files, pages nothing and calls no model:
 * paging windows, indexing and prompts stay the App's.
 *
 * @example
 * ```ts
 * import { TextBlocks } from '@agent-core/kits/text-blocks'
 *
 * const text = '# Intro\nHello.\n\n# Usage\nRun it.\n'
 * const blocks = TextBlocks.split(text, { targetChars: 2000 })
 * blocks.map((b) => b.text) // ['# Intro\nHello.\n\n', '# Usage\nRun it.\n']
 * blocks.map((b) => b.text).join('') === text // true
 * TextBlocks.passages(text, { targetChars: 2000 }).map((p) => p.headingPath) // [['Intro'], ['Usage']]
 * ```
 */
export const TextBlocks: {
  /**
   * Splits `text` into blocks that start at headings and rules, end after blank lines and break at line
   * boundaries before `targetChars` is exceeded. Throws InvalidInputError on a non-string text or a
   * `targetChars` that is not a positive safe integer.
   */
  readonly split: (text: string, options: TextBlockSplitOptions) => readonly TextBlock[]
  /**
   * Merges consecutive blocks into retrieval passages of up to `targetChars`, starting a new passage at
   * each heading (a heading never stands alone), each with its heading path and exact offsets, optionally
   * repeating up to `overlapChars` of the previous passage of the same section. Throws InvalidInputError
   * on a non-string text, a bad `targetChars`, or an `overlapChars` that is negative or not smaller than
   * `targetChars`.
   */
  readonly passages: (text: string, options: TextPassageOptions) => readonly TextPassage[]
} = Object.freeze({ split, passages })
