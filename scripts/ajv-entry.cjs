// The entry that scripts/build-ajv.mjs bundles: every require sits inside `loadAjv`, so the bundle defines
// ajv's modules at import time but runs none of them until the first schema is compiled.
module.exports = function loadAjv() {
  const { Ajv } = require('ajv')
  const { Ajv2020 } = require('ajv/dist/2020')
  const formats = require('ajv-formats')
  return { Ajv, Ajv2020, addFormats: formats.default || formats }
}
