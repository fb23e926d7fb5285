/**
 * Streamed text throughput through the model adapters (OpenAI, Anthropic and, in its own block, the AI SDK
 * adapter), each as a ratio of its own raw stream measured in the same run against the same MockGPT server
 * (target: at least 80% of the raw stream).
 *
 * - openai raw: `client.chat.completions.create({ stream: true, stream_options })`, the text deltas joined
 *   from the chunks, as an App would read the SDK directly; adapter: `createOpenAIChatModel(...).stream()`
 *   over the same client, its `text-delta` events joined (the adapter validates every chunk, tracks tool
 *   calls and usage, opens a diagnostics span and refuses a stream without a finish reason on top of what
 *   the SDK does);
 * - anthropic raw: `client.messages.create({ stream: true })` on `/v1/messages`, the `text_delta`s joined;
 *   adapter: `createAnthropicChatModel(...).stream()` over the same client, with its defaults (prompt
 *   caching on: the breakpoints go out, MockGPT in the other process simulates the cache).
 *
 * MockGPT runs in a child process, so its rendering does not share the measured event loop, and this
 * process's CPU time is the client's own cost. Each side uses one keep-alive client. The work is split into
 * short batches that alternate between the sides of a pair (and swap order every round), so load from
 * other processes on a shared machine hits both alike. Throughput is reported per wall-clock second and per
 * client CPU second; the target applies to the CPU ratio, which a loaded machine disturbs far less (on an
 * idle machine the client is CPU-bound and both agree). Per-round ratios show the spread.
 */
import { fork } from 'node:child_process'
import { join } from 'node:path'
import { createAiSdkChatModel } from '@agent-core/kits/ai-sdk'
import { createAnthropicChatModel } from '@agent-core/kits/anthropic'
import { createOpenAIChatModel } from '@agent-core/kits/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import Anthropic from '@anthropic-ai/sdk'
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

// The Anthropic SDK takes the server URL without /v1.
const anthropicClient = new Anthropic({
  apiKey: 'sk-bench',
  baseURL: baseURL.replace(/\/v1$/, ''),
  maxRetries: 0,
})
const anthropicModel = createAnthropicChatModel({ model: 'claude-sonnet-4-6', client: anthropicClient })

async function rawAnthropicStream(): Promise<number> {
  const stream = await anthropicClient.messages.create(
    { model: 'claude-sonnet-4-6', max_tokens: 4096, messages, stream: true },
    { maxRetries: 0 },
  )
  let text = ''
  let deltas = 0
  for await (const event of stream) {
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
      text += event.delta.text
      deltas++
    }
  }
  if (text.length === 0) throw new Error('raw anthropic stream: no text')
  return deltas
}

function adapterStream(): Promise<number> {
  return readAdapter(model)
}

function anthropicAdapterStream(): Promise<number> {
  return readAdapter(anthropicModel)
}

async function readAdapter(chat: typeof model | typeof anthropicModel): Promise<number> {
  let text = ''
  let deltas = 0
  let finished = false
  for await (const event of chat.stream({ messages })) {
    if (event.type === 'text-delta') {
      text += event.text
      deltas++
    } else if (event.type === 'finish') finished = true
  }
  if (text.length === 0 || !finished) throw new Error('adapter stream: no text or no finish')
  return deltas
}

/**
 * Runs `count` streams, `CONCURRENCY` at a time; returns the wall-clock seconds, the CPU seconds this
 * process spent (the client's own cost: the server runs in another process) and the deltas read.
 */
