import {
  AbortedError,
  AgentCoreError,
  DuplicateIdError,
  InvalidDefinitionError,
  InvalidIdError,
  InvalidInputError,
  InvalidOutputError,
  Registry,
  RejectedThenableError,
  UnknownIdError,
} from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  defineTextSkillLoader,
  type TextSkillEntry,
  type TextSkillErrorFactories,
  type TextSkillLoadContext,
  type TextSkillLoaderDefinition,
} from './index.js'

const files: Record<string, string> = {
  'skills/triage.md': '# Triage\nSort new issues by area.\n\n1. Search for duplicates.\n',
  'skills/refund.md':
    '---\ndescription: Refund an order.\ntools: [delete-everything]\n---\nCheck the order, then refund.\n',
}

/** A read port that records every path it is asked for. */
function recorder(source: Record<string, string> = files) {
  const reads: string[] = []
  const context: TextSkillLoadContext = {
    read(path) {
      reads.push(path)
      const text = source[path]
      if (text === undefined) throw new Error(`ENOENT: ${path}`)
      return text
    },
  }
  return { reads, context }
}

const triage: TextSkillEntry = {
  id: 'triage',
  kind: 'text-workflow',
  entry: 'skills/triage.md',
  toolIds: ['search'],
}
const refund: TextSkillEntry = {
  id: 'refund',
  kind: 'text-workflow',
  entry: './skills\\refund.md',
  toolIds: ['orders', 'refund'],
}
const loader = defineTextSkillLoader({ tools: ['search', 'orders', 'refund'] })

describe('defineTextSkillLoader: loading', () => {
  it('reads each file once, in registration order, and returns a sealed registry', () => {
    const { reads, context } = recorder()
    const skills = loader.load({ entries: [triage, refund] }, context)
    expect(reads).toEqual(['skills/triage.md', 'skills/refund.md'])
    expect(skills).toBeInstanceOf(Registry)
    expect(skills.sealed).toBe(true)
    expect(skills.ids()).toEqual(['triage', 'refund'])
    expect(skills.require('refund')).toEqual({
      id: 'refund',
      kind: 'text-workflow',
      entry: 'skills/refund.md',
      toolIds: ['orders', 'refund'],
      catalog: {
        id: 'refund',
        kind: 'text-workflow',
        toolIds: ['orders', 'refund'],
        description: 'Refund an order.',
      },
      body: 'Check the order, then refund.\n',
    })
    expect(skills.require('triage').catalog.description).toBe('Sort new issues by area.')
    expect(Object.isFrozen(skills.require('triage'))).toBe(true)
    expect(Object.isFrozen(skills.require('triage').toolIds)).toBe(true)
  })

  it('takes ids and tool references only from the registration, never from the file', () => {
    const { context } = recorder()
    const skill = loader.load({ entries: [refund] }, context).require('refund')
    expect(skill.toolIds).toEqual(['orders', 'refund'])
    expect(skill.catalog.toolIds).toEqual(['orders', 'refund'])
  })

  it('accepts any iterable of entries and an empty one', () => {
    const { reads, context } = recorder()
    function* entries() {
      yield triage
    }
    expect(loader.load({ entries: entries() }, context).ids()).toEqual(['triage'])
    expect(loader.load({ entries: [] }, context).size).toBe(0)
    expect(reads).toEqual(['skills/triage.md'])
  })

  it('accepts known tools as a Registry, a Set or any iterable of ids', () => {
    const { context } = recorder()
    const registry = Registry.create([{ id: 'search' }], { kind: 'tool' })
    for (const tools of [registry, new Set(['search']), new Map([['search', 1]]).keys()]) {
      expect(
        defineTextSkillLoader({ tools })
          .load({ entries: [triage] }, context)
          .ids(),
      ).toEqual(['triage'])
    }
  })

  it('uses a custom parser, synchronously, with the checked registration', () => {
    const { context } = recorder()
    const seen: unknown[] = []
    const custom = defineTextSkillLoader({
      tools: ['search'],
      parse: (text, skill) => {
        seen.push(skill)
        return { description: `Skill ${skill.id}`, body: text.toUpperCase() }
      },
    })
    const skill = custom.load({ entries: [triage] }, context).require('triage')
    expect(skill.catalog.description).toBe('Skill triage')
    expect(skill.body).toBe((files['skills/triage.md'] as string).toUpperCase())
    expect(seen).toEqual([
      { id: 'triage', kind: 'text-workflow', entry: 'skills/triage.md', toolIds: ['search'] },
    ])
  })

  it('checks ids against idPattern', () => {
    const strict = defineTextSkillLoader({ tools: ['search'], idPattern: /^[a-z]+$/g })
    const { reads, context } = recorder()
    expect(strict.load({ entries: [triage] }, context).ids()).toEqual(['triage'])
    expect(() => strict.load({ entries: [{ ...triage, id: 'Triage' }] }, context)).toThrow(InvalidIdError)
    expect(reads).toEqual(['skills/triage.md'])
  })

  it('lets the App error from read or parse through unchanged', () => {
    const { context } = recorder({})
    expect(() => loader.load({ entries: [triage] }, context)).toThrow('ENOENT: skills/triage.md')
  })
})

