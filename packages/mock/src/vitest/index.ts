/**
 * MockGPT for vitest suites: `useMockGPT()` starts one MockGPT server per worker (shared by every test
 * file that worker runs, with the same options), gives each test its own scope (its script, recording,
 * usage and chaos rolls), points `OPENAI_BASE_URL` / `OPENAI_API_KEY` (and `ANTHROPIC_BASE_URL` /
 * `ANTHROPIC_API_KEY`) at that scope for the code under test, and fails a test that hit a script problem
 * or, in strict mode, left script entries unused.
 *
 * @example
 * ```ts
 * import OpenAI from 'openai'
 * import { expect, it } from 'vitest'
 * import { useMockGPT } from '@agent-core/mock/vitest'
 *
 * const mock = useMockGPT({ strict: true })
 *
 * it('greets', async () => {
 *   mock.script({ reply: { type: 'text', text: 'Hello!' } })
 *   const client = new OpenAI() // reads OPENAI_BASE_URL and OPENAI_API_KEY
 *   const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] })
 *   expect(completion.choices[0]?.message.content).toBe('Hello!')
 * })
 * ```
 *
 * @module
 */
export type {
  MockGPTRecordOptions,
  MockGPTServer,
  MockGPTServerOptions,
} from '@agent-core/mock/node'
/**
 * The engine's types, declared and documented in `@agent-core/mock`, re-exported so that code using this
 * entry can import everything it needs from it (the one list `/node`, `/web` and `/vitest` share is
 * `internal/engine-types.ts`).
 */
export type * from '../internal/engine-types.js'
export { type MockGPTTestHandle, type UseMockGPTOptions, useMockGPT } from './use-mock-gpt.js'
