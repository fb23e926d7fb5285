import { describe, expect, it } from 'vitest'
import { BodyCache, withBody } from './body-cache.js'
import { normalizeChatRequest } from './normalize-chat.js'

const chat = (content: string) => ({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] })

describe('BodyCache', () => {
  it('keeps entries per endpoint and body text, forgets the oldest past its bound, never keys long bodies', () => {
    const cache = new BodyCache()
    const text = JSON.stringify(chat('hi'))
    const entry = cache.add('chat.completions', text, normalizeChatRequest(chat('hi')))
    expect(cache.get('chat.completions', text)).toBe(entry)
    expect(cache.get('messages', text)).toBeUndefined()
    expect(cache.get('chat.completions', ` ${text}`)).toBeUndefined()
    for (let i = 0; i < 128; i++) {
      const other = chat(`m${i}`)
      cache.add('chat.completions', JSON.stringify(other), normalizeChatRequest(other))
    }
    expect(cache.get('chat.completions', text)).toBeUndefined()
    expect(cache.get('chat.completions', JSON.stringify(chat('m127')))).toBeDefined()
    const long = chat('x'.repeat(20_000))
    expect(cache.add('chat.completions', JSON.stringify(long), normalizeChatRequest(long))).toBeUndefined()
    expect(cache.get('chat.completions', JSON.stringify(long))).toBeUndefined()
  })

  it('withBody gives the normalized request of another parse of the same text', () => {
    const text = JSON.stringify({ ...chat('hello'), max_tokens: 5, stop: ['x'] })
    const first = normalizeChatRequest(JSON.parse(text))
    const again = JSON.parse(text)
    expect(withBody(first, again)).toEqual(normalizeChatRequest(again))
    expect(withBody(first, again).body).toBe(again)
  })
})
