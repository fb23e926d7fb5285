import { InvalidInputError } from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { defineRetrieval, RetrievalLedger } from './index.js'

describe('RetrievalLedger', () => {
  it('takes non-negative safe integers, and a queryCount within the limit', () => {
    for (const limit of [-1, 1.5, Number.NaN, 2 ** 53, '3', undefined, null]) {
      expect(() => new RetrievalLedger({ limit } as never)).toThrow(InvalidInputError)
    }
    expect(() => new RetrievalLedger({ limit: 2, queryCount: 3 })).toThrow(/queryCount must be .* at most 2/)
    expect(() => new RetrievalLedger({ limit: 2, queryCount: -1 })).toThrow(InvalidInputError)
    expect(() => new RetrievalLedger({ limit: 2, sourceCount: 0.5 })).toThrow(InvalidInputError)
    expect(() => new RetrievalLedger({ limit: 2, seen: [{ retrievalId: '', key: 'k' }] })).toThrow(
      /seen\[0\]/,
    )
    expect(() => new RetrievalLedger(null as never)).toThrow(InvalidInputError)
    expect(new RetrievalLedger({ limit: 0 }).remaining).toBe(0)
  })

  it('survives a JSON round trip with its counts and seen keys', () => {
    const ledger = new RetrievalLedger({ limit: 3 })
    const retrieval = defineRetrieval({
      id: 'words',
      assertInput(input: unknown): asserts input is string {
        if (typeof input !== 'string') throw new TypeError('a string')
      },
      key: (query: string) => query,
      ledger: (context: { app: RetrievalLedger }) => context.app,
      execute: (query: string) => query.split(' '),
    })
    retrieval.run('a b', { app: ledger })
    const restored = new RetrievalLedger(JSON.parse(JSON.stringify(ledger)))
    expect(restored.toJSON()).toEqual({
      limit: 3,
      queryCount: 1,
      sourceCount: 2,
      seen: [{ retrievalId: 'words', key: 'a b' }],
    })
    expect(() => retrieval.run('a b', { app: restored })).toThrow(/already started a query/)
    expect(retrieval.run('c', { app: restored }).sources[0]?.sourceId).toBe('S3')
  })
})
