/**
 * A module hook for the "absent" test: resolving `@opentelemetry/api` fails as it does when the package
 * is not installed (ERR_MODULE_NOT_FOUND), or, with HIDE_OTEL_API=broken, with another error (a broken
 * install). Load it after tsx: `node --import tsx --import ./hide-otel-api.mjs ...`.
 */
import { register } from 'node:module'

const hook = `
export async function resolve(specifier, context, next) {
  if (specifier === '@opentelemetry/api' || specifier.startsWith('@opentelemetry/api/')) {
    if (${JSON.stringify(process.env.HIDE_OTEL_API)} === 'broken') {
      throw new SyntaxError('Unexpected token in @opentelemetry/api (a broken install)')
    }
    const error = new Error("Cannot find package '@opentelemetry/api' imported from " + context.parentURL)
    error.code = 'ERR_MODULE_NOT_FOUND'
    throw error
  }
  return next(specifier, context)
}
`
register(`data:text/javascript,${encodeURIComponent(hook)}`)
