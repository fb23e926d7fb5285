/**
 * An MCP server built on the official SDK for the kit's tests: tools that echo, fail, hang (and record
 * the cancellations they receive), return structured content (matching their output schema or not),
 * return images and resources, change the tool list, report their environment and the HTTP headers they
 * saw; resources to list and read; tools listed in pages of three.
 *
 * Run as a script it serves over stdio (`node --import tsx fixture-server.ts`); tests import
 * {@link createFixtureServer} to serve it over streamable HTTP or SSE in process.
 */
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'

const TINY_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

const BASE_TOOLS: Tool[] = [
  {
    name: 'echo',
    description: 'Echoes the text',
    inputSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'fail',
    description: 'Reports an error (isError)',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
  },
  {
    name: 'hang',
    description: 'Never answers (until cancelled)',
    inputSchema: { type: 'object' },
  },
  {
    name: 'slow',
    description: 'Answers after ms milliseconds',
    inputSchema: { type: 'object', required: ['ms'], properties: { ms: { type: 'integer', minimum: 0 } } },
  },
  {
    name: 'weather',
    title: 'Weather',
    description: 'Current weather of a city, as structured content',
    inputSchema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
    outputSchema: {
      type: 'object',
      required: ['city', 'celsius'],
      properties: { city: { type: 'string' }, celsius: { type: 'number' } },
    },
  },
  {
    name: 'broken_weather',
    description: 'Declares an output schema and breaks it',
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object', required: ['celsius'], properties: { celsius: { type: 'number' } } },
  },
  {
    name: 'media',
    description: 'Answers text, an image, an embedded resource and a resource link',
    inputSchema: { type: 'object' },
  },
  {
    name: 'add_tool',
    description: 'Adds a tool and announces the change',
    inputSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  },
  {
    name: 'remove_tool',
    description: 'Removes a tool and announces the change',
    inputSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  },
  {
    name: 'cancellations',
    description: 'The reasons of the cancellations this server received, and how many hang calls started',
    inputSchema: { type: 'object' },
  },
  {
    name: 'env',
    description: 'An environment variable and the working directory',
    inputSchema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  },
  {
    name: 'headers',
    description: 'The HTTP headers of this call',
    inputSchema: { type: 'object' },
  },
  {
    name: 'fs.read',
    description: 'A tool whose name has a dot',
    inputSchema: { type: 'object' },
  },
]

const RESOURCES = [
  {
    uri: 'fixture://docs/readme',
    name: 'readme',
    title: 'Read me',
    mimeType: 'text/markdown',
    text: '# Fixture',
  },
  {
    uri: 'fixture://docs/changelog',
    name: 'changelog',
    mimeType: 'text/plain',
    text: 'v2: pages',
    annotations: { lastModified: '2026-01-02T00:00:00Z' },
  },
  { uri: 'fixture://blob/logo', name: 'logo', mimeType: 'image/png', blob: TINY_PNG },
]

/** The fixture server; `pageSize` tools per `tools/list` page. */
export function createFixtureServer(pageSize = 3): Server {
  const tools = [...BASE_TOOLS]
  const cancellations: string[] = []
  let hanging = 0
  const server = new Server(
    { name: 'fixture', version: '1.0.0' },
    {
      capabilities: { tools: { listChanged: true }, resources: { listChanged: true } },
      instructions: 'Fixture tools for tests.',
    },
  )
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const start = request.params?.cursor === undefined ? 0 : Number(request.params.cursor)
    const page = tools.slice(start, start + pageSize)
    const next = start + pageSize < tools.length ? String(start + pageSize) : undefined
    return { tools: page, ...(next === undefined ? {} : { nextCursor: next }) }
  })
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: RESOURCES.map(({ text: _text, blob: _blob, ...resource }) => resource),
  }))
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const resource = RESOURCES.find((each) => each.uri === request.params.uri)
    if (!resource) throw new McpError(-32002, `Resource not found: ${request.params.uri}`)
    return {
      contents: [
        resource.text === undefined
          ? { uri: resource.uri, mimeType: resource.mimeType, blob: resource.blob }
          : { uri: resource.uri, mimeType: resource.mimeType, text: resource.text },
      ],
    }
  })
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>
    const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] })
    switch (request.params.name) {
      case 'echo':
        return text(String(args.text))
      case 'fail':
        return { content: [{ type: 'text', text: String(args.message ?? 'it failed') }], isError: true }
      case 'hang':
        hanging++
        return new Promise((_resolve, reject) => {
          extra.signal.addEventListener('abort', () => {
            cancellations.push(String(extra.signal.reason ?? 'cancelled'))
            reject(new Error('cancelled'))
          })
        })
      case 'slow':
        await new Promise((resolve) => setTimeout(resolve, Number(args.ms)))
        return text(`after ${Number(args.ms)} ms`)
      case 'weather':
        return {
          content: [{ type: 'text', text: `{"city":"${String(args.city)}","celsius":21}` }],
          structuredContent: { city: String(args.city), celsius: 21 },
        }
      case 'broken_weather':
        return { content: [{ type: 'text', text: 'warm' }], structuredContent: { celsius: 'warm' } }
      case 'media':
        return {
          content: [
            { type: 'text', text: 'Here is the logo.' },
            { type: 'image', data: TINY_PNG, mimeType: 'image/png' },
            {
              type: 'resource',
              resource: { uri: 'fixture://docs/readme', mimeType: 'text/markdown', text: '# Fixture' },
            },
            {
              type: 'resource_link',
              uri: 'fixture://docs/changelog',
              name: 'changelog',
              description: 'What changed',
            },
          ],
        }
      case 'add_tool': {
        const name = String(args.name)
        tools.push({ name, description: `Added at run time: ${name}`, inputSchema: { type: 'object' } })
        await server.sendToolListChanged()
        return text(`added ${name}`)
      }
      case 'remove_tool': {
        const index = tools.findIndex((tool) => tool.name === args.name)
        if (index >= 0) tools.splice(index, 1)
        await server.sendToolListChanged()
        return text(`removed ${String(args.name)}`)
      }
      case 'cancellations':
        return {
          content: [{ type: 'text', text: JSON.stringify(cancellations) }],
          structuredContent: { cancellations, hanging },
        }
      case 'env':
        return text(
          JSON.stringify({
            value: process.env[String(args.name)] ?? null,
            cwd: process.cwd(),
            pid: process.pid,
          }),
        )
      case 'headers':
        return text(JSON.stringify(extra.requestInfo?.headers ?? {}))
      case 'fs.read':
        return text('read')
      default: {
        if (tools.some((tool) => tool.name === request.params.name)) return text(`ran ${request.params.name}`)
        throw new McpError(-32602, `Unknown tool: ${request.params.name}`)
      }
    }
  })
  return server
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js')
  process.stderr.write('fixture server started\n')
  // Keeps running after stdin closes (like a server with work of its own), so that the tests prove the
  // client ends it, not the end of its input.
  if (process.argv.includes('--linger')) setInterval(() => undefined, 60_000)
  await createFixtureServer().connect(new StdioServerTransport())
}
