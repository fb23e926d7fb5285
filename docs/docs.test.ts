import { describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs script without type declarations
import { writeBlocks } from '../scripts/docs-extract.mjs'

interface Block {
  source: string
  file: string
  line: number
  run: boolean
}

const blocks: Block[] = writeBlocks()

describe('documentation code blocks run', () => {
  it('finds code blocks in the docs', () => {
    expect(blocks.length).toBeGreaterThan(0)
  })
  for (const block of blocks.filter((b) => b.run)) {
    it(`${block.source}:${block.line}`, async () => {
      await import(/* @vite-ignore */ block.file)
    })
  }
})