describe('defineTextSkillLoader: every check precedes every read', () => {
  const cases: [string, unknown, new (...args: never[]) => AgentCoreError][] = [
    ['a missing id', { ...triage, id: undefined }, InvalidIdError],
    ['an empty id', { ...triage, id: '' }, InvalidIdError],
    ['a wrong kind', { ...triage, id: 'x', kind: 'code' }, InvalidDefinitionError],
    ['a parent-directory path', { ...triage, id: 'x', entry: '../secret.md' }, InvalidDefinitionError],
    ['a nested escape', { ...triage, id: 'x', entry: 'skills/../../secret.md' }, InvalidDefinitionError],
    ['a Windows escape', { ...triage, id: 'x', entry: 'skills\\..\\..\\secret.md' }, InvalidDefinitionError],
    ['an absolute path', { ...triage, id: 'x', entry: '/etc/passwd' }, InvalidDefinitionError],
    ['a drive path', { ...triage, id: 'x', entry: 'C:\\secret.md' }, InvalidDefinitionError],
    ['a NUL byte', { ...triage, id: 'x', entry: 'skills/a\u0000.md' }, InvalidDefinitionError],
    ['a non-string path', { ...triage, id: 'x', entry: 3 }, InvalidDefinitionError],
    ['an unknown tool', { ...triage, id: 'x', toolIds: ['search', 'rm-rf'] }, UnknownIdError],
    ['a tool listed twice', { ...triage, id: 'x', toolIds: ['search', 'search'] }, InvalidDefinitionError],
    ['toolIds not an array', { ...triage, id: 'x', toolIds: 'search' }, InvalidDefinitionError],
    ['a non-string tool id', { ...triage, id: 'x', toolIds: [1] }, InvalidDefinitionError],
    ['a duplicate id', { ...refund, id: 'triage' }, DuplicateIdError],
    ['a non-object', 'triage', InvalidDefinitionError],
  ]

  it.each(cases)('rejects %s in the last registration before reading any file', (_, bad, ErrorClass) => {
    const { reads, context } = recorder()
    expect(() => loader.load({ entries: [triage, refund, bad as TextSkillEntry] }, context)).toThrow(
      ErrorClass,
    )
    expect(reads).toEqual([])
  })

  it('says what was wrong and what to do', () => {
    const { context } = recorder()
    expect(() => loader.load({ entries: [{ ...triage, entry: '../x.md' }] }, context)).toThrow(
      /"\.\.\/x\.md" is refused because it has a '\.\.' segment.*Use a relative path inside the skill root/,
    )
    expect(() => loader.load({ entries: [{ ...triage, toolIds: ['nope'] }] }, context)).toThrow(
      /references the tool "nope".*Known tools: "search", "orders", "refund"\. Register the tool/,
    )
  })

  it('reads nothing unless every registration passes (property)', () => {
    const entry = fc.record({
      id: fc.constantFrom('a', 'b', 'c', ''),
      kind: fc.constantFrom('text-workflow', 'text-workflow', 'other'),
      entry: fc.constantFrom('a.md', 'dir/b.md', '../c.md', '/d.md', 'e\u0000.md', 'f/../../g.md'),
      toolIds: fc.array(fc.constantFrom('search', 'orders', 'unknown'), { maxLength: 2 }),
    })
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 5 }), (entries) => {
        const reads: string[] = []
        const context = {
          read: (path: string) => {
            reads.push(path)
            return 'A description.\n'
          },
        }
        const valid =
          new Set(entries.map((e) => e.id)).size === entries.length &&
          entries.every(
            (e) =>
              e.id !== '' &&
              e.kind === 'text-workflow' &&
              (e.entry === 'a.md' || e.entry === 'dir/b.md') &&
              !e.toolIds.includes('unknown') &&
              new Set(e.toolIds).size === e.toolIds.length,
          )
        if (valid) {
          expect(loader.load({ entries: entries as TextSkillEntry[] }, context).size).toBe(entries.length)
          expect(reads).toEqual(entries.map((e) => e.entry))
        } else {
          expect(() => loader.load({ entries: entries as TextSkillEntry[] }, context)).toThrow(AgentCoreError)
          expect(reads).toEqual([])
        }
      }),
      { numRuns: 1000 },
    )
  })
})

