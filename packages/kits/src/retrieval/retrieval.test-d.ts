import { describe, expectTypeOf, it } from 'vitest'
import { defineRetrieval, RetrievalLedger, type RetrievalReceipt } from './index.js'

interface App {
  readonly ledger: RetrievalLedger
}
const base = {
  assertInput(input: unknown): asserts input is string {
    if (typeof input !== 'string') throw new TypeError('a string')
  },
  key: (query: string) => query,
  ledger: (context: { app: App }) => context.app.ledger,
}
const app: App = { ledger: new RetrievalLedger({ limit: 1 }) }

describe('defineRetrieval types', () => {
  it('a synchronous retrieval returns the receipt, not a Promise', () => {
    const words = defineRetrieval({ id: 'words', ...base, execute: (query: string) => query.split(' ') })
    expectTypeOf(words.run('a b', { app })).toEqualTypeOf<RetrievalReceipt<string>>()
    // @ts-expect-error: the input type comes from assertInput and execute
    words.run(42, { app })
  })

  it('an asynchronous retrieval returns a Promise of the receipt', () => {
    const remote = defineRetrieval({
      id: 'remote',
      mode: 'async',
      ...base,
      execute: async (query: string) => [{ id: query, score: 1 }],
    })
    expectTypeOf(remote.run('a', { app })).toEqualTypeOf<
      Promise<RetrievalReceipt<{ id: string; score: number }>>
    >()
  })

  it('a synchronous definition may not return a Promise from execute', () => {
    // @ts-expect-error: without mode 'async', execute must return the materials synchronously
    defineRetrieval({ id: 'wrong', ...base, execute: async (query: string) => [query] })
  })
})
