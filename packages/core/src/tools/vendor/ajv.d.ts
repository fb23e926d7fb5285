// Types of the bundle that scripts/build-ajv.mjs writes to ajv.js beside this file.
import type { Ajv } from 'ajv'
import type { Ajv2020 } from 'ajv/dist/2020.js'

/** ajv's two entry classes and ajv-formats; the first call runs the bundled modules. */
export default function loadAjv(): {
  readonly Ajv: typeof Ajv
  readonly Ajv2020: typeof Ajv2020
  readonly addFormats: (ajv: Ajv) => Ajv
}
