// A misbehaving MCP stdio server for the bad-input tests, written by hand (no SDK) so that it can break
// the protocol in exactly one way per mode: node bad-server.mjs <mode>
import { createInterface } from 'node:readline'

const mode = process.argv[2] ?? 'noise'
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`)
const result = (id, value) => send({ jsonrpc: '2.0', id, result: value })

const TOOLS = {
  'bad-schema': [
    { name: 'lookup', description: 'Schema is a word', inputSchema: 'any' },
    {
      name: 'typo',
      description: 'Schema has a typo',
      inputSchema: { type: 'object', properties: { a: { type: 'strin' } } },
    },
    { name: 'ok', description: 'Fine', inputSchema: { type: 'object' } },
  ],
  'bad-output-schema': [
    {
      name: 'report',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object', properties: { n: { minimum: 'zero' } } },
    },
  ],
  'duplicate-ids': [
    { name: 'fs.read', inputSchema: { type: 'object' } },
    { name: 'fs_read', inputSchema: { type: 'object' } },
  ],
}

if (mode === 'crash') {
  process.stderr.write('fatal: missing config file ./mcp.json\n')
  process.exit(3)
}
if (mode === 'ignore-term') {
  process.on('SIGTERM', () => undefined)
  setInterval(() => undefined, 60_000)
}
if (mode === 'noise') {
  process.stdout.write('Starting demo server v1.2 ...\n\n')
}

const lines = createInterface({ input: process.stdin })
lines.on('line', (line) => {
  if (mode === 'silent') return
  if (mode === 'garbage') {
    process.stdout.write('this is not json\n')
    process.stdout.write('{"hello":"world"}\n')
    return
  }
  let message
  try {
    message = JSON.parse(line)
  } catch {
    return
  }
  if (message.id === undefined) return
  switch (message.method) {
    case 'initialize':
      if (mode === 'bad-initialize') return result(message.id, { protocolVersion: 42 })
      if (mode === 'old-protocol')
        return result(message.id, {
          protocolVersion: '2023-01-01',
          capabilities: {},
          serverInfo: { name: 'old', version: '0' },
        })
      return result(message.id, {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: `bad-${mode}`, version: '0.0.1' },
      })
    case 'tools/list':
      if (mode === 'bad-list') return result(message.id, { tools: 'nope' })
      if (mode === 'loop-cursor')
        return result(message.id, {
          tools: [{ name: `t${Math.random()}`.replace('.', ''), inputSchema: { type: 'object' } }],
          nextCursor: 'same',
        })
      return result(message.id, {
        tools: TOOLS[mode] ?? [
          { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
        ],
      })
    case 'tools/call':
      if (mode === 'bad-call') return result(message.id, { content: 'nope' })
      if (mode === 'rpc-error')
        return send({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: 'boom' } })
      if (mode === 'crash-on-call') {
        process.stderr.write('segfault in tool\n')
        process.exit(7)
      }
      if (mode === 'wrong-id') return result(12345, { content: [] })
      return result(message.id, {
        content: [{ type: 'text', text: String(message.params.arguments?.text ?? '') }],
      })
    default:
      return send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } })
  }
})
