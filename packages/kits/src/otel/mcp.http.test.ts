/**
 * MCP calls as OpenTelemetry spans: an agent run whose tools come from an MCP server (our `serveMcp` over
 * streamable HTTP on loopback), traced on both sides with the SDK's in-memory exporter.
 */

import { defineModelTool } from '@agent-core/core/tools'
import { createScriptedModel, defineAgent } from '@agent-core/kits/loop'
import { connectMcpServer, serveMcp } from '@agent-core/kits/mcp'
import * as otel from '@opentelemetry/api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOtelSink } from './index.js'
import { createTracing, only, type Tracing } from './internal/testing/tracing.js'

let tracing: Tracing
beforeAll(() => {
  tracing = createTracing()
})
afterAll(() => tracing.shutdown())

const findOrder = defineModelTool<{ orderId: string }, string>({
  id: 'find_order',
  description: 'Finds an order',
  inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
  execute: ({ orderId }) => `order ${orderId}: shipped`,
})
const cancelOrder = defineModelTool<{ orderId: string }, string>({
  id: 'cancel_order',
  description: 'Cancels an order',
  inputSchema: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
  execute: () => {
    throw new Error('shipped orders cannot be cancelled')
  },
})

describe('MCP calls as OpenTelemetry spans', () => {
  it('client: execute_tool > tools/call (client); server: tools/call (server) > execute_tool', async () => {
    const serverTracing = createOtelSink({ api: otel, tracerProvider: tracing.provider })
    const clientTracing = createOtelSink({ api: otel, tracerProvider: tracing.provider })
    const server = await serveMcp(
      [findOrder, cancelOrder],
      { type: 'http' },
      {
        name: 'shop',
        context: () => ({ diagnostics: serverTracing.sink }),
      },
    )
    try {
      const shop = await connectMcpServer(
        { name: 'shop', transport: { type: 'http', url: server.url! } },
        { diagnostics: clientTracing.sink },
      )
      try {
        const model = createScriptedModel([
          {
            toolCalls: [
              { name: 'shop__find_order', input: { orderId: 'A-7' } },
              { name: 'shop__cancel_order', input: { orderId: 'A-7' } },
            ],
          },
          { text: 'A-7 has shipped; it cannot be cancelled.' },
        ])
        const result = await defineAgent({ model, tools: shop.lifecycles() }).run(
          { prompt: 'Cancel A-7' },
          { diagnostics: clientTracing.sink },
        )
        expect(result.reason).toBe('final')
      } finally {
        await shop.close()
      }
    } finally {
      await server.close()
    }
    expect(clientTracing.stats).toMatchObject({ open: 0, unfinished: 0, orphanEnds: 0 })
    expect(serverTracing.stats).toMatchObject({ open: 0, unfinished: 0, orphanEnds: 0 })

    const spans = tracing.spans()
    // The connection handshake is a client span of its own trace.
    const connect = only(spans, 'initialize')
    expect(connect.kind).toBe(otel.SpanKind.CLIENT)
    expect(connect.attributes).toMatchObject({
      'mcp.method.name': 'initialize',
      'agent_core.mcp.server': 'shop',
      'agent_core.mcp.transport': 'http',
      'agent_core.outcome': 'ok',
    })

    const clientTrees = tracing
      .tree(['gen_ai.tool.name', 'mcp.method.name'], 'name')
      .filter((root) => root.name === 'invoke_agent')
    expect(clientTrees).toEqual([
      {
        name: 'invoke_agent',
        children: [
          {
            name: 'turn',
            children: [
              { name: 'chat scripted', children: [] },
              {
                name: 'execute_tool shop__cancel_order',
                attributes: { 'gen_ai.tool.name': 'shop__cancel_order' },
                status: expect.stringMatching(/^error: error: /),
                // The MCP request is made inside the execution span of the call.
                children: [
                  {
                    name: 'tool-execution',
                    status: expect.stringMatching(/^error: error: /),
                    children: [
                      {
                        name: 'tools/call cancel_order',
                        attributes: { 'gen_ai.tool.name': 'cancel_order', 'mcp.method.name': 'tools/call' },
                        status: expect.stringMatching(/^error: error: /),
                        children: [],
                      },
                    ],
                  },
                ],
              },
              {
                name: 'execute_tool shop__find_order',
                attributes: { 'gen_ai.tool.name': 'shop__find_order' },
                children: [
                  {
                    name: 'tool-execution',
                    children: [
                      {
                        name: 'tools/call find_order',
                        attributes: { 'gen_ai.tool.name': 'find_order', 'mcp.method.name': 'tools/call' },
                        children: [],
                      },
                    ],
                  },
                ],
              },
            ],
          },
          { name: 'turn', children: [{ name: 'chat scripted', children: [] }] },
        ],
      },
    ])
    const failedCall = spans.find(
      (span) => span.name === 'tools/call cancel_order' && span.kind === otel.SpanKind.CLIENT,
    )!
    expect(failedCall.attributes).toMatchObject({
      'agent_core.mcp.server': 'shop',
      'agent_core.mcp.tool_id': 'shop__cancel_order',
      'agent_core.outcome': 'error',
      'agent_core.error.code': 'mcp-tool-error',
    })

    // The server side: one server span per call, the served tool's lifecycle span inside it.
    const served = spans.filter((span) => span.kind === otel.SpanKind.SERVER)
    expect(served.map((span) => span.name).sort()).toEqual([
      'tools/call cancel_order',
      'tools/call find_order',
    ])
    for (const span of served) {
      expect(span.attributes['mcp.method.name']).toBe('tools/call')
      expect(span.attributes['mcp.session.id']).toBeTypeOf('string')
      const inner = spans.filter((child) => child.parentSpanContext?.spanId === span.spanContext().spanId)
      expect(inner.map((child) => child.name)).toEqual([
        `execute_tool ${span.attributes['gen_ai.tool.name']}`,
      ])
    }
    const refused = served.find((span) => span.name === 'tools/call cancel_order')!
    expect(refused.attributes['agent_core.mcp.status']).toBe('failed')
  })
})
