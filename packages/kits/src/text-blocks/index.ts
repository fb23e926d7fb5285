/**
 * Splits decoded plain text into numbered, structure-following blocks whose `start`/`end` UTF-16 offsets
 * point back into the source and whose texts join back into it exactly. No I/O: reading files, paging,
 * indexing and prompting stay with the App.
 *
 * @example
 * ```ts
 * import { TextBlocks } from '@agent-core/kits/text-blocks'
 *
 * const blocks = TextBlocks.split('# Title\nBody\n\nMore\n', { targetChars: 1000 })
 * blocks.length // 2
 * blocks[1]?.start // 14
 * ```
 *
 * @module
 */
export { type TextBlock, type TextBlockSplitOptions, TextBlocks } from './split.js'
