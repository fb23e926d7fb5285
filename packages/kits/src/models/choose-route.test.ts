import { InvalidInputError, type ModelRequest } from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { chooseRoute, StructuredOutputError } from './index.js'

const routes = [
  { name: 'billing', description: 'invoices, refunds, payment' },
  { name: 'tech', description: 'bugs, errors, how-to' },
  { name: 'sales', description: 'pricing, plans' },
] as const

function replying(replies: string[]) {
  const requests: ModelRequest[] = []
  const model = async (request: ModelRequest) => {
    requests.push(request)
    return replies.shift() ?? ''
  }
  return { model, requests }
}

describe('chooseRoute', () => {
  it('returns the picked route and its reason, and lists every route to the model', async () => {
    const { model, requests } = replying(['{"route": "tech", "reason": "a crash"}'])
    const choice = await chooseRoute({ model, routes, prompt: 'The app crashes on upload.' })
    expect(choice).toMatchObject({ route: 'tech', reason: 'a crash', attempts: 1, refused: [] })
    const instructions = requests[0]?.messages[0]?.content ?? ''
    for (const route of routes) expect(instructions).toContain(`- ${route.name}: ${route.description}`)
    expect(instructions).toContain('"enum":["billing","tech","sales"]')
  })

  it('corrects a pick outside the set, naming the allowed routes', async () => {
    const { model, requests } = replying(['{"route": "support"}', '{"route": "sales"}'])
    const choice = await chooseRoute({ model, routes, prompt: 'How much is the pro plan?' })
    expect(choice.route).toBe('sales')
    expect(choice.reason).toBeUndefined()
    expect(choice.refused[0]?.issues).toEqual([
      {
        path: '/route',
        keyword: 'schema',
        message: 'must be one of "billing", "tech", "sales", but was "support"',
      },
    ])
    expect(requests[1]?.messages.at(-2)).toEqual({ role: 'assistant', content: '{"route": "support"}' })
  })

  it('accepts a bare route name, quoted or not', async () => {
    for (const reply of ['billing', ' "billing" ', "'billing'", '`billing`']) {
      const { model } = replying([reply])
      expect((await chooseRoute({ model, routes, prompt: 'refund?' })).route).toBe('billing')
    }
  })

  it('fails with StructuredOutputError when the model keeps picking outside the set', async () => {
    const { model } = replying(['{"route": "x"}', 'unknown', '{"route": "y"}'])
    const error = await chooseRoute({ model, routes, prompt: '?', maxCorrections: 1 }).catch(
      (e: unknown) => e,
    )
    expect(StructuredOutputError.isInstance(error)).toBe(true)
    expect((error as StructuredOutputError).attempts).toHaveLength(2)
  })

  it('refuses empty, unnamed, undescribed and repeated routes', async () => {
    const { model, requests } = replying([])
    for (const bad of [
      [],
      'billing',
      [{ name: '', description: 'x' }],
      [{ name: 'a' }],
      [
        { name: 'a', description: 'x' },
        { name: 'a', description: 'y' },
      ],
      [null],
    ]) {
      await expect(chooseRoute({ model, routes: bad as never, prompt: 'x' })).rejects.toSatisfy((error) =>
        InvalidInputError.isInstance(error),
      )
    }
    await expect(chooseRoute(null as never)).rejects.toSatisfy((error) => InvalidInputError.isInstance(error))
    expect(requests).toEqual([])
  })
})
