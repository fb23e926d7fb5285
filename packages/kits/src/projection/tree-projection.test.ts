import { InvalidDefinitionError, InvalidOutputError, RejectedThenableError } from '@agent-core/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  defineTreeProjection,
  type TreePosition,
  type TreeProjected,
  type TreeProjectionDefinition,
} from './index.js'

interface Item {
  readonly name: string
  readonly children: readonly Item[]
}

const item = (name: string, ...children: Item[]): Item => ({ name, children })

const { tree } = fc.letrec<{ tree: Item }>((tie) => ({
  tree: fc.record({
    name: fc.constantFrom('a', 'b', 'x', 'y', 'xa'),
    children: fc.oneof({ depthSize: 'small' }, fc.constant([]), fc.array(tie('tree'), { maxLength: 4 })),
  }),
}))

interface Shape {
  name: string
  depth: number
  path: string
  omitted: number
  depthLimited: boolean
  kids: Shape[]
}

/** A naive recursive model of the walk: output and the order of hook calls. */
function reference(root: Item, maxDepth: number, prefix: string, log: string[]): Shape {
  const walk = (node: Item, depth: number, path: number[]): Shape => {
    const kids: Shape[] = []
    let omitted = 0
    if (depth < maxDepth) {
      log.push(`children ${path.join('.')}`)
      node.children.forEach((child, index) => {
        const childPath = [...path, index]
        log.push(`omit ${childPath.join('.')}`)
        if (child.name.startsWith(prefix)) omitted++
        else kids.push(walk(child, depth + 1, childPath))
      })
    }
    log.push(`project ${path.join('.')}`)
    return { name: node.name, depth, path: path.join('.'), omitted, depthLimited: depth === maxDepth, kids }
  }
  return walk(root, 0, [])
}

function logged(maxDepth: number, prefix: string, log: string[]): TreeProjectionDefinition<Item, Shape> {
  return {
    id: 'shape',
    maxDepth,
    children: (node, position) => {
      log.push(`children ${position.path.join('.')}`)
      return node.children
    },
    omit: (node, position) => {
      log.push(`omit ${position.path.join('.')}`)
      return node.name.startsWith(prefix)
    },
    project: (node, projected) => {
      log.push(`project ${projected.path.join('.')}`)
      return {
        name: node.name,
        depth: projected.depth,
        path: projected.path.join('.'),
        omitted: projected.omitted,
        depthLimited: projected.depthLimited,
        kids: [...projected.children],
      }
    },
  }
}

