/**
 * The transport matrix: one suite, run once through `@agent-core/mock/web` (in process) and once through
 * `@agent-core/mock/node` (a real server on loopback). Each transport test file calls
 * {@link defineTransportSuite} with a factory.
 */
import { afterAll, beforeAll, beforeEach, describe } from 'vitest'
import { KEY, type TransportFactory, type TransportUnderTest } from './transport-helpers.js'
import { controlSuite } from './transport-suite-control.js'
import { modelSuite } from './transport-suite-model.js'

export type { TransportFactory, TransportUnderTest } from './transport-helpers.js'

/** Registers the shared MockGPT transport suite under `name`. */
export function defineTransportSuite(name: string, factory: TransportFactory): void {
  describe(`MockGPT over ${name}`, () => {
    let t: TransportUnderTest
    beforeAll(async () => {
      t = await factory({ seed: 42, apiKey: KEY })
    })
    afterAll(async () => {
      await t.close()
    })
    beforeEach(() => {
      t.mock.reset()
    })

    modelSuite(() => t)
    controlSuite(() => t, factory)
  })
}