describe('defineTextSkillLoader: class-based ports', () => {
  class SkillFile implements TextSkillEntry {
    readonly #name: string
    constructor(name: string) {
      this.#name = name
    }
    get id() {
      return this.#name
    }
    get kind() {
      return 'text-workflow' as const
    }
    get entry() {
      return `skills/${this.#name}.md`
    }
    get toolIds() {
      return ['search']
    }
  }

  class MemoryFiles implements TextSkillLoadContext {
    readonly #files: Map<string, string>
    readonly reads: string[] = []
    constructor(entries: Record<string, string>) {
      this.#files = new Map(Object.entries(entries))
    }
    read(path: string) {
      this.reads.push(path)
      return this.#files.get(path) ?? ''
    }
  }

  class AppErrors implements TextSkillErrorFactories {
    readonly #prefix = 'app'
    duplicate(id: string) {
      return new DuplicateIdError(`${this.#prefix}: skill ${id} twice`)
    }
    unknownTool(toolId: string, skillId: string) {
      return new UnknownIdError(`${this.#prefix}: ${skillId} wants ${toolId}`)
    }
    invalidPath(path: string, skillId: string, reason: string) {
      return new InvalidDefinitionError(`${this.#prefix}: ${skillId} path ${path}: ${reason}`)
    }
  }

  class Loader implements TextSkillLoaderDefinition {
    readonly #suffix: string
    constructor(suffix: string) {
      this.#suffix = suffix
    }
    get tools() {
      return new Set(['search'])
    }
    get errors() {
      return new AppErrors()
    }
    parse(text: string) {
      return { description: `${text.trim()}${this.#suffix}`, body: text }
    }
  }

  it('reads prototype getters of registrations and calls methods on their own receivers', () => {
    const port = new MemoryFiles({ 'skills/triage.md': 'Sort issues' })
    const skills = defineTextSkillLoader(new Loader('.')).load({ entries: [new SkillFile('triage')] }, port)
    expect(port.reads).toEqual(['skills/triage.md'])
    expect(skills.require('triage')).toMatchObject({
      id: 'triage',
      entry: 'skills/triage.md',
      toolIds: ['search'],
      catalog: { description: 'Sort issues.' },
    })
  })

  it('throws what the App error factories build, called on their receiver', () => {
    const port = new MemoryFiles({})
    const classLoader = defineTextSkillLoader(new Loader('.'))
    expect(() => classLoader.load({ entries: [new SkillFile('a'), new SkillFile('a')] }, port)).toThrow(
      'app: skill a twice',
    )
    expect(() =>
      classLoader.load(
        { entries: [{ id: 'b', kind: 'text-workflow', entry: 'b.md', toolIds: ['x'] }] },
        port,
      ),
    ).toThrow('app: b wants x')
    expect(() =>
      classLoader.load(
        { entries: [{ id: 'c', kind: 'text-workflow', entry: '../c.md', toolIds: [] }] },
        port,
      ),
    ).toThrow(/app: c path \.\.\/c\.md: it has a '\.\.' segment/)
    expect(port.reads).toEqual([])
  })
})

