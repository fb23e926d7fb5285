import OpenAI from 'openai'
import { expect, it } from 'vitest'
import { useMockGPT } from '../index.js'

const mock = useMockGPT({ strict: true })
const ask = (content: string) =>
  new OpenAI({ maxRetries: 0 }).chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content }],
  })

it('passes: its one entry answered', async () => {
  mock.script({ reply: { type: 'text', text: 'used' } })
  expect((await ask('x')).choices[0]?.message.content).toBe('used')
})

it('fails: it left an entry unused', async () => {
  mock.script(
    { reply: { type: 'text', text: 'used' } },
    { label: 'forgotten', reply: { type: 'text', text: 'never' } },
  )
  await ask('x')
})

it('fails: a request matched nothing, even though the test swallowed the error', async () => {
  await ask('unscripted').catch(() => undefined)
})
