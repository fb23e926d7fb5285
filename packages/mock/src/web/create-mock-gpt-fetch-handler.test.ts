import { createMockGPT } from '../mock-gpt.js'
import { defineTransportSuite } from '../testing/transport-suite.js'
import { createMockGPTFetchHandler } from './create-mock-gpt-fetch-handler.js'

defineTransportSuite('the fetch handler (@agent-core/mock/web)', async (options) => {
  const handler = createMockGPTFetchHandler({ mock: createMockGPT(options) })
  return {
    mock: handler.mock,
    request: (path, init) => handler(new Request(`http://mockgpt.local${path}`, init)),
    close: async () => handler.close(),
  }
})