describe('defineTextSkillLoader: bad input', () => {
  it.each([
    ['a non-object', null],
    ['no tools', {}],
    ['tools as a string id list with a number', { tools: ['a', 1] }],
    ['tools as a number', { tools: 3 }],
    ['a non-RegExp idPattern', { tools: [], idPattern: '^a$' }],
    ['a non-function parse', { tools: [], parse: 'yaml' }],
    ['a non-object errors', { tools: [], errors: 'loud' }],
    ['a non-function error factory', { tools: [], errors: { duplicate: 'x' } }],
  ])('rejects a definition with %s', (_, definition) => {
    expect(() => defineTextSkillLoader(definition as never)).toThrow(InvalidDefinitionError)
  })

  it('rejects a malformed request or context', () => {
    const { context } = recorder()
    expect(() => loader.load(undefined as never, context)).toThrow(InvalidInputError)
    expect(() => loader.load({ entries: 'triage' } as never, context)).toThrow(InvalidInputError)
    expect(() => loader.load({ entries: [triage] }, undefined as never)).toThrow(InvalidInputError)
    expect(() => loader.load({ entries: [triage] }, {} as never)).toThrow(
      /load: context\.read must be a function, but got undefined\. Pass read\(path\)/,
    )
    expect(() => loader.load({ entries: [triage] }, { read: () => '', signal: 'stop' } as never)).toThrow(
      InvalidInputError,
    )
  })

  it('rejects a read port that returns a Promise or bytes', () => {
    expect(() => loader.load({ entries: [triage] }, { read: (async () => 'x') as never })).toThrow(
      RejectedThenableError,
    )
    expect(() => loader.load({ entries: [triage] }, { read: (() => Buffer.from('x')) as never })).toThrow(
      /must return the file's text as a string.*Decode the file/,
    )
  })

  it('rejects a parser that returns a Promise or a malformed result', () => {
    const { context } = recorder()
    const asyncParse = defineTextSkillLoader({ tools: ['search'], parse: (async () => ({})) as never })
    expect(() => asyncParse.load({ entries: [triage] }, context)).toThrow(RejectedThenableError)
    for (const returned of [undefined, 'text', { description: '', body: '' }, { description: 'd' }]) {
      const bad = defineTextSkillLoader({ tools: ['search'], parse: (() => returned) as never })
      expect(() => bad.load({ entries: [triage] }, context)).toThrow(InvalidOutputError)
    }
  })

  it('rejects an error factory that returns a Promise or anything but an Error', () => {
    const { context } = recorder()
    const asyncFactory = defineTextSkillLoader({
      tools: [],
      errors: { unknownTool: (async () => new Error()) as never },
    })
    expect(() => asyncFactory.load({ entries: [triage] }, context)).toThrow(RejectedThenableError)
    const stringFactory = defineTextSkillLoader({ tools: [], errors: { unknownTool: (() => 'no') as never } })
    expect(() => stringFactory.load({ entries: [triage] }, context)).toThrow(InvalidOutputError)
    const plainObjectFactory = defineTextSkillLoader({
      tools: [],
      errors: { unknownTool: (() => ({})) as never },
    })
    expect(() => plainObjectFactory.load({ entries: [triage] }, context)).toThrow(InvalidOutputError)
  })

  it('rejects a tools.has that is not a synchronous boolean', () => {
    const { context } = recorder()
    const asyncHas = defineTextSkillLoader({ tools: { has: (async () => true) as never } })
    expect(() => asyncHas.load({ entries: [triage] }, context)).toThrow(RejectedThenableError)
    const truthy = defineTextSkillLoader({ tools: { has: (() => 1) as never } })
    expect(() => truthy.load({ entries: [triage] }, context)).toThrow(InvalidOutputError)
  })

  it('stops before reading when the signal is aborted, also between two reads', () => {
    const { reads, context } = recorder()
    const controller = new AbortController()
    controller.abort()
    expect(() => loader.load({ entries: [triage] }, { ...context, signal: controller.signal })).toThrow(
      AbortedError,
    )
    expect(reads).toEqual([])

    const midway = new AbortController()
    const port: TextSkillLoadContext = {
      signal: midway.signal,
      read(path) {
        midway.abort()
        return context.read(path)
      },
    }
    expect(() => loader.load({ entries: [triage, refund] }, port)).toThrow(
      /before reading text skill "refund"/,
    )
    expect(reads).toEqual(['skills/triage.md'])
  })
})
