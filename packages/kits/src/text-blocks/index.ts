/**
 * Splits decoded plain text into numbered, structure-following blocks whose `start`/`end` UTF-16 offsets
 * point back into the source and whose texts join back into it exactly, and merges them into retrieval
 * passages that carry their heading path. No I/O: reading files, paging, indexing and prompting stay
 * with the App.
 *
 * @example
 * ```ts
 * import { TextBlocks } from '@agent-core/kits/text-blocks'
 *
 * const blocks = TextBlocks.split('# Title\nBody\n\nMore\n', { targetChars: 1000 })
 * blocks.length // 2
 * blocks[1]?.start // 14
 * const [passage] = TextBlocks.passages('# Title\nBody\n\nMore\n', { targetChars: 1000 })
 * passage?.headingPath // ['Title']
 * ```
 *
 * @module
 */
export type { TextPassage, TextPassageOptions } from './passages.js'
export type { TextBlock, TextBlockSplitOptions } from './split.js'
export { TextBlocks } from './text-blocks.js'
