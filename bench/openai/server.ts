/**
 * The MockGPT server of bench/openai, in its own process so that its work does not share the measured
 * client's event loop. Answers every streamed request with the same long text (one token per delta) and
 * reports its base URL to the parent over IPC; closes when the parent says so (or goes away).
 */
import { startMockGPTServer } from '@agent-core/mock/node'

const words = Number(process.argv[2] ?? 2000)
const text = Array.from({ length: words }, (_, i) => `w${i % 97}`).join(' ')
const server = await startMockGPTServer({
  seed: 1,
  journal: { maxEntries: 16 },
  script: [{ reply: { type: 'text', text }, match: { stream: true }, times: Number.POSITIVE_INFINITY }],
})
const close = async () => {
  await server.close()
  process.exit(0)
}
process.on('message', (message) => {
  if (message === 'close') void close()
})
process.on('disconnect', () => void close())
process.send?.({ baseURL: server.baseURL })
