/**
 * Streamed text throughput through the OpenAI adapter, as a ratio of the raw `openai` SDK stream measured in
 * the same run against the same MockGPT server (target: at least 80% of the raw stream).
 *
 * - raw: `client.chat.completions.create({ stream: true, stream_options })`, the text deltas joined from the
 *   chunks, as an App would read the SDK directly;
 * - adapter: `createOpenAIChatModel(...).stream(request)` over the same client, its `text-delta` events
 *   joined (the adapter validates every chunk, tracks tool calls and usage, opens a diagnostics span and
 *   refuses a stream without a finish reason on top of what the SDK does).
 *
 * MockGPT runs in a child process, so its rendering does not share the measured event loop. Both sides use
 * one keep-alive client. The work is split into short batches that alternate between the two sides (and
 * swap order every round), so load from other processes on a shared machine hits both alike; the ratio
 * compares the summed times, and the per-round ratios show the spread.
 */
import { fork } from 'node:child_process'
import { join } from 'node:path'
import { createOpenAIChatModel } from '@agent-core/kits/openai'
import OpenAI from 'openai'

const WORDS = 1000
const CONCURRENCY = 4
const STREAMS_PER_BATCH = 8
const ROUNDS = 12
const TARGET = 0.8

const child = fork(join(import.meta.dirname, 'server.ts'), [String(WORDS)], { stdio: 'inherit' })
const baseURL = await new Promise<string>((resolve, reject) => {
  child.once('message', (message) => resolve((message as { baseURL: string }).baseURL))
  child.once('error', reject)
  child.once('exit', (code) => reject(new Error(`the MockGPT server process exited (${code})`)))
})

const client = new OpenAI({ apiKey: 'sk-bench', baseURL, maxRetries: 0 })
const model = createOpenAIChatModel({ model: 'gpt-4o-mini', client })
const messages = [{ role: 'user' as const, content: 'Stream a long answer.' }]

async function rawStream(): Promise<number> {
  const stream = await client.chat.completions.create(
    { model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } },
    { maxRetries: 0 },
  )
  let text = ''
  let deltas = 0
  for await (const chunk of stream) {
    const content = chunk.choices[0]?.delta.content
    if (content) {
      text += content
      deltas++
    }
  }
  if (text.length === 0) throw new Error('raw stream: no text')
  return deltas
}

async function adapterStream(): Promise<number> {
  let text = ''
  let deltas = 0
  let finished = false
  for await (const event of model.stream({ messages })) {
    if (event.type === 'text-delta') {
      text += event.text
      deltas++
    } else if (event.type === 'finish') finished = true
  }
  if (text.length === 0 || !finished) throw new Error('adapter stream: no text or no finish')
  return deltas
}

/** Runs `count` streams, `CONCURRENCY` at a time; returns the seconds taken and the deltas read. */
async function batch(
  read: () => Promise<number>,
  count: number,
): Promise<{ seconds: number; deltas: number }> {
  let next = 0
  let deltas = 0
  const started = process.hrtime.bigint()
  const worker = async () => {
    while (next < count) {
      next++
      const got = await read()
      deltas += got
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, deltas }
}

try {
  // Warm up both paths (JIT, sockets), then alternate.
  await batch(rawStream, STREAMS_PER_BATCH * 2)
  await batch(adapterStream, STREAMS_PER_BATCH * 2)
  const total = { raw: 0, adapter: 0, rawDeltas: 0, adapterDeltas: 0 }
  const perRound: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['raw', 'adapter'] as const) : (['adapter', 'raw'] as const)
    const seconds = { raw: 0, adapter: 0 }
    for (const side of order) {
      const result = await batch(side === 'raw' ? rawStream : adapterStream, STREAMS_PER_BATCH)
      seconds[side] = result.seconds
      total[side] += result.seconds
      if (side === 'raw') total.rawDeltas += result.deltas
      else total.adapterDeltas += result.deltas
    }
    perRound.push(seconds.raw / seconds.adapter)
  }
  if (total.rawDeltas !== total.adapterDeltas) {
    throw new Error(
      `the two sides read different amounts: ${total.rawDeltas} vs ${total.adapterDeltas} deltas`,
    )
  }
  const rawRate = total.rawDeltas / total.raw
  const adapterRate = total.adapterDeltas / total.adapter
  const ratio = adapterRate / rawRate
  const sorted = [...perRound].sort((a, b) => a - b)
  const pct = (value: number) => `${(value * 100).toFixed(1)}%`
  console.log(
    `loopback, MockGPT in a child process, ${WORDS}-word streams (one token per delta), concurrency ${CONCURRENCY}, ${ROUNDS} alternating rounds of ${STREAMS_PER_BATCH} streams per side`,
  )
  console.log(`raw openai SDK stream      ${rawRate.toFixed(0).padStart(9)} deltas/s`)
  console.log(`adapter stream (events)    ${adapterRate.toFixed(0).padStart(9)} deltas/s`)
  console.log(
    `ratio adapter/raw          ${pct(ratio)} ${ratio >= TARGET ? `(meets >= ${pct(TARGET)})` : `(BELOW the ${pct(TARGET)} target)`}; per round min ${pct(sorted[0] ?? 0)}, median ${pct(sorted[Math.floor(sorted.length / 2)] ?? 0)}, max ${pct(sorted.at(-1) ?? 0)}`,
  )
  if (ratio < TARGET) process.exitCode = 1
} finally {
  child.send('close')
}