describe('defineTreeProjection: invariants', () => {
  it('matches a naive recursive walk, output and hook order alike', () => {
    fc.assert(
      fc.property(
        tree,
        fc.integer({ min: 0, max: 6 }),
        fc.constantFrom('x', 'y', 'z'),
        (root, maxDepth, prefix) => {
          const expectedLog: string[] = []
          const expected = reference(root, maxDepth, prefix, expectedLog)
          const log: string[] = []
          expect(defineTreeProjection(logged(maxDepth, prefix, log)).visit(root)).toEqual(expected)
          expect(log).toEqual(expectedLog)
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('never visits a node deeper than maxDepth', () => {
    fc.assert(
      fc.property(tree, fc.integer({ min: 0, max: 4 }), (root, maxDepth) => {
        let deepest = 0
        defineTreeProjection<Item, null>({
          id: 'depth',
          maxDepth,
          children: (node) => node.children,
          project: (_, { depth }) => {
            deepest = Math.max(deepest, depth)
            return null
          },
        }).visit(root)
        expect(deepest).toBeLessThanOrEqual(maxDepth)
      }),
    )
  })
})

describe('defineTreeProjection: behaviour', () => {
  const names = (maxDepth: number, omit?: (node: Item) => boolean) =>
    defineTreeProjection<Item, string>({
      id: 'names',
      maxDepth,
      children: (node) => node.children,
      ...(omit ? { omit } : {}),
      project: (node, { children, omitted, depthLimited }) =>
        `${node.name}${depthLimited ? '…' : ''}${omitted ? `-${omitted}` : ''}${children.length ? `(${children.join(',')})` : ''}`,
    })
  const sample = item(
    'r',
    item('a', item('a1'), item('a2')),
    item('.hidden'),
    item('b', item('b1', item('b11'))),
  )

  it('projects children before parents, in order', () => {
    expect(names(10).visit(sample)).toBe('r(a(a1,a2),.hidden,b(b1(b11)))')
  })

  it('stops at maxDepth without asking for children and marks the cut', () => {
    expect(names(1).visit(sample)).toBe('r(a…,.hidden…,b…)')
    expect(names(0).visit(sample)).toBe('r…')
  })

  it('leaves omitted children and their subtrees out, and counts them', () => {
    expect(names(10, (node) => node.name.startsWith('.')).visit(sample)).toBe('r-1(a(a1,a2),b(b1(b11)))')
  })

  it('never asks omit about the root', () => {
    expect(names(3, () => true).visit(sample)).toBe('r-3')
  })

  it('accepts any iterable of children', () => {
    const projection = defineTreeProjection<number, number>({
      id: 'sum',
      maxDepth: 3,
      *children(n) {
        if (n < 3) yield n + 1
        if (n < 2) yield n + 2
      },
      project: (n, { children }) => n + children.reduce((a, b) => a + b, 0),
    })
    expect(projection.visit(0)).toBe(0 + 1 + 2 + 3 + 3 + 2 + 3)
  })

  it('passes depth and path to every hook', () => {
    const seen: TreePosition[] = []
    defineTreeProjection<Item, null>({
      id: 'positions',
      maxDepth: 2,
      children: (node, position) => {
        seen.push(position)
        return node.children
      },
      project: () => null,
    }).visit(sample)
    expect(seen).toEqual([
      { depth: 0, path: [] },
      { depth: 1, path: [0] },
      { depth: 1, path: [1] },
      { depth: 1, path: [2] },
    ])
    expect(Object.isFrozen(seen[1]?.path)).toBe(true)
  })

  it('passes the caller-declared context to every hook untouched', () => {
    interface Viewer {
      readonly hide: ReadonlySet<string>
    }
    const viewer: Viewer = { hide: new Set(['b']) }
    const contexts = new Set<unknown>()
    const projection = defineTreeProjection<Item, string, Viewer>({
      id: 'viewer',
      maxDepth: 5,
      children: (node, _, context) => {
        contexts.add(context)
        return node.children
      },
      omit: (node, _, context) => {
        contexts.add(context)
        return context.hide.has(node.name)
      },
      project: (node, { children }, context) => {
        contexts.add(context)
        return [node.name, ...children].join(' ')
      },
    })
    expect(projection.visit(sample, viewer)).toBe('r a a1 a2 .hidden')
    expect([...contexts]).toEqual([viewer])
  })

  it('treats the context as plain caller data with no execution lifecycle', () => {
    const context = { signal: AbortSignal.abort() }
    const projection = defineTreeProjection<Item, string, typeof context>({
      id: 'lifecycle-free',
      maxDepth: 5,
      children: (node) => node.children,
      project: (node, { children }, c) => (c === context ? [node.name, ...children].join(' ') : 'wrong'),
    })
    expect(projection.visit(sample, context)).toBe('r a a1 a2 .hidden b b1 b11')
  })

  it('walks very deep trees without overflowing the call stack', () => {
    let root: Item = item('leaf')
    for (let i = 0; i < 50_000; i++) root = item(`n${i}`, root)
    const depth = defineTreeProjection<Item, number>({
      id: 'deep',
      maxDepth: 100_000,
      children: (node) => node.children,
      project: (_, { children }) => 1 + (children[0] ?? 0),
    }).visit(root)
    expect(depth).toBe(50_001)
  })

  it('terminates on a cyclic graph, bounded by maxDepth', () => {
    const a: { name: string; next: unknown[] } = { name: 'a', next: [] }
    a.next.push(a)
    const visits = defineTreeProjection<typeof a, number>({
      id: 'cycle',
      maxDepth: 4,
      children: (node) => node.next as (typeof a)[],
      project: (_, { children }) => 1 + (children[0] ?? 0),
    }).visit(a)
    expect(visits).toBe(5)
  })

  it('works with a class-based definition: private state, prototype getters and methods', () => {
    class Outline implements TreeProjectionDefinition<Item, string> {
      readonly #separator: string
      constructor(separator: string) {
        this.#separator = separator
      }
      get id() {
        return 'outline'
      }
      get maxDepth() {
        return 1
      }
      children(node: Item) {
        return node.children
      }
      omit(node: Item) {
        return node.name === this.#separator
      }
      project(node: Item, projected: TreeProjected<string>) {
        return [node.name, ...projected.children].join(this.#separator)
      }
    }
    const projection = defineTreeProjection(new Outline('/'))
    expect(projection.id).toBe('outline')
    expect(projection.maxDepth).toBe(1)
    expect(projection.visit(sample)).toBe('r/a/.hidden/b')
  })
})

describe('defineTreeProjection: bad input', () => {
  const base = { id: 't', maxDepth: 2, children: () => [], project: () => null }

  it.each([
    ['a non-object', 'tree'],
    ['no id', { ...base, id: undefined }],
    ['maxDepth -1', { ...base, maxDepth: -1 }],
    ['maxDepth 1.5', { ...base, maxDepth: 1.5 }],
    ['maxDepth NaN', { ...base, maxDepth: Number.NaN }],
    ['maxDepth as a string', { ...base, maxDepth: '2' }],
    ['an unsafe maxDepth', { ...base, maxDepth: 2 ** 53 }],
    ['no children', { ...base, children: undefined }],
    ['a non-function omit', { ...base, omit: true }],
    ['no project', { ...base, project: 'x' }],
  ])('rejects a definition with %s', (_, definition) => {
    expect(() => defineTreeProjection(definition as never)).toThrow(InvalidDefinitionError)
  })

  it('rejects hooks that return Promises', () => {
    const asyncChildren = defineTreeProjection({ ...base, children: async () => [] } as never)
    expect(() => asyncChildren.visit(1)).toThrow(RejectedThenableError)
    const asyncOmit = defineTreeProjection({ ...base, children: () => [2], omit: async () => false } as never)
    expect(() => asyncOmit.visit(1)).toThrow(RejectedThenableError)
    const asyncProject = defineTreeProjection({ ...base, project: async () => null } as never)
    expect(() => asyncProject.visit(1)).toThrow(RejectedThenableError)
  })

  it('rejects children that are not an iterable of nodes', () => {
    for (const returned of [undefined, null, 3, 'ab', { length: 1 }]) {
      const projection = defineTreeProjection({ ...base, children: () => returned } as never)
      expect(() => projection.visit(1)).toThrow(InvalidOutputError)
    }
  })

  it('rejects an omit that does not return a boolean', () => {
    const projection = defineTreeProjection({ ...base, children: () => [2], omit: () => 'yes' } as never)
    expect(() => projection.visit(1)).toThrow(InvalidOutputError)
    expect(() => projection.visit(1)).toThrow(/must return a boolean/)
  })
})
