import { describeValue, FieldReader, type FieldReaderKind, refuseField } from '@agent-core/core'

/**
 * Which tools may be offered and called, as one plain-JSON record: `deny` wins over `allow`, and an
 * empty or absent `allow` means every tool that is not denied. Names are tool ids, matched exactly.
 * A tool the policy does not permit is hidden, not refused: the model is never offered it, and a call to
 * it gets the same answer as a call to a name no tool has, so the answer never reveals that it exists.
 * @example
 * ```ts
 * import type { ToolPolicy } from '@agent-core/kits/tools'
 * const readOnly: ToolPolicy = { allow: ['search', 'read_file'] }
 * const noShell: ToolPolicy = { deny: ['shell'] }
 * ```
 */
export interface ToolPolicy {
  /** The tools permitted; empty or absent: all of them (but the denied). */
  readonly allow?: readonly string[] | undefined
  /** The tools never permitted, whatever `allow` says. */
  readonly deny?: readonly string[] | undefined
}

function readNames(fields: FieldReader, key: 'allow' | 'deny'): readonly string[] | undefined {
  const value = fields.get(key)
  if (value === undefined) return undefined
  if (!Array.isArray(value)) fields.mustBe(key, 'an array of tool ids', value)
  value.forEach((name: unknown, index) => {
    if (typeof name !== 'string' || name === '')
      refuseField(
        fields.kind,
        fields.path(`${key}[${index}]`),
        `must be a tool id (a non-empty string), but got ${describeValue(name)}`,
        name,
        { details: { index } },
      )
  })
  return Object.freeze([...(value as string[])])
}

/**
 * Checks a tool policy record and returns a frozen copy.
 * @param field - the name of the value in errors, e.g. `"definition.toolPolicy"`
 * @throws `InvalidInputError` for anything but `{ allow?, deny? }` with arrays of non-empty strings
 * @example
 * ```ts
 * import { assertToolPolicy } from '@agent-core/kits/tools'
 * const policy = assertToolPolicy(JSON.parse('{"deny":["shell"]}'), 'settings.toolPolicy')
 * ```
 */
export function assertToolPolicy(value: unknown, field = 'toolPolicy'): ToolPolicy {
  return readToolPolicy(value, field, 'input')
}

/** {@link assertToolPolicy} with the error class chosen by `kind` (`'definition'` for a registry's policy). */
export function readToolPolicy(value: unknown, field: string, kind: FieldReaderKind): ToolPolicy {
  const fields: FieldReader = new FieldReader(value, field, 'a tool policy { allow?, deny? }', kind)
  const allowed = readNames(fields, 'allow')
  const denied = readNames(fields, 'deny')
  fields.done()
  return Object.freeze({
    ...(allowed === undefined ? {} : { allow: allowed }),
    ...(denied === undefined ? {} : { deny: denied }),
  })
}

/**
 * True when every given policy permits the tool: no policy denies it, and each policy's `allow` is empty
 * or names it. Policies left `undefined` permit everything, so a registry's policy and a run's combine.
 * @example
 * ```ts
 * import { isToolPermitted } from '@agent-core/kits/tools'
 * isToolPermitted('shell', { deny: ['shell'] }) // false
 * isToolPermitted('search', { allow: ['search'], deny: [] }, { deny: ['shell'] }) // true
 * isToolPermitted('search', { allow: ['search'], deny: ['search'] }) // false: deny wins
 * ```
 */
export function isToolPermitted(toolId: string, ...policies: readonly (ToolPolicy | undefined)[]): boolean {
  for (const policy of policies) {
    if (policy === undefined) continue
    if (policy.deny?.includes(toolId)) return false
    if (policy.allow !== undefined && policy.allow.length > 0 && !policy.allow.includes(toolId)) return false
  }
  return true
}
