// Types of `#ajv` (packages/core/package.json): ajv-node.js in Node, ajv.js elsewhere, both beside this
// file (scripts/build-ajv.mjs writes the bundle they load).
import type { Ajv } from 'ajv'
import type { Ajv2020 } from 'ajv/dist/2020.js'

/** ajv's two entry classes and ajv-formats; the first call runs the bundled modules. */
export default function loadAjv(): {
  readonly Ajv: typeof Ajv
  readonly Ajv2020: typeof Ajv2020
  readonly addFormats: (ajv: Ajv) => Ajv
}
