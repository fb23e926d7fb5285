import { createServer, request as httpRequest, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import type { MockGPT } from '../mock-gpt.js'
import type { MockHttpResponse } from '../mock-http.js'
import { createMockGPTRequestListener } from './request-listener.js'

/** Serves one fixed response description, whatever the request, and returns what a client receives. */
async function served(
  response: MockHttpResponse,
  create = createMockGPTRequestListener,
): Promise<{ res: IncomingMessage; body: string }> {
  const engine = { handle: () => response } as unknown as MockGPT
  const server = createServer(create(engine))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  try {
    const { port } = server.address() as AddressInfo
    return await new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/x' }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          body += chunk
        })
        res.on('end', () => resolve({ res, body }))
        res.on('error', reject)
      })
      req.on('error', reject)
      req.end('{}')
    })
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

describe('createMockGPTRequestListener', () => {
  it('answers streams and waits from a listener created while its body pump is still loading', async () => {
    // A fresh copy of the module: its body pump (imported when the first listener is created) is not
    // loaded yet, so the first responses that stream or wait may have to wait for it.
    const fresh = async () => {
      vi.resetModules()
      return (await import('./request-listener.js')).createMockGPTRequestListener
    }
    const stream = await served(
      {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        firstByteDelayMs: 0,
        body: {
          type: 'stream',
          steps: [
            { type: 'data', chunk: 'data: 1\n\n' },
            { type: 'data', chunk: 'data: 2\n\n', delayMs: 1 },
          ],
        },
      },
      await fresh(),
    )
    expect(stream.res.statusCode).toBe(200)
    expect(stream.body).toBe('data: 1\n\ndata: 2\n\n')
    const delayed = await served(
      { status: 202, headers: {}, firstByteDelayMs: 1, body: { type: 'text', text: 'late' } },
      await fresh(),
    )
    expect([delayed.res.statusCode, delayed.body]).toEqual([202, 'late'])
  })

  it('writes a text body with its own Content-Length in place of one the response named, headers as given', async () => {
    const text = '{"text":"Zählen 😀"}'
    const { res, body } = await served({
      status: 201,
      headers: { 'content-type': 'application/json', 'content-length': '999', 'x-request-id': 'req_1' },
      firstByteDelayMs: 0,
      body: { type: 'text', text },
    })
    expect(res.statusCode).toBe(201)
    expect(body).toBe(text)
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(text)))
    expect(res.rawHeaders.filter((h) => h.toLowerCase() === 'content-length')).toHaveLength(1)
    expect(res.headers['content-type']).toBe('application/json')
    expect(res.headers['x-request-id']).toBe('req_1')
  })

  it('writes an empty body with the headers as given', async () => {
    const { res, body } = await served({
      status: 204,
      headers: { allow: 'GET, POST' },
      firstByteDelayMs: 0,
      body: { type: 'empty' },
    })
    expect(res.statusCode).toBe(204)
    expect(body).toBe('')
    expect(res.headers.allow).toBe('GET, POST')
  })
})
