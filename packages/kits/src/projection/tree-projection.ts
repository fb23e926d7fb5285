import {
  assertBoolean,
  assertSafeInteger,
  describeValue,
  InvalidDefinitionError,
  refuseField,
} from '@agent-core/core'
import { callSync, definitionId, definitionMethod } from './checks.js'

/**
 * Where a node sits: its depth (the root is 0) and the child indexes leading to it from the root.
 * @example
 * ```ts
 * import type { TreePosition } from '@agent-core/kits/projection'
 * const label = (name: string, position: TreePosition) => `${'  '.repeat(position.depth)}${position.path.join('.')} ${name}`
 * ```
 */
export interface TreePosition {
  readonly depth: number
  /** Child indexes from the root (`[]` for the root), counted over all children, omitted ones included. */
  readonly path: readonly number[]
}

/**
 * What `project` receives besides the node: its children's outputs and what was left out.
 * @example
 * ```ts
 * import type { TreeProjected } from '@agent-core/kits/projection'
 * const summarize = (name: string, projected: TreeProjected<string>): string =>
 *   `${name}(${projected.children.join(',')}${projected.omitted ? `,+${projected.omitted} hidden` : ''}${projected.depthLimited ? ',…' : ''})`
 * ```
 */
export interface TreeProjected<Output> extends TreePosition {
  /** The outputs of the node's kept children, in the order `children` listed them. */
  readonly children: readonly Output[]
  /** How many children `omit` left out. */
  readonly omitted: number
  /** True when the node is at `maxDepth`: its children were not asked for, so there may be some. */
  readonly depthLimited: boolean
}

/**
 * A tree walk: how to list a node's children, which nodes to leave out and how to build each node's output
 * from its children's outputs. `Context` is whatever the caller declares (a user, a locale, a policy): the
 * walk passes it to every hook untouched and gives it no lifecycle.
 * @example
 * ```ts
 * import { defineTreeProjection, type TreeProjectionDefinition } from '@agent-core/kits/projection'
 * interface Dir { name: string; children?: Dir[] }
 * const definition: TreeProjectionDefinition<Dir, number> = {
 *   id: 'count',
 *   maxDepth: 3,
 *   children: (dir) => dir.children ?? [],
 *   project: (_dir, { children }) => 1 + children.reduce((sum, n) => sum + n, 0),
 * }
 * defineTreeProjection(definition).visit({ name: 'root', children: [{ name: 'a' }, { name: 'b' }] }) // 3
 * ```
 */
export interface TreeProjectionDefinition<Node, Output, Context = undefined> {
  /** Names the projection in error messages. */
  readonly id: string
  /** The deepest depth that is visited (the root is depth 0). A non-negative safe integer. */
  readonly maxDepth: number
  /** The node's children, synchronously, as an array or another iterable. Never called at `maxDepth`. */
  children(node: Node, position: TreePosition, context: Context): Iterable<Node>
  /**
   * A synchronous predicate; `true` leaves the child (and everything below it) out. Called for every child
   * before it is visited, never for the root.
   */
  omit?(node: Node, position: TreePosition, context: Context): boolean
  /** Builds a node's output once all its kept children are projected (post-order). Synchronous. */
  project(node: Node, projected: TreeProjected<Output>, context: Context): Output
}

/**
 * The context argument of `visit`: optional when `Context` admits `undefined`.
 * @example
 * ```ts
 * import type { TreeContextArgument } from '@agent-core/kits/projection'
 * const none: TreeContextArgument<undefined> = [] // visit(root)
 * const some: TreeContextArgument<{ showHidden: boolean }> = [{ showHidden: true }] // visit(root, context)
 * ```
 */
export type TreeContextArgument<Context> = undefined extends Context
  ? [context?: Context]
  : [context: Context]

/**
 * A compiled tree projection, built by {@link defineTreeProjection}.
 * @example
 * ```ts
 * import { defineTreeProjection, type TreeProjection } from '@agent-core/kits/projection'
 * interface Dir { name: string; children?: Dir[] }
 * const names: TreeProjection<Dir, string[]> = defineTreeProjection<Dir, string[]>({
 *   id: 'names',
 *   maxDepth: 1,
 *   children: (dir) => dir.children ?? [],
 *   project: (dir, { children }) => [dir.name, ...children.flat()],
 * })
 * names.visit({ name: 'root', children: [{ name: 'src' }] }) // ['root', 'src']
 * ```
 */
export interface TreeProjection<Node, Output, Context = undefined> {
  readonly id: string
  readonly maxDepth: number
  /**
   * Walks the tree below `input` depth-first and returns the root's output. Synchronous throughout; a hook
   * that returns a Promise is rejected with RejectedThenableError, a non-boolean from `omit` and a
   * non-iterable from `children` with InvalidOutputError.
   */
  visit(input: Node, ...context: TreeContextArgument<Context>): Output
}

/** The child-index chain to a node; the path array is only built when a hook reads `path`. */
interface PathLink {
  readonly parent: PathLink | undefined
  readonly index: number
  readonly depth: number
}

const ROOT_PATH: readonly number[] = Object.freeze([])

function pathOf(link: PathLink | undefined): readonly number[] {
  if (link === undefined) return ROOT_PATH
  const path = new Array<number>(link.depth)
  for (let at: PathLink | undefined = link; at !== undefined; at = at.parent) path[at.depth - 1] = at.index
  return Object.freeze(path)
}

