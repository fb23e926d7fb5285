import assert from 'node:assert/strict'
import { TextBlocks } from '@agent-core/kits/text-blocks'

const text = '# Title\nFirst paragraph.\n\nSecond paragraph.\n'
const blocks = TextBlocks.split(text, { targetChars: 2000 })
assert.equal(blocks.map((block) => block.text).join(''), text)
assert.equal(blocks[0]?.number, 1)
