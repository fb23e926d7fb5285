/**
 * Long text streams are patched copies of one rendered template, and the node server hands a copy back for
 * reuse once it is flushed. Many concurrent streams over real HTTP must each carry only their own id.
 */
import { describe, expect, it } from 'vitest'
import { parseSse } from '../testing/sse.js'
import { startMockGPTServer } from './start-mock-gpt-server.js'

describe('reused stream buffers', () => {
  it('never mix ids between concurrent or consecutive streams', async () => {
    const text = Array.from({ length: 200 }, (_, i) => `token${i}`).join(' ')
    const server = await startMockGPTServer({
      script: [{ reply: { type: 'text', text }, times: Number.POSITIVE_INFINITY }],
    })
    try {
      const stream = async () => {
        const response = await fetch(`${server.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'gpt-4o-mini',
            stream: true,
            messages: [{ role: 'user', content: 'x' }],
          }),
        })
        const chunks = parseSse(await response.text())
          .filter((e) => e.data !== '[DONE]')
          .map((e) => JSON.parse(e.data) as { id: string; choices: { delta: { content?: string } }[] })
        return {
          ids: new Set(chunks.map((c) => c.id)),
          text: chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''),
        }
      }
      const seen = new Set<string>()
      for (let round = 0; round < 4; round++) {
        const results = await Promise.all(Array.from({ length: 24 }, stream))
        for (const result of results) {
          expect(result.ids.size).toBe(1)
          expect(result.text).toBe(text)
          const [id] = result.ids
          expect(seen.has(id as string)).toBe(false)
          seen.add(id as string)
        }
      }
      expect(seen.size).toBe(96)
    } finally {
      await server.close()
    }
  })
})
