/**
 * Node's `http` glue for a web-standard fetch handler: the request as a `Request` (its signal aborted when
 * the client goes away), the `Response` streamed back. Deno, Bun and edge runtimes need none of this.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'

export function toNodeListener(
  handle: (request: Request) => Promise<Response>,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const controller = new AbortController()
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new Error('the client went away'))
    })
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value)
      else if (Array.isArray(value)) for (const v of value) headers.append(name, v)
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
    const request = new Request(`http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, {
      method: req.method,
      headers,
      signal: controller.signal,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
    } as RequestInit)
    handle(request).then(
      async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers))
        if (response.body === null) return void res.end()
        const reader = response.body.getReader()
        try {
          for (;;) {
            const { done, value } = await reader.read()
            if (done) break
            res.write(value)
          }
          res.end()
        } catch {
          res.destroy()
        }
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('The handler failed.')
      },
    )
  }
}
