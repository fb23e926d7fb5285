import type { JsonSchema } from '@agent-core/core'
import { defineModelTool, type ModelTool, modelToolSchemas } from '@agent-core/core/tools'
import type { SandboxTools } from './execute-sandbox.js'
import {
  docComment,
  isDeclarableName,
  pascalCase,
  propertyKey,
  SchemaRenderer,
  schemaDoc,
} from './internal/schema-to-ts.js'
import { readToolSet } from './internal/tool-set.js'

type AnyTool = ModelTool<unknown, unknown, unknown>

/** True when an input schema accepts `{}`, so the argument may be left out (a script passes `{}` then). */
function inputOptional(schema: JsonSchema): boolean {
  if (schema === true) return true
  if (typeof schema !== 'object') return false
  const required = schema.required
  return !Array.isArray(required) || required.length === 0
}

function declarations(tools: readonly AnyTool[]): string {
  const taken = new Set<string>()
  const blocks: string[] = []
  const members: string[] = []
  for (const tool of tools) {
    const prefix = pascalCase(tool.id)
    // The JSON Schemas the model reads (a Standard Schema's converted), not the schemas as given.
    const schemas = modelToolSchemas(tool)
    const inputSchema = schemas.input.jsonSchema
    const outputSchema = schemas.output?.jsonSchema
    const inputs = new SchemaRenderer(inputSchema, prefix, taken)
    const input = inputs.render(inputSchema)
    const outputs = outputSchema === undefined ? undefined : new SchemaRenderer(outputSchema, prefix, taken)
    const output = outputs ? outputs.render(outputSchema) : 'unknown'
    const parameter = `input${inputOptional(inputSchema) ? '?' : ''}: ${input}`
    const signature = `(${parameter}): Promise<${output}>`
    const doc = docComment(
      [
        tool.description.trim(),
        ...schemaDoc({
          ...(typeof inputSchema === 'object' ? inputSchema : {}),
          description: undefined,
          title: undefined,
        }),
      ],
      '',
    )
    blocks.push(...inputs.aliases, ...(outputs?.aliases ?? []))
    if (isDeclarableName(tool.id) && tool.id !== 'tools') {
      blocks.push(`${doc}declare function ${tool.id}${signature};`)
      members.push(`  readonly ${tool.id}: typeof ${tool.id};`)
    } else {
      members.push(
        `${docComment([tool.description.trim()], '  ')}  readonly ${propertyKey(tool.id)}: ${signature.replace('): Promise', ') => Promise')};`,
      )
    }
  }
  blocks.push(
    `/** Every tool by its id${members.length > 0 ? ' (the only way to call a tool whose id is not a valid function name)' : ''}. */\ndeclare const tools: {\n${members.join('\n')}${members.length > 0 ? '\n' : ''}};`,
  )
  blocks.push(
    [
      '/** What a failed tool call rejects with. */',
      'declare class ToolCallError extends Error {',
      '  /** Why it failed: "tool-rejected", "timeout", "invalid-input", "aborted", "sandbox-limit", ... */',
      '  readonly code?: string;',
      '  /** The tool that was called. */',
      '  readonly toolId: string;',
      '  /** For a refused call: who refused it, and what they ask you to do instead. */',
      '  readonly by?: string;',
      '  readonly instruction?: string;',
      '}',
    ].join('\n'),
  )
  return `${blocks.join('\n\n')}\n`
}

const rendered = new WeakMap<object, string>()

/**
 * TypeScript declarations of the tools a sandbox script may call, for the model's prompt: one
 * `declare function` per tool (an `input` object typed from its JSON Schema, a `Promise` of its output
 * schema or `unknown`), doc comments from the tools' and properties' descriptions (with defaults, formats
 * and bounds), named types for `$ref`s, a `tools` object holding every tool by id, and the `ToolCallError` a
 * failed call rejects with. The text compiles with the TypeScript compiler.
 * @throws `InvalidDefinitionError` for tools that are not core tools or tool lifecycles, or repeat an id
 * @example
 * ```ts
 * import { defineModelTool } from '@agent-core/core/tools'
 * import { describeTools } from '@agent-core/kits/sandbox'
 * const lookup = defineModelTool({
 *   id: 'lookup_order',
 *   description: 'Finds an order by id',
 *   inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string', description: 'The order id' } } },
 *   execute: () => ({ total: 120 }),
 * })
 * const text = describeTools([lookup])
 * // text contains: declare function lookup_order(input: { ... orderId: string; ... }): Promise<unknown>;
 * ```
 */
export function describeTools<App = unknown>(tools: SandboxTools<App>): string {
  const key = tools as object
  if (typeof key === 'object' && key !== null) {
    const hit = rendered.get(key)
    if (hit !== undefined) return hit
  }
  const set = readToolSet(tools, 'tools', undefined)
  const text = declarations(set.tools)
  if (typeof key === 'object' && key !== null && (Object.isFrozen(key) || !Array.isArray(key)))
    rendered.set(key, text)
  return text
}

/**
 * A companion tool for the model: it answers the TypeScript declarations of the sandbox's tools (all, or
 * those named in `ids`), for when the code tool's description does not list them (many tools, a short
 * prompt). Id `describe_tools` unless given.
 * @throws `InvalidDefinitionError` for malformed tools
 * @example
 * ```ts
 * import { defineDescribeTool } from '@agent-core/kits/sandbox'
 * import type { ModelTool } from '@agent-core/core/tools'
 * declare const lookupOrder: ModelTool
 * declare const refund: ModelTool
 * const describe = defineDescribeTool({ tools: [lookupOrder, refund] })
 * ```
 */
export function defineDescribeTool<App = unknown>(options: {
  readonly tools: SandboxTools<App>
  readonly id?: string | undefined
}): ModelTool<{ readonly ids?: readonly string[] | undefined }, string, App> {
  const set = readToolSet(options?.tools, 'options.tools', undefined)
  const all = set.tools
  return defineModelTool<{ readonly ids?: readonly string[] | undefined }, string, App>({
    id: options.id ?? 'describe_tools',
    description:
      'Returns the TypeScript declarations of the functions a sandbox script can call (all of them, or those named in ids).',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        ids: {
          type: 'array',
          items: all.length === 0 ? { type: 'string' } : { type: 'string', enum: all.map((tool) => tool.id) },
          description: 'The tools to describe; all when left out.',
        },
      },
    },
    execute: ({ ids }) => declarations(ids === undefined ? all : all.filter((tool) => ids.includes(tool.id))),
  })
}
