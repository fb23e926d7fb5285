import { describe, expect, it } from 'vitest'
import { createExportDocsChecker, docProblem, readExports } from './export-docs.mjs'

/** A TSDoc comment with a summary and an example importing from `from`. */
const documented = (summary: string, from: string) =>
  `/**\n * ${summary}\n *\n * @example\n * \`\`\`ts\n * import { x } from '${from}'\n * \`\`\`\n */`

const engine = `${documented('A scripted reply.', '@agent-core/mock')}
interface MockReply { readonly text: string }
/** Undocumented example-wise. */
interface MockUsage { readonly calls: number }
export { type MockReply, type MockUsage };
`
const node = `import { MockReply } from '@agent-core/mock';
export { MockReply, MockUsage } from '@agent-core/mock';
export { MockReply as Reply };
${documented('Starts a server.', '@agent-core/mock/node')}
declare function startServer(reply: MockReply): void;
export { startServer };
`
const vitest = `export { MockReply, startServer } from '@agent-core/mock/node';
export { Options } from 'third-party';
export * from 'elsewhere';
`
const files: Record<string, string> = {
  '@agent-core/mock': engine,
  '@agent-core/mock/node': node,
  '@agent-core/mock/vitest': vitest,
}
const check = createExportDocsChecker((specifier) => files[specifier])

describe('every export is documented where it is declared', () => {
  it('requires a comment, a summary and an example importing from the subpath', () => {
    expect(docProblem('', 'm')).toBe('has no TSDoc comment')
    expect(docProblem('/**\n * @example\n * x\n */', 'm')).toBe('has no TSDoc summary')
    expect(docProblem('/** A thing. */', 'm')).toBe('has no @example')
    expect(docProblem(documented('A thing.', 'other'), 'm')).toBe("has no @example importing from 'm'")
    expect(docProblem(documented('A thing.', 'm'), 'm')).toBeUndefined()
  })

  it('reads own declarations, re-exports and import-then-export as re-exports', () => {
    const read = readExports(node)
    expect([...read.own.keys()]).toEqual(['startServer'])
    expect(Object.fromEntries(read.reexported)).toEqual({
      MockReply: { from: '@agent-core/mock', name: 'MockReply' },
      MockUsage: { from: '@agent-core/mock', name: 'MockUsage' },
      Reply: { from: '@agent-core/mock', name: 'MockReply' },
    })
  })

  it('holds a re-export of our own subpath to the rule where it is declared, through chains', () => {
    expect(check('@agent-core/mock')).toEqual(['MockUsage has no @example'])
    expect(check('@agent-core/mock/node')).toEqual([
      "MockUsage is re-exported from '@agent-core/mock'; where it is declared ('@agent-core/mock') it has no @example",
    ])
    const problems = check('@agent-core/mock/vitest')
    expect(problems).toHaveLength(2)
    expect(problems[0]).toMatch(
      /^Options is re-exported from 'third-party', which is not one of our public subpaths/,
    )
    expect(problems[1]).toMatch(
      /^export \* from 'elsewhere' re-exports a module that is not one of our public/,
    )
  })

  it('reports a re-export of a name the origin does not export', () => {
    const broken = createExportDocsChecker((specifier) =>
      specifier === 'a' ? "export { Missing } from 'b';\n" : specifier === 'b' ? 'export {};\n' : undefined,
    )
    expect(broken('a')).toEqual(["Missing is re-exported from 'b', but 'b' does not export Missing"])
  })

  it('checks exports written with the export keyword too', () => {
    const text = `${documented('Adds.', 'm')}\nexport declare function add(a: number): number;\nexport declare const zero: number;\n`
    expect(createExportDocsChecker(() => text)('m')).toEqual(['zero has no TSDoc comment'])
  })
})
