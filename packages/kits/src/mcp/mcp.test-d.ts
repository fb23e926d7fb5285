import type { ModelTool } from '@agent-core/core/tools'
import { defineArtifactCatalog } from '@agent-core/kits/artifacts'
import type { ToolLifecycle } from '@agent-core/kits/tools'
import { describe, expectTypeOf, it } from 'vitest'
import {
  connectMcpServer,
  type McpConnection,
  type McpHttpServerHandle,
  type McpModelTool,
  type McpResource,
  type McpServerHandle,
  type McpToolInput,
  type McpToolResult,
  serveMcp,
} from './index.js'

declare const github: McpConnection<'github'>

describe('MCP kit types', () => {
  it('keeps the server name as a literal, so artifact catalogs type what they resolve', () => {
    expectTypeOf(
      connectMcpServer({ name: 'github', transport: { type: 'http', url: 'https://x' } }),
    ).toEqualTypeOf<Promise<McpConnection<'github'>>>()
    const catalog = defineArtifactCatalog([github.resources])
    expectTypeOf(catalog.resolve({ resolverId: 'github', artifactId: 'a' })).toEqualTypeOf<
      Promise<McpResource>
    >()
    // @ts-expect-error: no resolver has this id
    catalog.resolve({ resolverId: 'gitlab', artifactId: 'a' })
  })

  it('offers core tools and tools-kit lifecycles answering MCP results', () => {
    expectTypeOf(github.tools).toEqualTypeOf<readonly McpModelTool[]>()
    expectTypeOf<McpModelTool>().toMatchTypeOf<ModelTool<McpToolInput, McpToolResult>>()
    expectTypeOf(github.lifecycles()).toEqualTypeOf<
      readonly ToolLifecycle<McpToolInput, McpToolResult, unknown>[]
    >()
  })

  it('returns the handle of the transport it serves on', () => {
    expectTypeOf(serveMcp([], { type: 'http' })).toEqualTypeOf<Promise<McpHttpServerHandle>>()
    expectTypeOf(serveMcp([], { type: 'stdio' })).toEqualTypeOf<Promise<McpServerHandle>>()
  })
})
