import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: { conditions: ['@agent-core/source'] },
  ssr: { resolve: { conditions: ['@agent-core/source'], externalConditions: ['@agent-core/source'] } },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'examples/**/*.test.ts',
      'docs/**/*.test.ts',
      'scripts/**/*.test.ts',
    ],
    typecheck: { enabled: true, include: ['packages/*/src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    // Any unhandled promise rejection fails the test it surfaced in (vitest alone only sets its exit code).
    setupFiles: ['./scripts/vitest-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // CI shares two cores with real PostgreSQL servers, child processes and Chromium: one retry there keeps a
    // scheduling hiccup from failing the run, and vitest still reports every retried test as flaky.
    retry: process.env.CI ? 1 : 0,
  },
})
