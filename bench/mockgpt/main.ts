/**
 * MockGPT throughput over loopback, as a ratio against a bare `node:http` server that answers the same bytes
 * in the same run (targets: at least 75% of the bare server for small completions, 70% for streamed tokens).
 *
 * - small completions: requests per second for non-streamed chat completions (default responder);
 * - streamed tokens: content deltas per second for streamed chat completions (one token per delta);
 * - (shown, not a target) small completions whose bodies all differ: the targets are set on one repeated
 *   body, which MockGPT's caches of identical requests answer after the first; a test suite mostly sends
 *   bodies it has not sent before, and this row is what those cost.
 *
 * The bare server replays the exact bytes MockGPT produced for the same request (for streams, the whole SSE
 * body in one chunked write: the fastest a server can answer them). The load generator runs in this process
 * with keep-alive agents, bounded concurrency and a bounded number of requests. The work is split into many
 * short batches that alternate between the two servers (and swap order every round), so that load from
 * other processes on a shared machine hits both sides alike; the ratio compares the summed times.
 */
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startMockGPTServer } from '@agent-core/mock/node'

const CONCURRENCY = 16
const ROUNDS = 20
const SMALL_BATCH = 200
const STREAM_BATCH = 20
const SMALL_REQUESTS = ROUNDS * SMALL_BATCH
const STREAM_REQUESTS = ROUNDS * STREAM_BATCH
const STREAM_TEXT = Array.from({ length: 120 }, (_, i) => `word${i} is streamed,`).join(' ')

const smallBody = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Say something short.' }],
})
/** Request `i` of the distinct-bodies row: no two bodies alike, so no cache of MockGPT's ever answers. */
let distinctCounter = 0
const distinctBody = () =>
  JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: `Say something short about item ${distinctCounter++}.` }],
  })
const streamBody = JSON.stringify({
  model: 'gpt-4o-mini',
  stream: true,
  messages: [{ role: 'user', content: 'Stream a long answer.' }],
})

interface Reply {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
}

function send(agent: Agent, port: number, body: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/chat/completions',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

/**
 * Sends `total` requests, `CONCURRENCY` at a time; returns the seconds taken. `body` is one body for all, or
 * a function giving request `i` its own. `expectBytes`: the exact answer length, or `undefined` for answers
 * of varying length (distinct bodies), which must then be non-empty.
 */
async function load(
  port: number,
  body: string | ((i: number) => string),
  total: number,
  expectBytes: number | undefined,
): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
  let next = 0
  const started = process.hrtime.bigint()
  const worker = async () => {
    while (next < total) {
      const i = next++
      const reply = await send(agent, port, typeof body === 'string' ? body : body(i))
      const sizeOk = expectBytes === undefined ? reply.body.length > 0 : reply.body.length === expectBytes
      if (reply.status !== 200 || !sizeOk) {
        throw new Error(
          `unexpected answer: ${reply.status}, ${reply.body.length} bytes instead of ${expectBytes ?? 'some'}`,
        )
      }
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  agent.destroy()
  return seconds
}

function bareServer(small: Reply, stream: Reply): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { stream?: boolean }
      if (parsed.stream) {
        res.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
        })
        res.end(stream.body)
      } else {
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(small.body.length),
        })
        res.end(small.body)
      }
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

const mock = await startMockGPTServer({
  port: 0,
  host: '127.0.0.1',
  seed: 1,
  now: () => 1_700_000_000_000,
  script: [
    { reply: { type: 'text', text: STREAM_TEXT }, match: { stream: true }, times: Number.POSITIVE_INFINITY },
  ],
})
const probe = new Agent({ keepAlive: true })
const small = await send(probe, mock.port, smallBody)
const stream = await send(probe, mock.port, streamBody)
probe.destroy()
const tokensPerStream = stream.body
  .toString('utf8')
  .split('\n\n')
  .filter((frame) => frame.includes('"delta":{"content":') && !frame.includes('"content":""')).length
const bare = await bareServer(small, stream)
const barePort = (bare.address() as AddressInfo).port

// Warm both servers up, then alternate short batches. MockGPT records every request; reset() between
// batches keeps its memory flat.
await load(mock.port, smallBody, 500, small.body.length)
await load(barePort, smallBody, 500, small.body.length)
await load(mock.port, streamBody, 40, stream.body.length)
await load(barePort, streamBody, 40, stream.body.length)
await load(mock.port, distinctBody, 500, undefined)
await load(barePort, distinctBody, 500, undefined)
const total = { mockSmall: 0, bareSmall: 0, mockDistinct: 0, bareDistinct: 0, mockStream: 0, bareStream: 0 }
for (let round = 0; round < ROUNDS; round++) {
  mock.mock.reset()
  const mockFirst = round % 2 === 0
  for (const side of mockFirst ? ['mock', 'bare'] : ['bare', 'mock']) {
    const port = side === 'mock' ? mock.port : barePort
    const smallSeconds = await load(port, smallBody, SMALL_BATCH, small.body.length)
    const distinctSeconds = await load(port, distinctBody, SMALL_BATCH, undefined)
    const streamSeconds = await load(port, streamBody, STREAM_BATCH, stream.body.length)
    if (side === 'mock') {
      total.mockSmall += smallSeconds
      total.mockDistinct += distinctSeconds
      total.mockStream += streamSeconds
    } else {
      total.bareSmall += smallSeconds
      total.bareDistinct += distinctSeconds
      total.bareStream += streamSeconds
    }
  }
}
await mock.close()
await new Promise<void>((resolve) => bare.close(() => resolve()))

const rps = (seconds: number) => SMALL_REQUESTS / seconds
const tps = (seconds: number) => (STREAM_REQUESTS * tokensPerStream) / seconds
// `target` undefined: a row shown for information, with no verdict.
const row = (label: string, mockValue: number, bareValue: number, unit: string, target?: number) => {
  const ratio = mockValue / bareValue
  const percent = `${((target ?? 0) * 100).toFixed(0)}%`
  const verdict =
    target === undefined
      ? '(for information: no target)'
      : ratio >= target
        ? `(meets >= ${percent})`
        : `(BELOW the ${percent} target)`
  console.log(
    `${label.padEnd(34)} MockGPT ${mockValue.toFixed(0).padStart(9)} ${unit}   bare node:http ${bareValue.toFixed(0).padStart(9)} ${unit}   ratio ${(ratio * 100).toFixed(1)}% ${verdict}`,
  )
  return target === undefined || ratio >= target
}
console.log(
  `loopback, concurrency ${CONCURRENCY}, keep-alive, ${ROUNDS} alternating rounds (${SMALL_REQUESTS} completions, ${STREAM_REQUESTS} streams per server); ${small.body.length} B per completion, ${tokensPerStream} tokens (${stream.body.length} B) per stream`,
)
const met = [
  row('small non-streamed completions', rps(total.mockSmall), rps(total.bareSmall), 'req/s', 0.75),
  row('streamed tokens', tps(total.mockStream), tps(total.bareStream), 'tok/s', 0.7),
]
// Every body distinct: what a test suite sends (MockGPT's caches of repeated bodies never answer). Shown
// for information beside the targets, which the issue sets on the repeated body above.
row('  the same, every body distinct', rps(total.mockDistinct), rps(total.bareDistinct), 'req/s')
if (met.includes(false)) process.exitCode = 1