async function batch(
  read: () => Promise<number>,
  count: number,
): Promise<{ seconds: number; cpuSeconds: number; deltas: number }> {
  let next = 0
  let deltas = 0
  const cpu = process.cpuUsage()
  const started = process.hrtime.bigint()
  const worker = async () => {
    while (next < count) {
      next++
      const got = await read()
      deltas += got
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const used = process.cpuUsage(cpu)
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6, deltas }
}

interface Pair {
  readonly name: string
  readonly raw: () => Promise<number>
  readonly adapter: () => Promise<number>
}
const pairs: readonly Pair[] = [
  { name: 'openai', raw: rawStream, adapter: adapterStream },
  { name: 'anthropic', raw: rawAnthropicStream, adapter: anthropicAdapterStream },
]

/** Runs one pair in alternating rounds; returns whether its CPU ratio meets the target. */
async function measure(pair: Pair): Promise<boolean> {
  // Warm up both paths (JIT, sockets), then alternate.
  await batch(pair.raw, STREAMS_PER_BATCH * 2)
  await batch(pair.adapter, STREAMS_PER_BATCH * 2)
  const sides = ['raw', 'adapter'] as const
  const total = {
    raw: { seconds: 0, cpuSeconds: 0, deltas: 0 },
    adapter: { seconds: 0, cpuSeconds: 0, deltas: 0 },
  }
  const perRound: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? sides : ([...sides].reverse() as ('raw' | 'adapter')[])
    const cpu = { raw: 0, adapter: 0 }
    for (const side of order) {
      const result = await batch(pair[side], STREAMS_PER_BATCH)
      cpu[side] = result.cpuSeconds
      total[side].seconds += result.seconds
      total[side].cpuSeconds += result.cpuSeconds
      total[side].deltas += result.deltas
    }
    perRound.push(cpu.raw / cpu.adapter)
  }
  if (total.raw.deltas !== total.adapter.deltas) {
    throw new Error(
      `${pair.name}: the two sides read different amounts: ${total.raw.deltas} vs ${total.adapter.deltas} deltas`,
    )
  }
  const rate = (side: 'raw' | 'adapter', key: 'seconds' | 'cpuSeconds') =>
    total[side].deltas / total[side][key]
  const wallRatio = rate('adapter', 'seconds') / rate('raw', 'seconds')
  const cpuRatio = rate('adapter', 'cpuSeconds') / rate('raw', 'cpuSeconds')
  const sorted = [...perRound].sort((a, b) => a - b)
  const pct = (value: number) => `${(value * 100).toFixed(1)}%`
  const verdict = (ratio: number) =>
    ratio >= TARGET ? `(meets >= ${pct(TARGET)})` : `(BELOW the ${pct(TARGET)} target)`
  console.log(`\n${pair.name}                     per wall-clock second   per client CPU second`)
  for (const side of sides) {
    console.log(
      `${side === 'raw' ? `raw ${pair.name} SDK stream` : 'adapter stream (events)'}`.padEnd(27) +
        `${rate(side, 'seconds').toFixed(0).padStart(9)} deltas/s   ${rate(side, 'cpuSeconds').toFixed(0).padStart(9)} deltas/s`,
    )
  }
  console.log(
    `ratio adapter/raw, client CPU  ${pct(cpuRatio)} ${verdict(cpuRatio)}; per round min ${pct(sorted[0] ?? 0)}, median ${pct(sorted[Math.floor(sorted.length / 2)] ?? 0)}, max ${pct(sorted.at(-1) ?? 0)}`,
  )
  console.log(
    `ratio adapter/raw, wall clock  ${pct(wallRatio)} (noisier on a shared machine: it also counts time the client waited for a core)`,
  )
  return cpuRatio >= TARGET
}

try {
  console.log(
    `loopback, MockGPT in a child process, ${WORDS}-word streams (one token per delta), concurrency ${CONCURRENCY}, ${ROUNDS} alternating rounds of ${STREAMS_PER_BATCH} streams per side`,
  )
  for (const pair of pairs) {
    if (!(await measure(pair))) process.exitCode = 1
  }
  // The AI SDK adapter (@agent-core/kits/ai-sdk): the provider's own `doStream` against the adapter over it.
  await aiSdkRows()
} finally {
  child.send('close')
}