/**
 * A frozen object with `depth` and a lazily built, cached, enumerable `path`, plus `extra` fields. Building
 * every path eagerly would cost time and memory quadratic in the depth of a deep tree.
 */
function positioned<T extends object>(depth: number, link: PathLink | undefined, extra: T): TreePosition & T {
  let path: readonly number[] | undefined
  const target = { depth, ...extra }
  Object.defineProperty(target, 'path', {
    enumerable: true,
    get: () => {
      path ??= pathOf(link)
      return path
    },
  })
  return Object.freeze(target) as TreePosition & T
}

interface Frame<Node, Output> {
  readonly node: Node
  readonly depth: number
  readonly link: PathLink | undefined
  readonly position: TreePosition
  readonly children: readonly Node[]
  readonly outputs: Output[]
  next: number
  omitted: number
}

/**
 * Defines a synchronous, depth-limited tree projection.
 *
 * `visit(input, context)` walks depth-first. For a node above `maxDepth` it calls `children`, then for each
 * child in order `omit` (when defined) and, unless omitted, visits the child; then it calls `project` with
 * the kept children's outputs. A node at `maxDepth` is projected without asking for its children
 * (`depthLimited: true`). The walk uses an explicit stack, so deep trees do not overflow the call stack,
 * and `maxDepth` bounds it even on cyclic graphs. Hooks run with the definition as `this`.
 *
 * @throws InvalidDefinitionError when the definition is malformed
 * @example
 * ```ts
 * import { defineTreeProjection } from '@agent-core/kits/projection'
 *
 * interface Dir { name: string; children?: Dir[] }
 * const outline = defineTreeProjection<Dir, string>({
 *   id: 'outline',
 *   maxDepth: 1,
 *   children: (dir) => dir.children ?? [],
 *   omit: (dir) => dir.name.startsWith('.'),
 *   project: (dir, { children }) => (children.length ? `${dir.name}(${children.join(',')})` : dir.name),
 * })
 * outline.visit({ name: 'root', children: [{ name: 'src' }, { name: '.git' }] }) // 'root(src)'
 * ```
 */
export function defineTreeProjection<Node, Output, Context = undefined>(
  definition: TreeProjectionDefinition<Node, Output, Context>,
): TreeProjection<Node, Output, Context> {
  const id = definitionId(definition, 'tree projection')
  const what = `tree projection "${id}"`
  const { maxDepth } = definition
  assertSafeInteger(maxDepth, 'maxDepth', {
    min: 0,
    where: what,
    error: InvalidDefinitionError,
    details: { id },
    hint: 'Pass how many levels below the root to visit, such as 2 (0 visits the root only).',
  })
  const children = definitionMethod(definition, 'children', what, id, false) as (...args: never[]) => unknown
  const omit = definitionMethod(definition, 'omit', what, id, true)
  const project = definitionMethod(definition, 'project', what, id, false) as (...args: never[]) => unknown

  function listChildren(node: Node, position: TreePosition, context: Context): readonly Node[] {
    const listed = callSync<unknown>(children, definition, [node, position, context], `${what} children`)
    if (Array.isArray(listed)) return (listed as Node[]).slice()
    if (
      typeof listed === 'object' &&
      listed !== null &&
      typeof (listed as Iterable<Node>)[Symbol.iterator] === 'function'
    ) {
      return [...(listed as Iterable<Node>)]
    }
    refuseField(
      'output',
      'children',
      `must return an array or another iterable of child nodes, but returned ${describeValue(listed)}. Return [] for a leaf`,
      listed,
      { prefix: `${what} `, details: { id, hook: 'children', returned: describeValue(listed) } },
    )
  }

  function enter(
    node: Node,
    depth: number,
    link: PathLink | undefined,
    position: TreePosition,
    context: Context,
  ): Frame<Node, Output> {
    const kids = depth < maxDepth ? listChildren(node, position, context) : []
    return { node, depth, link, position, children: kids, outputs: [], next: 0, omitted: 0 }
  }

  function finish(frame: Frame<Node, Output>, context: Context): Output {
    const projected: TreeProjected<Output> = positioned(frame.depth, frame.link, {
      children: Object.freeze(frame.outputs),
      omitted: frame.omitted,
      depthLimited: frame.depth === maxDepth,
    })
    return callSync<Output>(project, definition, [frame.node, projected, context], `${what} project`)
  }

  return Object.freeze({
    id,
    maxDepth,
    visit(input: Node, ...rest: TreeContextArgument<Context>): Output {
      const context = rest[0] as Context
      const stack: Frame<Node, Output>[] = [enter(input, 0, undefined, positioned(0, undefined, {}), context)]
      for (;;) {
        const frame = stack[stack.length - 1] as Frame<Node, Output>
        if (frame.next < frame.children.length) {
          const index = frame.next++
          const child = frame.children[index] as Node
          const depth = frame.depth + 1
          const link: PathLink = { parent: frame.link, index, depth }
          const position = positioned(depth, link, {})
          if (omit) {
            const leaveOut = assertBoolean(
              Reflect.apply(omit, definition, [child, position, context]),
              `${what} omit`,
            )
            if (leaveOut) {
              frame.omitted++
              continue
            }
          }
          stack.push(enter(child, depth, link, position, context))
          continue
        }
        stack.pop()
        const output = finish(frame, context)
        const parent = stack[stack.length - 1]
        if (parent === undefined) return output
        parent.outputs.push(output)
      }
    },
  })
}
