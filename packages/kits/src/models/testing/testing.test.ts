import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { ChatModel, ModelStreamEvent } from '@agent-core/core'
import { describe, expect, it } from 'vitest'
import { scriptedHarness } from '../internal/testing/scripted-conformance.js'
import {
  assertWellFormedStream,
  type ChatModelConformanceOptions,
  type ConformanceReply,
  describeChatModelConformance,
  scriptMockGPT,
} from './index.js'

// The loop's scripted model, with and without stream: the suite's reference backend.
describeChatModelConformance({
  describe,
  it,
  name: 'scripted model',
  open: async (replies) => scriptedHarness(replies),
  reasoning: true,
})
describeChatModelConformance({
  describe,
  it,
  name: 'scripted model without stream',
  open: async (replies) => scriptedHarness(replies, { stream: false }),
  stream: false,
  reasoning: true,
})

interface Registered {
  readonly name: string
  readonly body: () => Promise<void>
}

/** The tests the suite registers for `options`, with their bodies, through a runner that only records. */
function registered(options: Omit<ChatModelConformanceOptions, 'describe' | 'it'>): Registered[] {
  const tests: Registered[] = []
  describeChatModelConformance({
    ...options,
    describe: (_name, body) => body(),
    it: (name, body) => void tests.push({ name, body }),
  })
  return tests
}

/** The names of the tests that fail for a harness that wraps the scripted model in `wrap`. */
async function failing(wrap: (model: ChatModel<unknown>) => ChatModel<unknown>): Promise<string[]> {
  const out: string[] = []
  const tests = registered({
    name: 'broken',
    open: async (replies) => {
      const harness = scriptedHarness(replies)
      return { ...harness, model: wrap(harness.model) }
    },
    reasoning: true,
  })
  for (const test of tests) {
    try {
      await test.body()
    } catch {
      out.push(test.name)
    }
  }
  return out
}

describe('@agent-core/kits/models/testing', () => {
  it('registers the streaming, reasoning and disconnect tests only where the options declare them', () => {
    const open = async (replies: readonly ConformanceReply[]) => scriptedHarness(replies)
    const plain = registered({ name: 'x', open, stream: false }).map((test) => test.name)
    const full = registered({ name: 'x', open, reasoning: true, disconnects: true }).map((test) => test.name)
    expect(plain.length).toBeGreaterThan(15)
    for (const name of plain) expect(full).toContain(name)
    expect(plain.some((name) => name.includes('stream'))).toBe(false)
    expect(full.filter((name) => name.includes('stream')).length).toBeGreaterThan(5)
    expect(full.some((name) => name.includes('reasoning'))).toBe(true)
    expect(full.some((name) => name.includes('dropped'))).toBe(true)
  })

  it('fails an adapter that drops the last text delta, and only the tests that read the stream text', async () => {
    const broken = await failing((model) => ({
      identity: model.identity,
      generate: (request, context) => model.generate(request, context),
      async *stream(request, context) {
        let held: ModelStreamEvent | undefined
        for await (const event of model.stream!(request, context)) {
          if (event.type === 'text-delta') {
            if (held) yield held
            held = event
          } else yield event
        }
      },
    }))
    expect(broken).toContain(
      'streams text as several deltas that join to the answer, then one finish with the usage',
    )
    expect(broken).toContain('generate answers what the stream folds to: same text, finish reason and usage')
    expect(broken.some((name) => name.startsWith('generate asks'))).toBe(false)
  })

  it('fails an adapter that swallows provider errors into an empty answer', async () => {
    const broken = await failing((model) => ({
      identity: model.identity,
      stream: model.stream,
      async generate(request, context) {
        try {
          return await model.generate(request, context)
        } catch {
          return {
            message: { role: 'assistant', content: '' },
            finishReason: 'error',
            usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          }
        }
      },
    }))
    expect(broken).toContain(
      'a 429 with Retry-After is a retryable rate-limit ModelProviderError with retryAfterMs',
    )
    expect(broken).toContain('an aborted signal refuses generate with AbortedError before anything is sent')
  })

  it('fails an adapter that writes to the request, or reports a usage that does not add up', async () => {
    const writes = await failing((model) => ({
      identity: model.identity,
      generate(request, context) {
        ;(request as { temperature?: number }).temperature ??= 1
        return model.generate(request, context)
      },
    }))
    expect(writes).toContain('generate answers the whole text with finish reason stop')
    const miscounts = await failing((model) => ({
      identity: model.identity,
      stream: model.stream,
      async generate(request, context) {
        const response = await model.generate(request, context)
        return { ...response, usage: { ...response.usage, totalTokens: 1 } }
      },
    }))
    expect(miscounts).toContain('generate answers the whole text with finish reason stop')
  })

  it('checks streams against the event contract', () => {
    const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }
    expect(() => assertWellFormedStream([])).toThrow(/finish/)
    expect(() =>
      assertWellFormedStream([
        { type: 'finish', finishReason: 'stop', usage },
        { type: 'text-delta', text: 'x' },
      ]),
    ).toThrow(/last/)
    expect(() =>
      assertWellFormedStream([
        { type: 'tool-call-start', index: 0, id: 'a', name: 't' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
        { type: 'tool-call-end', index: 0, call: { id: 'a', name: 't', arguments: '{"x":1}' } },
        { type: 'finish', finishReason: 'tool-calls', usage },
      ]),
    ).toThrow(/joined deltas/)
    expect(() =>
      assertWellFormedStream([
        { type: 'tool-call-start', index: 0, id: 'a', name: 't' },
        { type: 'finish', finishReason: 'tool-calls', usage },
      ]),
    ).toThrow(/never ended/)
  })

  it('scriptMockGPT refuses a target without script and replies that are not conformance replies', () => {
    expect(() => scriptMockGPT({} as never, [])).toThrow(/MockGPT/)
    const target = { script: () => undefined }
    expect(() => scriptMockGPT(target, 'x' as never)).toThrow(/array of conformance replies/)
    expect(() => scriptMockGPT(target, [{ type: 'nope' } as never])).toThrow(/replies\[0\]/)
  })

  it('refuses options that are not a runner and an opener, naming what is missing', () => {
    const open = async (replies: readonly ConformanceReply[]) => scriptedHarness(replies)
    const describe = (_name: string, body: () => void) => body()
    const it = () => {}
    expect(() => describeChatModelConformance(null as never)).toThrow(/options/)
    expect(() => describeChatModelConformance({ describe, it, name: 'x' } as never)).toThrow(/options.open/)
    expect(() => describeChatModelConformance({ describe, it: 5, name: 'x', open } as never)).toThrow(
      /options.it/,
    )
    expect(() => describeChatModelConformance({ describe, it, name: '', open })).toThrow(/options.name/)
  })

  it('imports no test framework, only node:assert and public subpaths', () => {
    const folder = fileURLToPath(new URL('./', import.meta.url))
    for (const file of readdirSync(folder).filter(
      (name) => name.endsWith('.ts') && !name.includes('.test'),
    )) {
      const code = readFileSync(`${folder}${file}`, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '')
      const imports = [...code.matchAll(/from '([^']+)'/g)].map((match) => match[1])
      for (const source of imports) {
        expect(source, `${file} imports ${source}`).toMatch(
          /^(\.\/|node:|@agent-core\/(core|core\/tools|kits\/models|kits\/loop)$)/,
        )
      }
    }
  })
})
