import { type MockFixture, parseFixtures } from './internal/replay.js'

export type { MockFixture } from './internal/replay.js'

/**
 * Parses a fixture file written by the node server's record mode (`{ version: 1, interactions: [...] }`,
 * text or an already parsed value) into the interactions the `replay` option answers from.
 * @throws InvalidInputError naming the first bad field (`details.field`)
 * @example
 * ```ts
 * import { createMockGPT, parseMockFixtures } from '@agent-core/mock'
 * const replay = parseMockFixtures('{ "version": 1, "interactions": [] }')
 * const mock = createMockGPT({ replay, strict: true })
 * ```
 */
export function parseMockFixtures(source: unknown, where = 'fixtures'): MockFixture[] {
  return parseFixtures(source, where)
}
