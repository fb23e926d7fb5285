/**
 * `--web`: a small page on loopback (node:http, no framework) that streams the answer as it arrives
 * (Server-Sent Events) and then shows the cited passages. A page opened late gets everything sent so far.
 * It answers only requests whose `Host` is a loopback name at its port (`127.0.0.1`, `localhost`,
 * `[::1]`) or the one name the user passed (`--web-host`): a foreign page that points its own name at
 * loopback (DNS rebinding) gets a 403, never the question, the answer or the passages.
 */
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AgentEvent, AgentPendingCall } from '@agent-core/kits/loop'
import type { Citation } from './desk-agent.js'

export interface WebView {
  readonly url: string
  event(event: AgentEvent): void
  answer(text: string, citations: readonly Citation[]): void
  pending(calls: readonly AgentPendingCall[]): void
  close(): Promise<void>
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function page(question: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Research desk</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
  h1 { font-size: 1.2rem; } #question { color: #555; }
  #steps { color: #777; font-size: .9rem; list-style: none; padding: 0; }
  #answer { white-space: pre-wrap; border-left: 3px solid #4a7; padding-left: 1rem; min-height: 1.5rem; }
  #sources li { margin-bottom: .8rem; } .where { font-family: ui-monospace, monospace; color: #275; }
  .excerpt { color: #666; font-size: .9rem; } #status { color: #999; font-size: .9rem; }
</style>
</head>
<body>
<h1>Research desk</h1>
<p id="question">${escapeHtml(question)}</p>
<ul id="steps"></ul>
<div id="answer" aria-live="polite"></div>
<h2>Sources</h2>
<ol id="sources"></ol>
<p id="status">waiting for the answer…</p>
<script type="module">
const $ = (id) => document.getElementById(id)
const events = new EventSource('/events')
events.addEventListener('text', (e) => { $('answer').textContent += JSON.parse(e.data).text })
events.addEventListener('step', (e) => {
  const li = document.createElement('li'); li.textContent = JSON.parse(e.data).text; $('steps').append(li)
})
events.addEventListener('answer', (e) => {
  const { text, citations } = JSON.parse(e.data)
  $('answer').textContent = text
  if (citations.length === 0) { const li = document.createElement('li'); li.textContent = 'none'; $('sources').append(li) }
  for (const c of citations) {
    const li = document.createElement('li')
    const where = document.createElement('div'); where.className = 'where'; where.textContent = c.file + ':' + c.lines + '  ' + c.headings
    const excerpt = document.createElement('div'); excerpt.className = 'excerpt'; excerpt.textContent = c.text
    li.dataset.id = c.id; li.append(where, excerpt); $('sources').append(li)
  }
  $('status').textContent = 'done'; document.body.dataset.done = 'true'; events.close()
})
events.addEventListener('pending', (e) => {
  $('status').textContent = 'waiting for a decision: ' + JSON.parse(e.data).calls.map((c) => c.toolCallId).join(', ')
  events.close()
})
</script>
</body>
</html>
`
}

/** `host` and `port` of a `Host` header (lower case; `[::1]` keeps its brackets). */
function splitHost(value: string): { host: string; port: string | undefined } {
  const text = value.trim().toLowerCase()
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(text)
  return match ? { host: match[1] as string, port: match[2] } : { host: text, port: undefined }
}

/** Whether `header` names this page: a loopback name at `port`, or the user's own name. */
export function hostAllowed(header: string | undefined, port: number, extra: string | undefined): boolean {
  if (header === undefined || header === '') return false
  const { host, port: given } = splitHost(header)
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '[::1]'
  if (loopback) return given === String(port)
  if (extra === undefined) return false
  const wanted = splitHost(extra)
  return wanted.host === host && (wanted.port === undefined || wanted.port === given)
}

/** Starts the page's server on 127.0.0.1. */
export async function startWebView(options: {
  port: number
  question: string
  /** A host name the page also answers to (`--web-host`). */
  host?: string | undefined
}): Promise<WebView> {
  const sent: string[] = []
  const clients = new Set<ServerResponse>()
  const send = (type: string, data: unknown) => {
    const frame = `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`
    sent.push(frame)
    for (const client of clients) client.write(frame)
  }
  const html = page(options.question)
  let bound = 0
  const server = createServer((request, response) => {
    if (!hostAllowed(request.headers.host, bound, options.host)) {
      response.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' })
      response.end(
        'Forbidden: this page answers only at 127.0.0.1, localhost or [::1] (or the name given with --web-host).\n',
      )
      return
    }
    const path = new URL(request.url ?? '/', 'http://localhost').pathname
    if (request.method === 'GET' && path === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      response.end(html)
    } else if (request.method === 'GET' && path === '/events') {
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      })
      for (const frame of sent) response.write(frame)
      clients.add(response)
      request.on('close', () => clients.delete(response))
    } else {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
      response.end('Not found: the page is at /\n')
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  bound = port
  return {
    url: `http://127.0.0.1:${port}/`,
    event(event) {
      if (event.type === 'text-delta') send('text', { text: event.text })
      else if (event.type === 'tool-start')
        send('step', { text: `${event.toolId} ${JSON.stringify(event.input)}` })
    },
    answer: (text, citations) => send('answer', { text, citations }),
    pending: (calls) =>
      send('pending', {
        calls: calls.map(({ toolCallId, toolId, input }) => ({ toolCallId, toolId, input })),
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of clients) client.end()
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