/** The AI SDK rows: the provider's raw `doStream` against the adapter over it (see the block above). */
async function aiSdkRows(): Promise<void> {
  const provider = createOpenAICompatible({
    name: 'mockgpt',
    baseURL,
    apiKey: 'sk-bench',
    includeUsage: true,
  })
  const languageModel = provider.chatModel('gpt-4o-mini')
  const adapted = createAiSdkChatModel({ model: languageModel })
  const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: messages[0]!.content }] }]
  const rawAiSdkStream = async (): Promise<number> => {
    const { stream } = await languageModel.doStream({ prompt })
    const reader = stream.getReader()
    let text = ''
    let deltas = 0
    for (;;) {
      const next = await reader.read()
      if (next.done) break
      if (next.value.type === 'text-delta' && next.value.delta !== '') {
        text += next.value.delta
        deltas++
      }
    }
    if (text.length === 0) throw new Error('raw AI SDK stream: no text')
    return deltas
  }
  const adapterAiSdkStream = async (): Promise<number> => {
    let text = ''
    let deltas = 0
    let finished = false
    for await (const event of adapted.stream({ messages })) {
      if (event.type === 'text-delta') {
        text += event.text
        deltas++
      } else if (event.type === 'finish') finished = true
    }
    if (text.length === 0 || !finished) throw new Error('AI SDK adapter stream: no text or no finish')
    return deltas
  }
  // A keep-alive socket the server closed just as fetch reused it ("other side closed", a race a loaded
  // machine's late timers make likelier) fails a stream before its first byte: read that stream again.
  const staleSocket = (error: unknown): boolean => {
    for (let at: unknown = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++)
      if ((at as { code?: unknown }).code === 'UND_ERR_SOCKET') return true
    return false
  }
  const once = (read: () => Promise<number>) => (): Promise<number> =>
    read().catch((error: unknown) => {
      if (staleSocket(error)) return read()
      throw error
    })
  const rawAiSdk = once(rawAiSdkStream)
  const adapterAiSdk = once(adapterAiSdkStream)
  await batch(rawAiSdk, STREAMS_PER_BATCH * 2)
  await batch(adapterAiSdk, STREAMS_PER_BATCH * 2)
  const sums = {
    raw: { cpuSeconds: 0, seconds: 0, deltas: 0 },
    adapter: { cpuSeconds: 0, seconds: 0, deltas: 0 },
  }
  const rounds: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const order: ('raw' | 'adapter')[] = round % 2 === 0 ? ['raw', 'adapter'] : ['adapter', 'raw']
    const cpu = { raw: 0, adapter: 0 }
    for (const side of order) {
      const result = await batch(side === 'raw' ? rawAiSdk : adapterAiSdk, STREAMS_PER_BATCH)
      cpu[side] = result.cpuSeconds / result.deltas
      sums[side].cpuSeconds += result.cpuSeconds
      sums[side].seconds += result.seconds
      sums[side].deltas += result.deltas
    }
    rounds.push(cpu.adapter > 0 ? cpu.raw / cpu.adapter : 0)
  }
  const perCpu = (side: 'raw' | 'adapter') => sums[side].deltas / sums[side].cpuSeconds
  const perWall = (side: 'raw' | 'adapter') => sums[side].deltas / sums[side].seconds
  const ratio = perCpu('adapter') / perCpu('raw')
  const ordered = [...rounds].sort((a, b) => a - b)
  const pct = (value: number) => `${(value * 100).toFixed(1)}%`
  console.log(
    `${'raw AI SDK provider stream'.padEnd(27)}${perWall('raw').toFixed(0).padStart(9)} deltas/s   ${perCpu('raw').toFixed(0).padStart(9)} deltas/s`,
  )
  console.log(
    `${'ai-sdk adapter (events)'.padEnd(27)}${perWall('adapter').toFixed(0).padStart(9)} deltas/s   ${perCpu('adapter').toFixed(0).padStart(9)} deltas/s`,
  )
  console.log(
    `ratio ai-sdk adapter/raw provider, client CPU  ${pct(ratio)} ${ratio >= TARGET ? `(meets >= ${pct(TARGET)})` : `(BELOW the ${pct(TARGET)} target)`}; per round min ${pct(ordered[0] ?? 0)}, median ${pct(ordered[Math.floor(ordered.length / 2)] ?? 0)}, max ${pct(ordered.at(-1) ?? 0)}`,
  )
  if (ratio < TARGET) process.exitCode = 1
}
