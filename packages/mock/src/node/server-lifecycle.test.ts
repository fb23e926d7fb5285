import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { InvalidInputError } from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { startMockGPTServer } from './start-mock-gpt-server.js'

const body = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], ...extra })

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(condition()).toBe(true)
}

/** A raw node:http POST, so the transfer framing headers are visible (fetch hides some of them). */
function rawPost(url: string, text: string): Promise<{ headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          body += chunk
        })
        res.on('end', () => resolve({ headers: res.headers, body }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(text)
  })
}

describe('startMockGPTServer lifecycle', () => {
  it('streams with chunked transfer and no Content-Length; JSON answers carry a Content-Length', async () => {
    const server = await startMockGPTServer({ port: 0, host: '127.0.0.1' })
    try {
      const stream = await rawPost(`${server.baseURL}/chat/completions`, body({ stream: true }))
      expect(stream.headers['transfer-encoding']).toBe('chunked')
      expect(stream.headers['content-length']).toBeUndefined()
      expect(stream.body.endsWith('data: [DONE]\n\n')).toBe(true)
      const json = await rawPost(`${server.baseURL}/chat/completions`, body())
      expect(json.headers['transfer-encoding']).toBeUndefined()
      expect(Number(json.headers['content-length'])).toBe(Buffer.byteLength(json.body))
    } finally {
      await server.close()
    }
  })

  it('close() ends hung and slow responses so no handle leaks, and is idempotent', async () => {
    const server = await startMockGPTServer({
      script: [
        { faults: [{ type: 'hang' }] },
        { faults: [{ type: 'slow-chunks', delayMs: 60_000 }] },
        { faults: [{ type: 'hang', afterChunks: 2 }] },
      ],
    })
    const post = (stream: boolean) =>
      fetch(`${server.baseURL}/chat/completions`, { method: 'POST', body: body({ stream }) })
    const hung = post(false).then(
      () => 'answered',
      (e: unknown) => (e as Error).name,
    )
    await waitFor(() => server.mock.requests.length === 1)
    const slow = await post(true)
    const midway = await post(true)
    const reading = Promise.all([slow.text().catch(() => 'ended'), midway.text().catch(() => 'ended')])
    await server.close()
    await server.close()
    expect(await hung).toBe('TypeError')
    expect(await reading).toEqual(['ended', 'ended'])
  })

  it('answers 413 for a body over maxBodyBytes and still serves the next request', async () => {
    const server = await startMockGPTServer({ maxBodyBytes: 64 })
    try {
      const big = await fetch(`${server.baseURL}/chat/completions`, {
        method: 'POST',
        body: body({ padding: 'x'.repeat(200) }),
      })
      expect(big.status).toBe(413)
      expect(((await big.json()) as { error: { code: string } }).error.code).toBe('request_too_large')
      const models = await fetch(`${server.baseURL}/models`)
      expect(models.status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it('rejects bad options with InvalidInputError', async () => {
    await expect(startMockGPTServer({ port: -1 })).rejects.toBeInstanceOf(InvalidInputError)
    await expect(startMockGPTServer({ port: Number.NaN })).rejects.toBeInstanceOf(InvalidInputError)
    await expect(startMockGPTServer({ host: '' })).rejects.toBeInstanceOf(InvalidInputError)
    await expect(startMockGPTServer({ seed: 1.5 })).rejects.toBeInstanceOf(InvalidInputError)
    await expect(startMockGPTServer({ maxBodyBytes: 0 })).rejects.toBeInstanceOf(InvalidInputError)
  })
})
