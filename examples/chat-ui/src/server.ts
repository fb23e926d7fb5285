/**
 * The example's server: bundles the page with esbuild, starts MockGPT, and serves the page and the agent
 * (`createChatHandler`, the fetch handler of `@agent-core/kits/ui`) on loopback.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { createChatHandler } from '@agent-core/kits/ui'
import { startMockGPTServer } from '@agent-core/mock/node'
import { build } from 'esbuild'
import { createChatAgent, SCRIPT } from './agent.js'
import { toNodeListener } from './node-listener.js'

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Harbour desk</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
  .message { border-left: 3px solid #ccc; padding: .25rem 1rem; margin: 1rem 0; }
  .message.user { border-color: #48c; } .message.assistant { border-color: #4a7; }
  .reasoning { color: #888; font-style: italic; } .tool { background: #f5f5f5; padding: .5rem; margin: .5rem 0; }
  .tool-head { font-family: ui-monospace, monospace; font-size: .9rem; } .tool-error, .tool-denied { color: #b33; }
  .progress { display: flex; gap: .5rem; align-items: center; color: #555; font-size: .9rem; }
  form { display: flex; gap: .5rem; } #input { flex: 1; } #status { color: #999; font-size: .9rem; }
</style>
</head>
<body>
<h1>Harbour desk</h1>
<div id="messages"></div>
<form id="form"><input id="input" value="Prepare the spring tides report and publish it" aria-label="Message"><button id="send">Send</button></form>
<p id="status"></p>
<script type="module" src="/page.js"></script>
</body>
</html>`

export interface ChatApp {
  readonly url: string
  close(): Promise<void>
}

/** Bundles the page for the browser: the AI SDK's client and the page code, one file. */
export async function bundlePage(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./page.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    minify: true,
    logLevel: 'silent',
  })
  return result.outputFiles[0]!.text
}

export async function startChatApp(options: { port?: number } = {}): Promise<ChatApp> {
  const script = await bundlePage()
  const mock = await startMockGPTServer({ apiKey: 'sk-example', script: SCRIPT })
  const chat = createChatHandler({ agent: createChatAgent(mock.baseURL) })
  const api = toNodeListener(chat)
  const server = createServer((req, res) => {
    if (req.url === '/api/chat') return api(req, res)
    if (req.method === 'GET' && req.url === '/page.js')
      return void res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(script)
    if (req.method === 'GET' && (req.url === '/' || req.url === '/index.html'))
      return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE)
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found')
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await mock.close()
    },
  }
}
