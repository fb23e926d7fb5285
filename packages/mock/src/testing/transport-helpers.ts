/** Shared pieces of the transport matrix suite (see transport-suite.ts). */
import { expect } from 'vitest'
import type { MockGPT, MockGPTOptions } from '../mock-gpt.js'

export interface TransportUnderTest {
  readonly mock: MockGPT
  /** Sends a request to `path` (e.g. `/v1/models`) through the transport. */
  request(path: string, init?: RequestInit): Promise<Response>
  close(): Promise<void>
}

export type TransportFactory = (options: MockGPTOptions) => Promise<TransportUnderTest>

export const KEY = 'sk-mock-suite'
export const WEATHER = {
  type: 'object',
  additionalProperties: false,
  required: ['city', 'unit'],
  properties: {
    city: { type: 'string', minLength: 1 },
    unit: { enum: ['c', 'f'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
  },
} as const
export const TIME = {
  type: 'object',
  additionalProperties: false,
  required: ['zone'],
  properties: { zone: { type: 'string', pattern: '^[A-Z][a-z]+/[A-Z][a-z]+$' } },
} as const
export const TOOLS = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: WEATHER } },
  { type: 'function', function: { name: 'get_time', description: 'Time', parameters: TIME } },
]

// biome-ignore lint/suspicious/noExplicitAny: test-side access to JSON bodies
export type Json = Record<string, any>

export function post(
  t: TransportUnderTest,
  path: string,
  body: unknown,
  init: RequestInit = {},
): Promise<Response> {
  return t.request(path, {
    method: 'POST',
    ...init,
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${KEY}`,
      ...(init.headers as Record<string, string> | undefined),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

export const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content }],
  ...extra,
})

export async function withTransport<T>(
  factory: TransportFactory,
  options: MockGPTOptions,
  run: (t: TransportUnderTest) => Promise<T>,
): Promise<T> {
  const t = await factory({ apiKey: KEY, ...options })
  try {
    return await run(t)
  } finally {
    await t.close()
  }
}

export async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(condition()).toBe(true)
}
