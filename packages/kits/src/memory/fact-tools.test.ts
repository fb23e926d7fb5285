import { createScriptedModel, defineAgent } from '@agent-core/kits/loop'
import { describe, expect, it } from 'vitest'
import { createMemorySessionStore, defineFactTools } from './index.js'

describe('defineFactTools', () => {
  it('lets an agent remember, recall and forget facts in the scope its context names; the App reads them', async () => {
    const store = createMemorySessionStore({ now: () => 1000 })
    const tools = defineFactTools<{ userId: string }>({
      store,
      scope: (context) => `user:${context.app.userId}`,
    })
    expect(tools.map((tool) => tool.id)).toEqual(['remember', 'recall', 'forget'])
    const model = createScriptedModel([
      {
        toolCalls: [
          { name: 'remember', input: { key: 'city', value: 'Lyon' } },
          { name: 'remember', input: { key: 'diet', value: 'vegetarian' } },
        ],
      },
      { toolCalls: [{ name: 'forget', input: { key: 'diet' } }] },
      { toolCalls: [{ name: 'recall', input: {} }] },
      (request) => ({ text: `I remember: ${request.messages.at(-1)?.content}` }),
    ])
    const result = await defineAgent({ model, tools }).run(
      { prompt: 'I live in Lyon.' },
      { app: { userId: '42' } },
    )
    expect(result.text).toBe('I remember: {"facts":[{"key":"city","value":"Lyon"}]}')
    expect(await store.recallAll('user:42')).toEqual([{ key: 'city', value: 'Lyon', updatedAtMs: 1000 }])
    expect(await store.recallAll('user:7')).toEqual([])
  })

  it('recalls one fact by key, and nothing for an unknown key', async () => {
    const store = createMemorySessionStore()
    await store.remember('s', 'name', 'Ada')
    const [, recall] = defineFactTools({ store, scope: () => 's', prefix: 'memory_' })
    expect(recall!.id).toBe('memory_recall')
    const context = { invocationId: 'i1', signal: new AbortController().signal, app: undefined } as never
    expect(await recall!.execute({ key: 'name' }, context)).toEqual({
      facts: [{ key: 'name', value: 'Ada' }],
    })
    expect(await recall!.execute({ key: 'age' }, context)).toEqual({ facts: [] })
  })

  it('refuses bad definitions, and a scope hook that returns a promise or no string', async () => {
    const store = createMemorySessionStore()
    expect(() => defineFactTools({ store: {} as never, scope: () => 's' })).toThrow(
      expect.objectContaining({ code: 'invalid-definition' }),
    )
    expect(() => defineFactTools({ store } as never)).toThrow(/scope/)
    expect(() => defineFactTools({ store, scope: () => 's', extra: 1 } as never)).toThrow(/not a known field/)
    const context = { invocationId: 'i1', signal: new AbortController().signal, app: undefined } as never
    const [remember] = defineFactTools({ store, scope: (async () => 's') as never })
    await expect(remember!.execute({ key: 'k', value: 'v' }, context)).rejects.toMatchObject({
      code: 'rejected-thenable',
    })
    const [again] = defineFactTools({ store, scope: () => '' })
    await expect(again!.execute({ key: 'k', value: 'v' }, context)).rejects.toMatchObject({
      code: 'invalid-output',
    })
  })
})
