import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createVitest } from 'vitest/node'

// useMockGPT registers vitest hooks, so it only works inside vitest's runner: this program writes a test
// file that uses it and runs that file with vitest's Node API, as `vitest run` would.
const dir = mkdtempSync(join(dirname(fileURLToPath(import.meta.url)), 'mock-vitest-'))
writeFileSync(
  join(dir, 'chat.test.mjs'),
  `import { expect, it } from 'vitest'
import { useMockGPT } from '@agent-core/mock/vitest'

const mock = useMockGPT({ strict: true, seed: 1 })

it('greets', async () => {
  mock.script({ reply: { type: 'text', text: 'Hello!' } })
  const response = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', {
    method: 'POST',
    headers: { authorization: 'Bearer ' + process.env.OPENAI_API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
  })
  expect((await response.json()).choices[0].message.content).toBe('Hello!')
  expect(mock.requests).toHaveLength(1)
})

it('starts with a scope of its own', () => {
  expect(mock.requests).toHaveLength(0)
})

it('leaves a scripted reply unused', () => {
  mock.script({ reply: { type: 'text', text: 'never asked for' } })
})
`,
)
const vitest = await createVitest('test', { root: dir, watch: false, reporters: [{}] })
try {
  const { testModules, unhandledErrors } = await vitest.start()
  assert.deepEqual(unhandledErrors, [])
  const results = Object.fromEntries(
    testModules
      .flatMap((module) => [...module.children.allTests()])
      .map((test) => [test.name, test.result()]),
  )
  assert.deepEqual(Object.keys(results), [
    'greets',
    'starts with a scope of its own',
    'leaves a scripted reply unused',
  ])
  assert.equal(results.greets?.state, 'passed', JSON.stringify(results.greets?.errors))
  assert.equal(results['starts with a scope of its own']?.state, 'passed')
  // strict: a test that leaves a scripted reply unused fails
  const unused = results['leaves a scripted reply unused']
  assert.equal(unused?.state, 'failed')
  assert.match(unused?.errors?.[0]?.message ?? '', /the script did not run as written/)
  // vitest marked the process failed for that test, which failed on purpose; every outcome is asserted above
  process.exitCode = 0
} finally {
  await vitest.close()
  rmSync(dir, { recursive: true, force: true })
}
