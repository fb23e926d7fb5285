import { refuseField } from '@agent-core/core'
import { assertKnownKeys, assertScript } from './internal/validate-script.js'
import type { MockScriptEntry } from './script.js'

/**
 * Parses a JSON script (text or an already parsed value): an array of {@link MockScriptEntry} objects,
 * `{ "script": [...] }`, or a single entry. JSON scripts use declarative `match` objects; predicates,
 * computed replies and controlled streams exist only in code. Unknown keys are refused with their path
 * and the nearest known key, so a typo such as `"matches"` cannot silently match every request.
 * @throws InvalidInputError naming the first bad entry and field (`details.field`)
 * @example
 * ```ts
 * import { createMockGPT, parseMockScript } from '@agent-core/mock'
 * const script = parseMockScript('[{ "reply": { "type": "text", "text": "Hi" }, "times": 2 }]')
 * const mock = createMockGPT({ script })
 * ```
 */
export function parseMockScript(source: unknown, where = 'script'): MockScriptEntry[] {
  let value = source
  if (typeof source === 'string') {
    try {
      value = JSON.parse(source)
    } catch (error) {
      refuseField(
        'input',
        where,
        `is not valid JSON: ${(error as Error).message}. Fix the file and try again`,
        source,
        { cause: error },
      )
    }
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    // `{ "script": [...] }` (nothing else beside it), or a single entry.
    if (Object.hasOwn(value, 'script')) {
      assertKnownKeys(value as Record<string, unknown>, ['script'], where)
      value = (value as { script: unknown }).script
    } else {
      value = [value]
    }
  }
  assertScript(value, where)
  return [...value]
}
