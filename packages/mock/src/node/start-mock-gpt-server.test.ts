import { createMockGPT } from '../mock-gpt.js'
import { defineTransportSuite } from '../testing/transport-suite.js'
import { startMockGPTServer } from './start-mock-gpt-server.js'

defineTransportSuite('node:http on loopback (@agent-core/mock/node)', async (options) => {
  const server = await startMockGPTServer({ port: 0, host: '127.0.0.1', mock: createMockGPT(options) })
  return {
    mock: server.mock,
    request: (path, init) => fetch(`${server.url}${path}`, init),
    close: () => server.close(),
  }
})
