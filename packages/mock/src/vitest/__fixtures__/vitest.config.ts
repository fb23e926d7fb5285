import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

/** Runs the useMockGPT fixture files in a child vitest, to prove which tests the helper fails. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  resolve: { conditions: ['@agent-core/source'] },
  ssr: { resolve: { conditions: ['@agent-core/source'], externalConditions: ['@agent-core/source'] } },
  test: { include: ['*.fixture.ts'], pool: 'forks', maxWorkers: 1, testTimeout: 30_000 },
})
